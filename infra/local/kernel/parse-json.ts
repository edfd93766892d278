/** `text` as JSON, or undefined where it is none: a line a kill cut short, a request body to refuse. */
export function parseJson(text: string | undefined, reviver?: (key: string, value: unknown) => unknown): unknown {
  try {
    return JSON.parse(text ?? '', reviver) as unknown;
  } catch {
    return undefined;
  }
}

import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';

/**
 * Stack traces that point into the TypeScript sources, made when an error is logged rather than as a
 * function loads. A bundle carries its source map beside it (`index.js.map`); Node's
 * `--enable-source-maps` would read and parse that map at every cold start, so the functions run
 * without it and a logged error's frames in a bundle are mapped here, the map read on the first error
 * of the process. Frames in files without a map beside them (the local stack's TypeScript, Node's own
 * modules, the SDK) are left as they are.
 */
export function sourceMappedStack(stack: string): string {
  const lines = stack.split('\n');
  const origins = lines.map(originOf);
  return lines
    .map((line, index) => {
      const origin = origins[index];
      if (!origin) return line;
      // A frame's function is named where its caller, the next frame, calls it (Node's own rule).
      const name = origins[index + 1]?.name;
      const located = line.replace(FRAME_LOCATION, `${readablePath(origin.fileName)}:${origin.lineNumber}:${origin.columnNumber}`);
      return name ? located.replace(/^(\s*at (?:new |async )?)[\w$.<>]+(?= \()/, (_, prefix: string) => `${prefix}${name}`) : located;
    })
    .join('\n');
}

/** Where a frame's `file:line:column` comes from, when the file is a bundle with a map beside it. */
function originOf(line: string): { fileName: string; lineNumber: number; columnNumber: number; name?: string } | undefined {
  const [, file, lineNumber, columnNumber] = FRAME_LOCATION.exec(line) ?? [];
  if (!file) return undefined;
  const origin = mapOf(file)?.findOrigin(Number(lineNumber), Number(columnNumber));
  return origin && 'fileName' in origin ? origin : undefined;
}

/** `file:line:column` of a frame in a `.js` file, with or without parentheses around it. */
const FRAME_LOCATION = /((?:file:\/\/)?\/[^\s():]+\.c?js):(\d+):(\d+)/;
/** The maps read so far, by bundle file; null when a file has no readable map. */
const maps = new Map<string, SourceMap | null>();
/** More distinct files than any bundle's stack names: past this, frames stay as they are. */
const MAX_FILES = 8;

function mapOf(file: string): SourceMap | null {
  const path = file.startsWith('file://') ? new URL(file).pathname : file;
  if (!maps.has(path)) {
    if (maps.size >= MAX_FILES) return null;
    maps.set(path, readMap(`${path}.map`));
  }
  return maps.get(path)!;
}

function readMap(file: string): SourceMap | null {
  try {
    return new SourceMap(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
}

/** A source's path as the repository names it (`shared/kernel/errors.ts`, `node_modules/zod/…`), wherever the bundle was built. */
const readablePath = (source: string) => /(?:^|\/)((?:functions|shared|infra|node_modules)\/.*)$/.exec(source)?.[1] ?? source;

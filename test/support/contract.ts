import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../shared/edge/openapi/document';
import { stack } from './stack';

/**
 * The OpenAPI document as a contract on what the API answers: a response must have a status its
 * operation documents, a documented content type, and a body that matches that content's schema.
 * `http-client.ts` checks every response an integration test receives through it.
 */

/** What the OpenAPI document's check looks at of a response. */
export interface ObservedResponse {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  /** The body parsed when it is JSON. */
  body: unknown;
  text: string;
}

type Json = Record<string, unknown>;

interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  /** Literal segments: the more, the better a match (`/users/quicksearch` over `/users/{userId}`). */
  literals: number;
  responses: Record<string, Json>;
}

export interface Contract {
  origins: Set<string>;
  operations: Operation[];
  validator: (pointer: string) => ValidateFunction;
}

let built: Contract | undefined;

/** The local stack's contract: its subpaths and address. */
function contract(): Contract {
  if (built) return built;
  const info = stack();
  const document = openApiDocument({ generative: info.generativeSubpath, user: info.userSubpath }, info.apiUrl);
  built = contractOf(document, [info.apiUrl, info.authUrl]);
  return built;
}

/** A contract on the responses of the servers at `urls`, from an OpenAPI document. */
export function contractOf(document: Json, urls: string[]): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi.json');
  const validators = new Map<string, ValidateFunction>();
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      const segments = template.split('/');
      operations.push({
        id: String(operation.operationId),
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${segments.map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : escape(s))).join('/')}$`),
        literals: segments.filter((s) => !s.startsWith('{')).length,
        responses: operation.responses as Record<string, Json>,
      });
    }
  }
  operations.sort((a, b) => b.literals - a.literals);
  return {
    origins: new Set(urls.map((url) => new URL(url).origin)),
    operations,
    validator: (pointer) => {
      let validate = validators.get(pointer);
      if (!validate) {
        validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
        validators.set(pointer, validate);
      }
      return validate;
    },
  };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pointerPart = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

/** Why the response breaks the OpenAPI document, or undefined when it keeps it (or is not the API's). */
export function contractViolation(response: ObservedResponse, against: Contract = contract()): string | undefined {
  const { origins, operations, validator } = against;
  const url = new URL(response.url);
  if (!origins.has(url.origin)) return undefined;
  const method = response.method.toUpperCase();
  const operation = operations.find((candidate) => candidate.method === method && candidate.pattern.test(url.pathname));
  const name = operation ? `${operation.id} (${method} ${operation.template})` : `${method} ${url.pathname} (no operation)`;
  const fail = (problem: string) =>
    `Contract: ${name} answered ${response.status} ${response.contentType ?? '(no content type)'}: ${problem}\n  body: ${response.text.slice(0, 500)}`;

  // A request no operation serves gets the standard error body (404 ROUTE_NOT_FOUND and the like).
  const base = operation
    ? `/paths/${pointerPart(operation.template)}/${method.toLowerCase()}/responses`
    : undefined;
  let status: string | undefined;
  if (operation) {
    status = [String(response.status), `${Math.floor(response.status / 100)}XX`, 'default'].find((key) => key in operation.responses);
    if (!status) return fail(`status ${response.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
  }
  const content = operation ? (operation.responses[status!]!.content as Record<string, Json> | undefined) : undefined;
  const mediaType = response.contentType?.split(';')[0]!.trim().toLowerCase();
  if (!operation) {
    if (response.status < 400 || mediaType !== 'application/json') return undefined;
    const validate = validator('/components/schemas/ErrorBody');
    return validate(response.body) ? undefined : fail(`not the standard error body: ${errorsOf(validate)}`);
  }
  if (!content) return response.text === '' ? undefined : fail('the documented response has no body, but one came');
  if (!mediaType) return response.text === '' && response.status === 204 ? undefined : fail('no content type');
  const key = [mediaType, `${mediaType.split('/')[0]}/*`, '*/*'].find((candidate) => candidate in content);
  if (!key) return fail(`content type ${mediaType} is not documented (documented: ${Object.keys(content).join(', ')})`);
  const pointer = `${base}/${pointerPart(status!)}/content/${pointerPart(key)}/schema`;
  const validate = validator(pointer);
  const value = mediaType === 'application/json' || mediaType.endsWith('+json') ? response.body : response.text;
  return validate(value) ? undefined : fail(errorsOf(validate));
}

const errorsOf = (validate: ValidateFunction) =>
  (validate.errors ?? [])
    .slice(0, 8)
    .map((error) => `${error.instancePath || '(body)'} ${error.message}${error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`)
    .join('; ');

/** Throws, naming the operation, the status and the schema errors, when the response breaks the OpenAPI document. */
export function assertContract(response: ObservedResponse): void {
  const violation = contractViolation(response);
  if (violation) throw new Error(violation);
}

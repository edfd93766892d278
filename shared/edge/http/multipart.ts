import type Busboy from '@fastify/busboy';
import type middy from '@middy/core';
import { ValidationError } from '../../kernel/errors';
import { logger } from '../../kernel/logger';
import type { HttpEvent, HttpResult, RequestContext } from './types';
import { requireLazily } from '../../kernel/lazy';

/** A file part of a `multipart/form-data` body. */
export interface FilePart {
  filename: string | undefined;
  mimetype: string;
  encoding: string;
  content: Buffer;
  /** The part was longer than the route's `maxFileBytes`: `content` holds only its first bytes. */
  truncated: boolean;
}

/** A form: each part by name; a name given twice holds every value, in order. */
export type MultipartForm = Record<string, string | FilePart | (string | FilePart)[]>;

export interface MultipartLimits {
  maxFileBytes: number;
}

/** Like the error middy's own parsers throw for a media type they do not read, so the mapper answers 415 for both. */
class UnsupportedMediaTypeError extends Error {
  readonly statusCode = 415;
  /** What the mapper tells the client to send instead. */
  readonly expected = 'multipart/form-data';
  constructor() {
    super('Unsupported Media Type');
  }
}

const MULTIPART = /^multipart\/form-data\s*(;|$)/i;

/**
 * busboy, loaded by the first multipart body: only the bulk uploads read one, and every route's chain
 * can reach this parser. A package left out of the functions' bundles (its own file in the function
 * that loads it: docs/decisions/lighter-functions.md).
 */
const busboy = /* @__PURE__ */ requireLazily<typeof Busboy>('@fastify/busboy', () => require('@fastify/busboy')); // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose

/**
 * Parses a `multipart/form-data` body with busboy into `event.body` (a `MultipartForm`). Another media
 * type is a 415; a multipart body busboy cannot read to its closing boundary (cut short, no or a bad
 * boundary, a malformed part header) is a 422 `VALIDATION_FAILED` on `(body)`, before any handler
 * runs, so nothing is stored.
 *
 * Busboy reports a body cut short twice: on itself and on the open file part's stream. An `'error'`
 * event nobody listens to throws out of an event emitter and ends the process, which is what middy's
 * `@middy/http-multipart-body-parser` left open (it listens on busboy, not on the file streams); here
 * every stream busboy hands out has an `'error'` listener.
 */
export function multipartBodyParser(limits: MultipartLimits): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  return {
    before: async (request) => {
      const { event } = request;
      const contentType = event.headers?.['content-type'] ?? '';
      if (!MULTIPART.test(contentType)) throw new UnsupportedMediaTypeError();
      const body = typeof event.body === 'string' ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
      try {
        // From here on the body is the parsed form, as middy's body parsers leave theirs.
        (event as { body?: unknown }).body = await parseMultipart(body, contentType, limits);
      } catch (error) {
        logger.info('multipart body refused', { reason: error instanceof Error ? error.message : String(error) });
        throw new ValidationError({ details: [{ fieldName: '(body)', message: 'Must be a complete multipart/form-data body, ending with its closing boundary', errorCode: 'FIELD_INVALID' }], message: 'The multipart/form-data body could not be read' });
      }
    },
  };
}

/** The parts of a whole multipart body; rejects (never throws, never leaves an error unheard) when busboy cannot read it. */
export function parseMultipart(body: Buffer, contentType: string, limits: MultipartLimits): Promise<MultipartForm> {
  return new Promise((resolve, reject) => {
    const parts = new Map<string, (string | FilePart)[]>();
    const add = (name: string | undefined, value: string | FilePart) => {
      if (name === undefined || name === '') return;
      parts.set(name, [...(parts.get(name) ?? []), value]);
    };
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error instanceof Error ? error : new Error(String(error)));
    };

    // Busboy's constructor throws on a missing or unusable boundary: the promise rejects with it.
    const parser = busboy()({
      headers: { 'content-type': contentType },
      limits: { fileSize: limits.maxFileBytes, files: 1, fields: 20, parts: 21 },
    });
    parser.on('file', (name, stream, filename, encoding, mimetype) => {
      const chunks: Buffer[] = [];
      stream.on('error', fail);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => add(name, { filename, mimetype, encoding, content: Buffer.concat(chunks), truncated: stream.truncated }));
    });
    parser.on('field', (name, value) => add(name, value));
    parser.on('error', fail);
    // Busboy finishes once every file part has ended, so the form is whole here.
    parser.on('finish', () => {
      if (settled) return;
      settled = true;
      resolve(Object.fromEntries([...parts].map(([name, values]) => [name, values.length === 1 ? values[0]! : values])));
    });
    parser.end(body);
  });
}

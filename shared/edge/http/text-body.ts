import type middy from '@middy/core';
import type { HttpEvent, HttpResult, RequestContext } from './types';

/**
 * A body the route reads from text of its own media types (a bundle: JSON or YAML) rather than with
 * middy's JSON parser: `read` turns the text into what the body schema then validates, and throws the
 * domain error a text it cannot read deserves.
 */
export interface BodyReader {
  /** The media types taken, the first the one a 415 advises; a request without Content-Type is read as the first. */
  mediaTypes: readonly string[];
  read: (text: string, mediaType: string) => unknown;
}

/** Like the error middy's own parsers throw for a media type they do not read, so the mapper answers 415. */
class UnsupportedMediaTypeError extends Error {
  readonly statusCode = 415;
  constructor(readonly expected: string) {
    super('Unsupported Media Type');
  }
}

export function textBodyParser(reader: BodyReader): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  return {
    before: (request) => {
      const { event } = request;
      const header = event.headers?.['content-type'];
      const mediaType = header === undefined ? reader.mediaTypes[0]! : header.split(';')[0]!.trim().toLowerCase();
      if (!reader.mediaTypes.includes(mediaType)) throw new UnsupportedMediaTypeError(reader.mediaTypes[0]!);
      const text = typeof event.body !== 'string' ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      (event as { body?: unknown }).body = reader.read(text, mediaType);
    },
  };
}

/**
 * The longest URL the service takes for an outbound address (a webhook's, an identity provider's):
 * the schemas check it (the docs function loads them for the OpenAPI document, so it lives in this
 * module of no imports, not with the address checks or zod), and the address checks again before
 * every outbound call.
 */
export const MAX_URL_LENGTH = 2048;

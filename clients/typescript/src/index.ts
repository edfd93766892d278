/**
 * The agent platform's management API from TypeScript: the typed client (openapi-fetch over the types
 * generated from the OpenAPI document), sign-in and token refresh at a realm, cursor paging, retries,
 * and errors as values.
 */
export { authorizedFetch, createApiClient, ok, type ApiClient, type ApiClientOptions } from './client';
export { ApiError, ConnectionError, OAuthError, apiErrorFrom, apiErrorOf, type ErrorBody, type OAuthErrorBody } from './errors';
export type { components, operations, paths } from './generated/api-types';
export { changeFeed, nextFromLink, paginate, paginateScimUsers, type ChangeFeedOptions, type ChangeFeedPage, type ItemOf, type ListingInit, type ListingPath } from './pages';
export { defaultRetryPolicy, retryAfterMs, retryingFetch, type RetryPolicy, type RetryingFetchOptions } from './retry';
export { OFFLINE_SCOPE, ONLINE_SCOPE, RealmSession, decodeJwt, endpointOf, issuerOf, type DeviceAuthorization, type RealmOptions, type TokenResponse } from './tokens';

import { RateLimitedError } from '../../kernel/errors';
import { countScimRequest } from '../../domain/scim/scim-request-window.repository';

/**
 * The SCIM endpoints' per-organization rate: a fixed one-second window, one counter per organization
 * and second, incremented under the condition that it is below the limit. Entra ID's provisioning
 * gallery asks at least 25 requests a second per tenant; 50 leaves a burst room while one directory
 * cannot take the users function's share of the account from the others.
 */
export const SCIM_REQUESTS_PER_SECOND = 50;

/** Counts a request of `orgUuid`; 429 (`RateLimitedError`, retry after 1 s) past the limit of this second. */
export async function takeScimRequest(orgUuid: string, now = Date.now(), limit = SCIM_REQUESTS_PER_SECOND): Promise<void> {
  const counted = await countScimRequest(orgUuid, Math.floor(now / 1000), limit);
  if (!counted) throw new RateLimitedError({ retryAfterSeconds: 1 });
}

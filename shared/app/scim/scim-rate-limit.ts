import { RateLimitedError } from '../../kernel/errors';
import { keys } from '../../adapters/store/keys';
import { updateItem } from '../../adapters/store/table';

/**
 * The SCIM endpoints' per-organization rate: a fixed one-second window, one counter item per
 * organization and second (`keys.scimRequestWindow`), incremented under the condition that it is below
 * the limit. Entra ID's provisioning gallery asks at least 25 requests a second per tenant; 50 leaves a
 * burst room while one directory cannot take the users function's share of the account from the others.
 */
export const SCIM_REQUESTS_PER_SECOND = 50;
/** The counter items expire a minute after their second (TTL), so they never accumulate. */
const WINDOW_TTL_SECONDS = 60;

/** Counts a request of `orgUuid`; 429 (`RateLimitedError`, retry after 1 s) past the limit of this second. */
export async function takeScimRequest(orgUuid: string, now = Date.now(), limit = SCIM_REQUESTS_PER_SECOND): Promise<void> {
  const second = Math.floor(now / 1000);
  const counted = await updateItem({
    Key: keys.scimRequestWindow(orgUuid, second),
    UpdateExpression: 'ADD requests :one SET #ttl = if_not_exists(#ttl, :ttl)',
    ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': second + WINDOW_TTL_SECONDS },
  });
  if (!counted) throw new RateLimitedError({ retryAfterSeconds: 1 });
}

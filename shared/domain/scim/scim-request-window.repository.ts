import { keys } from '../../adapters/store/keys';
import { updateItem } from '../../adapters/store/table';

/** The counter items expire a minute after their second (TTL), so they never accumulate. */
const WINDOW_TTL_SECONDS = 60;

/**
 * Counts a request of `orgUuid` in its one-second window (`keys.scimRequestWindow`, one counter item
 * per organization and second), under the condition that the count is below `limit`; false when it is not.
 */
export async function countScimRequest(orgUuid: string, second: number, limit: number): Promise<boolean> {
  return updateItem({
    Key: keys.scimRequestWindow(orgUuid, second),
    UpdateExpression: 'ADD requests :one SET #ttl = if_not_exists(#ttl, :ttl)',
    ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': second + WINDOW_TTL_SECONDS },
  });
}

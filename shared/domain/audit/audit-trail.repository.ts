import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../adapters/clients/dynamodb';
import { config } from '../../kernel/config';
import { GSI1, keys, type ItemKey } from '../../adapters/store/keys';
import { getItemsByKey, keyId, QUERY_PAGE_ITEMS } from '../../adapters/store/table';
import type { AuditEvent, AuditResourceType } from './audit-event';

/** What an audit listing selects: every condition given must hold. `from` and `to` are inclusive ISO instants (UTC, ms). */
export interface AuditFilter {
  actor?: string;
  resourceType?: AuditResourceType;
  resourceUuid?: string;
  from?: string;
  to?: string;
}

/** Where a page of events starts: the keys (and, listing one resource's, index keys) of the event before it. */
export type AuditPosition = ItemKey & { GSI1PK?: string; GSI1SK?: string };

/** Above every event id (a UUID) that follows `<at>#`: the end of `to`'s millisecond. */
const AFTER_ANY_ID = '~';

/** An event's keys as an audit listing reads them, with its expiry (epoch seconds). */
export type AuditKey = AuditPosition & { ttl: number };

/**
 * The events of an organization that `filter` selects, newest first: the `limit` starting at `offset`,
 * and how many there are in all. One key-range Query, newest first, reads the keys of the events in
 * the time range (all of the organization's, or, with `resourceUuid`, only that resource's, through
 * GSI1), filtered on the flat `actorUuid` and `resourceType` attributes and on expiry (an item past
 * its TTL that DynamoDB has not removed yet is not shown); then one BatchGetItem reads the page's
 * events. The Query's cost is the size of the events in the range (a filter does not reduce what is
 * read), hence the advice to give `from`/`to` or `resourceUuid`.
 *
 * After a page token's position (`after`, the keys of the last event of the page before) the Query
 * starts there (ExclusiveStartKey) and counts only what follows: `remaining`, the events from the
 * page on. `next` is the key to start the page after from, absent on the last page.
 */
export async function findAuditEvents(
  orgUuid: string,
  filter: AuditFilter,
  offset: number,
  limit: number,
  options: { after?: AuditPosition; now?: number } = {},
): Promise<{ events: AuditEvent[]; remaining: number; next?: AuditPosition }> {
  const found = await readAuditKeys(orgUuid, filter, options);
  const pageKeys = found.slice(offset, offset + limit).map(({ ttl: _, ...key }) => key);
  const total = found.length;
  return { events: await readAuditEvents(pageKeys), remaining: total, ...(total > offset + limit ? { next: pageKeys.at(-1)! } : {}) };
}

/** The events of `pageKeys`, in their order (one BatchGetItem); an event TTL removed since its key was read is left out. */
export async function readAuditEvents(pageKeys: AuditPosition[]): Promise<AuditEvent[]> {
  const found = await getItemsByKey<AuditEvent>(pageKeys);
  return pageKeys.flatMap((key) => found.get(keyId(key)) ?? []);
}

/**
 * The keys of every event `filter` selects, newest first (one Query, paged): after `after` when given,
 * at or after the time `since` when given (besides `filter.from`), strongly consistent when asked
 * (never through GSI1, which `resourceUuid` reads: an index is read eventually consistent).
 */
export async function readAuditKeys(
  orgUuid: string,
  filter: AuditFilter,
  options: { after?: AuditPosition; now?: number; since?: string; consistent?: boolean } = {},
): Promise<AuditKey[]> {
  const now = options.now ?? Date.now();
  const byResource = filter.resourceUuid !== undefined;
  const [pk, sk] = byResource ? ['GSI1PK', 'GSI1SK'] : ['PK', 'SK'];
  const names: Record<string, string> = { '#pk': pk, '#ttl': 'ttl', '#PK': 'PK', '#SK': 'SK', ...(byResource ? { '#gpk': 'GSI1PK', '#gsk': 'GSI1SK' } : {}) };
  const values: Record<string, unknown> = {
    ':pk': byResource ? keys.auditEventsOfResource(orgUuid, filter.resourceUuid!) : keys.auditEventsOf(orgUuid),
    ':now': Math.floor(now / 1000),
  };
  const from = options.since !== undefined && (filter.from === undefined || options.since > filter.from) ? options.since : filter.from;
  let range = '';
  if (from !== undefined || filter.to !== undefined) {
    names['#sk'] = sk;
    if (from !== undefined) values[':from'] = from;
    if (filter.to !== undefined) values[':to'] = `${filter.to}#${AFTER_ANY_ID}`;
    range = from !== undefined && filter.to !== undefined ? ' AND #sk BETWEEN :from AND :to' : from !== undefined ? ' AND #sk >= :from' : ' AND #sk <= :to';
  }
  const conditions = ['#ttl > :now'];
  if (filter.actor !== undefined) {
    conditions.push('actorUuid = :actor');
    values[':actor'] = filter.actor;
  }
  if (filter.resourceType !== undefined) {
    conditions.push('resourceType = :type');
    values[':type'] = filter.resourceType;
  }

  const found: AuditKey[] = [];
  let start: Record<string, unknown> | undefined = options.after ? { ...options.after } : undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: config().tableName,
        ...(byResource ? { IndexName: GSI1 } : {}),
        KeyConditionExpression: `#pk = :pk${range}`,
        FilterExpression: conditions.join(' AND '),
        ProjectionExpression: byResource ? '#PK, #SK, #gpk, #gsk, #ttl' : '#PK, #SK, #ttl',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: QUERY_PAGE_ITEMS,
        ...(options.consistent && !byResource ? { ConsistentRead: true } : {}),
        ExclusiveStartKey: start,
      }),
    );
    found.push(...((page.Items ?? []) as AuditKey[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

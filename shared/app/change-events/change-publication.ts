import type { DynamoDBRecord } from 'aws-lambda';
import { appendToFeed } from '../../domain/audit/change-feed.repository';
import { cloudEventOf } from '../../domain/audit/cloud-event';
import { eventTypeOfAction } from '../../domain/audit/event-types';
import { enqueueChanges, type ChangeForSubscribers } from '../../domain/webhooks/delivery-schedule';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import { changeOfRecord } from './change-stream';
import { eventBus } from './event-bus.port';

/**
 * What the publisher does (docs/api/events.md): each audit event the table's stream carries becomes
 * one CloudEvent, appended to its organization's change feed, put on the event bus, in order, then a
 * delivery for each webhook subscription that wants it (the sweep that sends the due deliveries, on a
 * schedule, is `webhooks/delivery-engine.ts`).
 */

/** The change event of a stream record, or nothing for a record that is no audit event. */
export function changeOf(record: DynamoDBRecord): ChangeForSubscribers | undefined {
  const change = changeOfRecord(record);
  if (!change) return void logger.warn('stream record that is no audit event: skipped', { eventId: record.eventID, eventName: record.eventName });
  return { orgUuid: change.orgUuid, event: cloudEventOf(change.orgUuid, change.event), shortType: eventTypeOfAction[change.event.action] };
}

/**
 * Appends the batch's change events to their organizations' feeds, puts them on the bus in order and
 * schedules the webhook deliveries of those published; how many were. The feed comes first and
 * appends each event once, so a batch retried from an event the bus refused appends nothing twice.
 */
export async function publishChanges(changes: ChangeForSubscribers[]): Promise<number> {
  await appendToFeeds(changes);
  const published = await eventBus.publish(changes.map(({ event }) => event));
  count('ChangeEventsPublished', published);
  await enqueueChanges(changes.slice(0, published));
  if (published < changes.length) logger.error('change events not published: the stream retries from the first', { published, pending: changes.length - published });
  return published;
}

/** Each organization's events of the batch appended to its feed, in the batch's order; organizations at once. */
async function appendToFeeds(changes: readonly ChangeForSubscribers[]): Promise<void> {
  const byOrg = new Map<string, ChangeForSubscribers['event'][]>();
  for (const { orgUuid, event } of changes) byOrg.set(orgUuid, [...(byOrg.get(orgUuid) ?? []), event]);
  await Promise.all([...byOrg].map(([orgUuid, events]) => appendToFeed(orgUuid, events)));
}

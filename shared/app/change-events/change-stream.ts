import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AuditEvent } from '../../domain/audit/audit-event';
import { auditActions } from '../../domain/audit/audit-kinds';

/**
 * The table's stream as the `publisher` function reads it: only the insertion of an audit event (the
 * outbox item every change's transaction writes) is a change to publish. This pattern is the event
 * source mapping's filter in CDK and the local stack's poller applies the same one, so the function
 * sees the same records on both.
 */
export const auditEventFilterPattern = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { type: { S: ['AUDIT_EVENT'] } } },
} as const;

/** A committed change read from the stream: its organization, its audit event and the record's place in its shard. */
export interface StreamedChange {
  orgUuid: string;
  event: AuditEvent;
  sequenceNumber: string;
}

/** The change a stream record carries, or undefined for a record that is not a well-formed audit event's insertion. */
export function changeOfRecord(record: DynamoDBRecord): StreamedChange | undefined {
  const image = record.dynamodb?.NewImage;
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  if (record.eventName !== 'INSERT' || !image || !sequenceNumber) return undefined;
  const item = unmarshall(image as Record<string, never>) as Record<string, unknown>;
  if (item.type !== 'AUDIT_EVENT' || typeof item.orgUuid !== 'string') return undefined;
  const event = item as unknown as AuditEvent;
  if (typeof event.id !== 'string' || !auditActions.includes(event.action) || !event.resource?.uuid) return undefined;
  return {
    orgUuid: item.orgUuid,
    sequenceNumber,
    event: {
      id: event.id,
      at: event.at,
      actor: event.actor,
      action: event.action,
      resource: event.resource,
      requestId: event.requestId ?? null,
      ...(event.changes ? { changes: event.changes } : {}),
      ...(event.place ? { place: event.place } : {}),
    },
  };
}

/** Whether a value matches an EventBridge-style pattern of exact values (the subset the filter above uses). */
export function matchesPattern(value: unknown, pattern: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.includes(value as never);
  if (typeof pattern !== 'object' || pattern === null) return false;
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(pattern).every(([name, inner]) => matchesPattern((value as Record<string, unknown>)[name], inner));
}

export type StreamImage = Record<string, AttributeValue>;

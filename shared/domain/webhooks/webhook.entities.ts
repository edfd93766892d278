import type { SigningSecret } from './signing';

/** A webhook subscription of an organization (docs/api/events.md). */
export interface WebhookRecord {
  id: string;
  orgUuid: string;
  url: string;
  /** Event types without the stack's prefix (`agent.updated`), or `*` for every one. */
  eventTypes: string[];
  enabled: boolean;
  /** Changes made by these users are not delivered (an integration's own echoes). */
  excludeActors: string[];
  description?: string;
  /** Newest first: the current secret, and the rotated-out one while it still signs. */
  secrets: SigningSecret[];
  createdAt: string;
  updatedAt: string;
  /** Since when every attempt failed (cleared by a success); 24 h of it disables the subscription. */
  failingSince?: string;
  disabledAt?: string;
  disabledReason?: string;
  /** Change events not scheduled because a backlog cap was reached, and when the last one was. */
  droppedEvents?: number;
  lastDroppedAt?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
/** `event`: a change, in its lane's order; `redelivery` and `ping`: sent on their own. */
export type DeliveryKind = 'event' | 'redelivery' | 'ping';

/** One event to deliver to one subscription, until it is delivered or given up. */
export interface DeliveryRecord {
  id: string;
  orgUuid: string;
  webhookId: string;
  kind: DeliveryKind;
  eventId: string;
  /** The full CloudEvents type. */
  eventType: string;
  /** Deliveries of one lane (one resource) go out one at a time, in `sequence` order. */
  laneId: string;
  sequence: string;
  /** The CloudEvent as sent: every attempt sends these very bytes. */
  body: string;
  status: DeliveryStatus;
  createdAt: string;
  dueAt: string;
  attempts: number;
  firstAttemptAt?: string;
  /** While an attempt runs, no other sweep takes the delivery. */
  leaseUntil?: string;
  /** Why it was given up. */
  reason?: string;
}

/** One attempt of a delivery, as `GET …/deliveries` lists it. */
export interface AttemptRecord {
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  at: string;
  ok: boolean;
  httpStatus: number | null;
  latencyMs: number;
  /** Why it failed, in the outbound rules' words: never what the receiver answered. */
  error?: string;
}

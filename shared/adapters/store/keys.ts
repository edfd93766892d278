/**
 * With `sign-in-keys.ts` (spread in below), the only module that builds key strings. Every item lives in one table under `PK`/`SK`, with one
 * global secondary index `GSI1` (`GSI1PK`/`GSI1SK`); docs/data-model.md#items-and-access-patterns lists the access
 * patterns.
 */
import { orgPartition, type IndexedKey, type ItemKey } from './key-types';
import { signInKeys } from './sign-in-keys';

export type { IndexedKey, ItemKey, RefreshSessionKind } from './key-types';

export const GSI1 = 'GSI1';

const org = orgPartition;

export const keys = {
  ...signInKeys,
  organization: (orgUuid: string): ItemKey => ({ PK: org(orgUuid), SK: 'ORG' }),
  /** Realm names are stored lower-case, so they are unique and looked up without regard to case. */
  realm: (name: string): ItemKey => ({ PK: `REALM#${name.toLowerCase()}`, SK: 'REALM' }),

  environment: (orgUuid: string, envUuid: string): ItemKey => ({ PK: org(orgUuid), SK: `ENV#${envUuid}` }),

  /** A bot sits under its environment; GSI1 finds it from its uuid alone. */
  bot: (orgUuid: string, envUuid: string, botUuid: string): IndexedKey => ({
    PK: org(orgUuid),
    SK: `ENV#${envUuid}#BOT#${botUuid}`,
    GSI1PK: `BOT#${botUuid}`,
    GSI1SK: 'BOT',
  }),
  botByUuid: (botUuid: string) => ({ GSI1PK: `BOT#${botUuid}`, GSI1SK: 'BOT' }),

  agent: (botUuid: string, agentUuid: string): ItemKey => ({ PK: `BOT#${botUuid}`, SK: `AGENT#${agentUuid}` }),
  /** Supervisors and agents of a bot share one sort-key prefix; `kind` tells them apart. */
  agentsOfBot: (botUuid: string) => ({ PK: `BOT#${botUuid}`, SKPrefix: 'AGENT#' }),
  defaultSupervisor: (botUuid: string): ItemKey => ({ PK: `BOT#${botUuid}`, SK: 'DEFAULT_SUPERVISOR' }),
  persona: (botUuid: string, uuid: string): ItemKey => ({ PK: `BOT#${botUuid}`, SK: `PERSONA#${uuid}` }),
  botFunction: (botUuid: string, uuid: string): ItemKey => ({ PK: `BOT#${botUuid}`, SK: `FUNCTION#${uuid}` }),
  collection: (botUuid: string, uuid: string): ItemKey => ({ PK: `BOT#${botUuid}`, SK: `COLLECTION#${uuid}` }),
  /** The bot's partition: its supervisors, agents, default marker, personas, functions and collections, read at once by a bundle. */
  botPartition: (botUuid: string): string => `BOT#${botUuid}`,
  /**
   * Held while a bundle is applied to the bot (docs/api/bundles.md#all-or-nothing): every other write
   * of a supervisor or agent of the bot checks that no unexpired lease is held.
   */
  bundleLease: (botUuid: string): ItemKey => ({ PK: `BOT#${botUuid}`, SK: 'BUNDLE_LEASE' }),

  /** A tag of an organization, found by its lower-cased `#name`. */
  tag: (orgUuid: string, name: string): ItemKey => ({ PK: org(orgUuid), SK: `TAG#${name.toLowerCase()}` }),

  /** A user's configuration entry: general (`*`) or for one bot. */
  configuration: (userUuid: string, botUuid: string | undefined, key: string): ItemKey => ({
    PK: `USER#${userUuid}`,
    SK: `CONF#${botUuid ?? '*'}#${key}`,
  }),
  /** All of a user's entries, or only those of one bot (or only the general ones, with `*`). */
  configurationsOf: (userUuid: string, botUuid?: string) => ({
    PK: `USER#${userUuid}`,
    SKPrefix: botUuid ? `CONF#${botUuid}#` : 'CONF#',
  }),
  /** Hands out a user's entry ids. */
  configurationCounter: (userUuid: string): ItemKey => ({ PK: `USER#${userUuid}`, SK: 'CONF_COUNTER' }),

  /** Users of an organization, newest first through GSI1. */
  user: (orgUuid: string, userUuid: string, createdAt: string): IndexedKey => ({
    PK: org(orgUuid),
    SK: `USER#${userUuid}`,
    GSI1PK: keys.usersOf(orgUuid),
    GSI1SK: `${createdAt}#${userUuid}`,
  }),
  userKey: (orgUuid: string, userUuid: string): ItemKey => ({ PK: org(orgUuid), SK: `USER#${userUuid}` }),
  /** The GSI1 partition listing every user item of an organization. */
  usersOf: (orgUuid: string): string => `${org(orgUuid)}#USERS`,
  /**
   * One shard of an organization's user directory: a map from user uuid to the user's listing fields,
   * so listings and searches read a few items instead of every user.
   */
  userDirectoryShard: (orgUuid: string, shard: number): ItemKey => ({
    PK: org(orgUuid),
    SK: `USERDIR#${String(shard).padStart(2, '0')}`,
  }),
  /**
   * The users index (`shared/domain/users/user-index.ts`): one listing partition per status and order, whose
   * entries sort by `sortKey` (the order's folded value, then creation time and uuid).
   */
  userListing: (orgUuid: string, status: string, order: string): string => `${org(orgUuid)}#USERS#${status}#${order}`,
  userListingEntry: (orgUuid: string, status: string, order: string, sortKey: string): ItemKey => ({
    PK: keys.userListing(orgUuid, status, order),
    SK: sortKey,
  }),
  /** The users whose words begin with one prefix (a search's postings), one item per user. */
  userPostings: (orgUuid: string, prefix: string): string => `${org(orgUuid)}#TERM#${prefix}`,
  userPosting: (orgUuid: string, prefix: string, userUuid: string): ItemKey => ({ PK: keys.userPostings(orgUuid, prefix), SK: userUuid }),
  /** Each change of a user's name or status, in time order, for quicksearch caches to catch up (TTL). */
  userNameChanges: (orgUuid: string): string => `${org(orgUuid)}#NAMECHANGES`,
  userNameChange: (orgUuid: string, changedAt: string, userUuid: string): ItemKey => ({
    PK: keys.userNameChanges(orgUuid),
    SK: `${changedAt}#${userUuid}`,
  }),
  /** Each change of a user's e-mail, company or creation time that leaves its name and status, in time order, for deep-page caches (TTL). */
  userListingChanges: (orgUuid: string): string => `${org(orgUuid)}#LISTINGCHANGES`,
  userListingChange: (orgUuid: string, changedAt: string, userUuid: string): ItemKey => ({
    PK: keys.userListingChanges(orgUuid),
    SK: `${changedAt}#${userUuid}`,
  }),
  /** The number of ACTIVE and DELETED users of an organization, and the version every user write moves. */
  userCount: (orgUuid: string): ItemKey => ({ PK: org(orgUuid), SK: 'USERCOUNT' }),
  /** The set of an organization's active ADMIN uuids: guards the last one. */
  orgAdmins: (orgUuid: string): ItemKey => ({ PK: org(orgUuid), SK: 'ADMINS' }),
  /** A bulk-create job of an organization. */
  bulkJob: (orgUuid: string, jobId: string): ItemKey => ({ PK: org(orgUuid), SK: `JOB#${jobId}` }),
  /** Claims an e-mail within an organization (uniqueness without transactions). */
  emailClaim: (orgUuid: string, email: string): ItemKey => ({
    PK: org(orgUuid),
    SK: `EMAIL#${email.toLowerCase()}`,
  }),

  /**
   * An audit event of an organization: one partition per organization, ordered by time (then id), so
   * a page is the newest events of a time range.
   */
  auditEvent: (orgUuid: string, at: string, id: string): ItemKey => ({ PK: `${org(orgUuid)}#AUDIT`, SK: `${at}#${id}` }),
  auditEventsOf: (orgUuid: string): string => `${org(orgUuid)}#AUDIT`,
  /**
   * The same event in GSI1 under its resource, in the same time order: what happened to one agent,
   * user or job is read without reading the rest of the organization's events.
   */
  auditEventOfResource: (orgUuid: string, resourceUuid: string, at: string, id: string) => ({
    GSI1PK: keys.auditEventsOfResource(orgUuid, resourceUuid),
    GSI1SK: `${at}#${id}`,
  }),
  auditEventsOfResource: (orgUuid: string, resourceUuid: string): string => `${org(orgUuid)}#AUDIT#${resourceUuid}`,

  /**
   * An organization's change feed: one partition holding its head (the last sequence number given)
   * and its entries, each under its zero-padded sequence number, so a Query after a cursor reads them
   * in order. `feedEntries` bounds the entries' sort keys (the head sorts outside them).
   */
  feedHead: (orgUuid: string): ItemKey => ({ PK: `${org(orgUuid)}#FEED`, SK: 'HEAD' }),
  feedEntry: (orgUuid: string, seq: number): ItemKey => ({ PK: `${org(orgUuid)}#FEED`, SK: `SEQ#${String(seq).padStart(15, '0')}` }),
  feedEntries: (orgUuid: string) => ({ PK: `${org(orgUuid)}#FEED`, first: `SEQ#${'0'.repeat(15)}`, last: `SEQ#${'9'.repeat(15)}` }),
  /** That an event is in its organization's feed: its own partition, so a stream record handed over again appends nothing. */
  feedMarker: (orgUuid: string, eventId: string): ItemKey => ({ PK: `${org(orgUuid)}#FEED#EVENT#${eventId}`, SK: 'FEED_EVENT' }),

  /**
   * A webhook subscription of an organization, in the organization's partition (a listing is a
   * `WEBHOOK#` prefix query, in id order), and the organization's count of them (at most 20).
   */
  webhook: (orgUuid: string, webhookId: string): ItemKey => ({ PK: org(orgUuid), SK: `WEBHOOK#${webhookId}` }),
  webhooksOf: (orgUuid: string) => ({ PK: org(orgUuid), SKPrefix: 'WEBHOOK#' }),
  webhookCount: (orgUuid: string): ItemKey => ({ PK: org(orgUuid), SK: 'WEBHOOKCOUNT' }),
  /** A subscription's own partition: its deliveries, their attempts and its lanes. */
  webhookPartition: (orgUuid: string, webhookId: string): string => `${org(orgUuid)}#WEBHOOK#${webhookId}`,
  /** One event to deliver to one subscription, by its id (derived from both, so enqueueing twice writes it once). */
  webhookDelivery: (orgUuid: string, webhookId: string, deliveryId: string): ItemKey => ({
    PK: keys.webhookPartition(orgUuid, webhookId),
    SK: `DELIVERY#${deliveryId}`,
  }),
  /**
   * A pending delivery in the schedule: GSI1's partition of its subscription, by the time it is due
   * (the sweep reads what is due now, subscription by subscription); the attributes are removed once
   * the delivery ends.
   */
  webhookDue: (orgUuid: string, webhookId: string, dueAt: string, deliveryId: string) => ({
    GSI1PK: keys.webhookDuePartition(orgUuid, webhookId),
    GSI1SK: `${dueAt}#${deliveryId}`,
  }),
  webhookDuePartition: (orgUuid: string, webhookId: string): string => `${keys.webhookPartition(orgUuid, webhookId)}#DUE`,
  /** The one due partition every organization's deliveries shared in an earlier layout; the sweep moves what is left in it. */
  legacyWebhooksDue: 'WEBHOOKS_DUE',
  /**
   * The backlog registry: one entry per subscription that has pending deliveries, all in one
   * partition, keyed by organization first (the sweep reads it whole and groups it by organization;
   * an organization's entries are a prefix query). The entry counts the pending deliveries.
   */
  webhookBacklog: (orgUuid: string, webhookId: string): ItemKey => ({ PK: keys.webhookBacklogs, SK: `${orgUuid}#${webhookId}` }),
  webhookBacklogsOf: (orgUuid: string) => ({ PK: keys.webhookBacklogs, SKPrefix: `${orgUuid}#` }),
  webhookBacklogs: 'WEBHOOK_BACKLOGS',
  /** The tests and redeliveries asked of a subscription in one window (a fixed-window counter, TTL). */
  webhookSendWindow: (orgUuid: string, webhookId: string, window: number): ItemKey => ({
    PK: keys.webhookPartition(orgUuid, webhookId),
    SK: `SENDS#${window}`,
  }),
  /**
   * A pending delivery's place in its lane (one subscription, one resource), by the event's sequence:
   * only the first of a lane is sent, so one resource's events reach a subscription in order.
   */
  webhookLaneEntry: (orgUuid: string, webhookId: string, laneId: string, sequence: string, deliveryId: string): ItemKey => ({
    PK: keys.webhookPartition(orgUuid, webhookId),
    SK: `LANE#${laneId}#${sequence}#${deliveryId}`,
  }),
  webhookLane: (orgUuid: string, webhookId: string, laneId: string) => ({ PK: keys.webhookPartition(orgUuid, webhookId), SKPrefix: `LANE#${laneId}#` }),
  /** One attempt of a delivery, newest last in key order (`GET …/deliveries` reads them backwards); expires (TTL). */
  webhookAttempt: (orgUuid: string, webhookId: string, at: string, deliveryId: string, attempt: number): ItemKey => ({
    PK: keys.webhookPartition(orgUuid, webhookId),
    SK: `ATTEMPT#${at}#${deliveryId}#${String(attempt).padStart(4, '0')}`,
  }),
  webhookAttemptsOf: (orgUuid: string, webhookId: string) => ({ PK: keys.webhookPartition(orgUuid, webhookId), SKPrefix: 'ATTEMPT#' }),

  /** A revision of a supervisor or agent: its snapshot as read right after that write. */
  agentRevision: (botUuid: string, agentUuid: string, revision: number): ItemKey => ({
    PK: `BOT#${botUuid}#AGENT#${agentUuid}#REVISIONS`,
    SK: `REV#${String(revision).padStart(10, '0')}`,
  }),
  agentRevisionsOf: (botUuid: string, agentUuid: string): string => `BOT#${botUuid}#AGENT#${agentUuid}#REVISIONS`,

  /**
   * A request a user sent with an `Idempotency-Key` and its first answer (shared/edge/http/idempotency.ts):
   * in the user's partition, so a key is the user's alone. `recordId` is Powertools' idempotency key
   * (a version prefix and the hash of the header); the item expires through `ttl` after 24 hours.
   */
  idempotencyRecord: (userUuid: string, recordId: string): ItemKey => ({ PK: `USER#${userUuid}`, SK: `IDEMPOTENCY#${recordId}` }),
  /**
   * What a keyed request changed, written in the change's own transaction: a retry after a crash
   * between the change and its answer's record finds it and answers the same resource again.
   */
  keyedChange: (userUuid: string, recordId: string): ItemKey => ({ PK: `USER#${userUuid}`, SK: `KEYEDCHANGE#${recordId}` }),

  /** A SCIM token of an organization (its SHA-256 digest, never the token), and the prefix listing them. */
  scimToken: (orgUuid: string, tokenId: string): ItemKey => ({ PK: org(orgUuid), SK: `SCIMTOKEN#${tokenId}` }),
  scimTokensOf: (orgUuid: string) => ({ PK: org(orgUuid), SKPrefix: 'SCIMTOKEN#' }),
  /** How many SCIM tokens the organization has, so an issue beyond the cap is refused in its own transaction. */
  scimTokenCount: (orgUuid: string): ItemKey => ({ PK: org(orgUuid), SK: 'SCIMTOKENCOUNT' }),
  /** The SCIM requests of an organization in one second (a fixed-window counter, TTL). */
  scimRequestWindow: (orgUuid: string, second: number): ItemKey => ({ PK: `${org(orgUuid)}#SCIMRATE`, SK: String(second) }),

  /**
   * An OpenID provider of an organization by its alias (a listing is an `IDP#` prefix query, in alias
   * order), the organization's count of them (at most 10), and each e-mail domain's claim naming the
   * one provider of the organization that holds it (sign-in finds the provider of an e-mail there).
   */
  identityProvider: (orgUuid: string, alias: string): ItemKey => ({ PK: org(orgUuid), SK: `IDP#${alias}` }),
  identityProvidersOf: (orgUuid: string) => ({ PK: org(orgUuid), SKPrefix: 'IDP#' }),
  identityProviderCount: (orgUuid: string): ItemKey => ({ PK: org(orgUuid), SK: 'IDPCOUNT' }),
  identityProviderDomain: (orgUuid: string, domain: string): ItemKey => ({ PK: org(orgUuid), SK: `IDPDOMAIN#${domain.toLowerCase()}` }),
  /** The key that seals the client secrets of organizations' OpenID providers (shared/domain/identity-providers/client-secret.repository.ts). */
  identityProviderSealKey: (): ItemKey => ({ PK: 'IDPSEALKEY', SK: 'IDPSEALKEY' }),

  /** The stack's key that signs page tokens (shared/domain/requests/page-token.repository.ts), made on first use. */
  pageTokenKey: (): ItemKey => ({ PK: 'PAGETOKENKEY', SK: 'PAGETOKENKEY' }),
  /** The key that seals the passwords queued e-mails carry (shared/adapters/mail/mail-queue.ts). */
  mailSealKey: (): ItemKey => ({ PK: 'MAILSEALKEY', SK: 'MAILSEALKEY' }),
  /** A user's latest queued e-mail of a kind: which attempt is current and how it ended. */
  userMail: (orgUuid: string, userUuid: string, kind: string): ItemKey => ({ PK: org(orgUuid), SK: `MAIL#${kind}#${userUuid}` }),
};

const keyAttributes = new Set(['PK', 'SK', 'GSI1PK', 'GSI1SK', 'type', 'ttl']);

/** An item without its key and bookkeeping attributes. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !keyAttributes.has(name))) as T;
}

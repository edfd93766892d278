import { keys, withoutKeys, type RefreshSessionKind } from '../../adapters/store/keys';
import { deleteItem, getItem, getItems, putItem, queryIndexPage, updateItem, type TableWrite } from '../../adapters/store/table';
import { logger } from '../../kernel/logger';

/** A refresh session: the refresh token's secret is kept only as a hash. */
export interface Session {
  /** The browser's realm session whose sign-in began this one: its logout ends this one too (not an offline one). */
  realmSessionId?: string;
  sessionId: string;
  userUuid: string;
  orgUuid: string;
  clientId: string;
  /** The scope granted at sign-in (`openid` adds ID tokens on every refresh). */
  scope?: string;
  /** Epoch seconds of the password grant that began the session (the ID token's `auth_time`). */
  authTime?: number;
  /**
   * Epoch milliseconds the sign-in the session rests on began, before its credentials were checked:
   * a credential stamp at or after it ends the session (`sessionStartMs`).
   */
  startedAtMs?: number;
  /** How the person proved who they are; a session that does not say began with a password. */
  signedInWith?: SignInMethod;
  secretHash: string;
  /** Hash of the secret the last rotation replaced: seeing it again means a copy is in other hands. */
  previousSecretHash?: string;
  /** Epoch seconds: the refresh token's expiry (slides on each refresh, never past `endsAt`). */
  expiresAt: number;
  /** Epoch seconds: the session's absolute end (an offline session's slides with `expiresAt`). */
  endsAt: number;
  /** Begun with `scope=offline_access`: no absolute end, only an idle expiry that each use renews. */
  offline?: true;
  /** Epoch seconds the session began. */
  createdAt?: number;
  /** Epoch seconds of its last refresh. */
  lastUsedAt?: number;
  /** An account-page session begun with a temporary password: it may only set a new password. */
  mustSetPassword?: boolean;
}

/** A password (the sign-in form, the password grant), or the organization's own identity provider. */
export type SignInMethod = 'password' | 'provider';

/**
 * How many refresh sessions of each kind (offline, the account page's, ordinary) a user holds at most:
 * a new one past it ends the user's least recently used one of that kind.
 */
export const SESSIONS_PER_KIND = 100;

/** The most sessions one sign-in ends past the cap: what sign-ins at the same instant left over is a few. */
const TRIM_AT_MOST = 25;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The client id of the realm's account page, whose sessions the page's cookie holds (Keycloak's account console). */
export const ACCOUNT_PAGE_CLIENT = 'account-console';

/**
 * A session's kind, each capped on its own: offline, the account page's (a page any site can open in
 * a new window must not push out the sessions of the user's applications), or ordinary.
 */
export const sessionKind = (session: Pick<Session, 'offline' | 'clientId'>): RefreshSessionKind =>
  session.offline ? 'OFFLINE' : session.clientId === ACCOUNT_PAGE_CLIENT ? 'PAGE' : 'ONLINE';

/**
 * Epoch milliseconds a session began, as the credential stamps compare it: its sign-in's start, else
 * (a session made before sessions recorded it) the second it was made.
 */
export function sessionStartMs(session: Pick<Session, 'startedAtMs' | 'createdAt' | 'authTime'>): number {
  return session.startedAtMs ?? (session.createdAt ?? session.authTime ?? 0) * 1000;
}

/** The session's place in its user's GSI1 partition (kind, second made, id), from the session itself. */
const indexKey = (session: Session) => keys.session(session.sessionId, session.userUuid, sessionKind(session), session.createdAt ?? 0);

/**
 * Writes a new session, then keeps its user within `SESSIONS_PER_KIND` sessions of its kind
 * (`keepWithinCap`): the sign-in that goes past the cap ends the least recently used one. Give the
 * user's `credentialsChangedAt`: sessions it ended are not counted (nor read).
 */
export async function createSession(session: Session, user: { credentialsChangedAt?: number } = {}): Promise<void> {
  const made: Session = { ...session, createdAt: session.createdAt ?? nowSeconds() };
  await putItem({ ...indexKey(made), type: 'SESSION', ttl: made.endsAt, ...made }, { ConditionExpression: 'attribute_not_exists(PK)' });
  try {
    await keepWithinCap(made, user.credentialsChangedAt);
  } catch (error) {
    // The session is made: failing the sign-in now would only make the client sign in again. What is
    // left over past the cap, the next sign-in ends.
    logger.warn('sessions past the cap not ended', { errorName: error instanceof Error ? error.name : 'unknown' });
  }
}

/**
 * Ends the least recently used sessions (`lastUsedAt`, else `createdAt`) of the user's kind past the
 * cap, `made` excepted. The index says which sessions there are; what it lists is then read strongly
 * consistent, so a session ended or used since the index was written is counted as it is; each end is
 * conditional on the session not having been used since that read. Sign-ins at the same instant may
 * not see each other's sessions in the index: the user then holds a few more than the cap until the
 * next sign-in, never fewer than the cap because of it.
 */
async function keepWithinCap(made: Session, notBeforeMs: number | undefined): Promise<void> {
  const kind = sessionKind(made);
  const { items, next } = await queryIndexPage(keys.sessionsOf(made.userUuid), {
    prefix: keys.refreshSessionsOfKind(kind),
    ...(notBeforeMs === undefined ? {} : { from: keys.refreshSessionsMadeFrom(kind, Math.floor(notBeforeMs / 1000)) }),
    limit: SESSIONS_PER_KIND + TRIM_AT_MOST,
    attributes: ['sessionId', 'expiresAt'],
  });
  const now = nowSeconds();
  const order = new Map<string, number>();
  for (const item of items) if ((item.expiresAt as number) > now) order.set(item.sessionId as string, order.size);
  // Just written: the index may not show it yet.
  if (!order.has(made.sessionId)) order.set(made.sessionId, order.size);
  if (order.size <= SESSIONS_PER_KIND) return;

  const read = await getItems<Session>([...order.keys()].map(keys.sessionKey), { consistent: true });
  const live = read
    .filter((session) => session.expiresAt > now && session.userUuid === made.userUuid && sessionKind(session) === kind && startsAfter(session, notBeforeMs))
    .sort((a, b) => lastUse(a) - lastUse(b) || order.get(a.sessionId)! - order.get(b.sessionId)!);
  // With more of the kind than were read (sessions from before the cap), the unread ones only add to
  // the count: ending the excess of what was read still leaves the cap's worth.
  const excess = Math.min(live.length - SESSIONS_PER_KIND, TRIM_AT_MOST);
  if (excess <= 0) return;
  const ending = live.filter((session) => session.sessionId !== made.sessionId).slice(0, excess);
  if (next !== undefined) logger.info('sessions past the cap: more than one sign-in ends', { kind, ending: ending.length });
  await Promise.all(
    ending.map((session) =>
      deleteItem({
        Key: keys.sessionKey(session.sessionId),
        ConditionExpression: session.lastUsedAt === undefined ? 'attribute_exists(PK) AND attribute_not_exists(lastUsedAt)' : 'lastUsedAt = :seen',
        ...(session.lastUsedAt === undefined ? {} : { ExpressionAttributeValues: { ':seen': session.lastUsedAt } }),
      }),
    ),
  );
}

const lastUse = (session: Session) => session.lastUsedAt ?? session.createdAt ?? 0;

/** Whether a session began after a credential stamp (any session, when there is none). */
const startsAfter = (session: Session, notBeforeMs: number | undefined) => notBeforeMs === undefined || sessionStartMs(session) > notBeforeMs;

export async function getSession(sessionId: string, options?: { consistent?: boolean }): Promise<Session | undefined> {
  return getItem<Session>(keys.sessionKey(sessionId), options);
}

/**
 * Replaces the refresh secret and records the use; false when another refresh used the old one first.
 * `endsAt` moves the session's end (and the item's ttl) too: an offline session's end slides.
 */
export async function rotateSession(session: Session, newHash: string, expiresAt: number, endsAt?: number): Promise<boolean> {
  const sliding = endsAt === undefined ? '' : ', endsAt = :end, #ttl = :end';
  return updateItem({
    Key: keys.sessionKey(session.sessionId),
    // The index key is written again so that a session made before it had its kind in it gets one.
    UpdateExpression: `SET secretHash = :new, previousSecretHash = :seen, expiresAt = :exp, lastUsedAt = :now, GSI1SK = :sk${sliding}`,
    ConditionExpression: 'secretHash = :seen',
    ...(endsAt === undefined ? {} : { ExpressionAttributeNames: { '#ttl': 'ttl' } }),
    ExpressionAttributeValues: {
      ':new': newHash,
      ':seen': session.secretHash,
      ':exp': expiresAt,
      ':now': nowSeconds(),
      ':sk': indexKey(session).GSI1SK,
      ...(endsAt === undefined ? {} : { ':end': endsAt }),
    },
  });
}

/**
 * Records a use of an offline session that keeps its secret: its idle expiry (and the item's ttl)
 * starts again from now; false when the secret changed or the session ended meanwhile.
 */
export async function touchSession(session: Session, expiresAt: number): Promise<boolean> {
  return updateItem({
    Key: keys.sessionKey(session.sessionId),
    UpdateExpression: 'SET expiresAt = :exp, endsAt = :exp, #ttl = :exp, lastUsedAt = :now, GSI1SK = :sk',
    ConditionExpression: 'secretHash = :seen',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':seen': session.secretHash, ':exp': expiresAt, ':now': nowSeconds(), ':sk': indexKey(session).GSI1SK },
  });
}

/** A session that exists and has not reached its absolute end. */
export async function getLiveSession(sessionId: string, options?: { consistent?: boolean }): Promise<Session | undefined> {
  const session = await getSession(sessionId, options);
  return session && session.endsAt > nowSeconds() ? session : undefined;
}

export async function deleteSession(sessionId: string): Promise<void> {
  await deleteItem({ Key: keys.sessionKey(sessionId) });
}

/** One page of a user's live offline sessions, oldest first, and where the next page starts (none on the last). */
export interface SessionPage {
  sessions: Session[];
  /** The position after the page's last session, for the next page's `after`. */
  next?: string;
}

const OFFLINE_PREFIX = keys.refreshSessionsOfKind('OFFLINE');

/** Whether a position is one `offlineSessionsPage` answered (a page token carries it back). */
export const isSessionPosition = (after: unknown): after is string => typeof after === 'string' && after.length <= 200 && after.startsWith(OFFLINE_PREFIX);

/**
 * A user's live offline sessions (those of `scope=offline_access`) in the order they were made, `limit`
 * of them after the position `after`: Queries of the user's offline sessions only, from that position.
 * Give the user's `credentialsChangedAt` as `notBeforeMs`: the sessions it ended, which a revocation
 * may have left in the index, are skipped without being read; `alive` drops others (a domain's stamp).
 */
export async function offlineSessionsPage(
  userUuid: string,
  limit: number,
  after?: string,
  view: { notBeforeMs?: number; alive?: (session: Session) => boolean } = {},
): Promise<SessionPage> {
  const pk = keys.sessionsOf(userUuid);
  const now = nowSeconds();
  const from = view.notBeforeMs === undefined ? undefined : keys.refreshSessionsMadeFrom('OFFLINE', Math.floor(view.notBeforeMs / 1000));
  const resume = after !== undefined && isSessionPosition(after) && (from === undefined || after >= from) ? after : undefined;
  const found: { session: Session; position: string }[] = [];
  let start: Record<string, unknown> | undefined = resume === undefined ? undefined : { ...keys.sessionKey(resume.slice(resume.lastIndexOf('#') + 1)), GSI1PK: pk, GSI1SK: resume };
  do {
    const page = await queryIndexPage(pk, { prefix: OFFLINE_PREFIX, ...(from ? { from } : {}), limit: limit + 1 - found.length, ...(start ? { start } : {}) });
    for (const item of page.items) {
      const session = withoutKeys<Session>(item);
      if (session.offline && session.expiresAt > now && startsAfter(session, view.notBeforeMs) && view.alive?.(session) !== false) {
        found.push({ session, position: item.GSI1SK as string });
      }
    }
    start = page.next;
  } while (start !== undefined && found.length <= limit);
  const shown = found.slice(0, limit);
  return { sessions: shown.map(({ session }) => session), ...(found.length > limit ? { next: shown[shown.length - 1]!.position } : {}) };
}

/** The write that ends one of a user's offline sessions: its condition fails unless it is one (for a transaction). */
export function offlineSessionDelete(userUuid: string, sessionId: string): TableWrite {
  return {
    Delete: {
      Key: keys.sessionKey(sessionId),
      // `offline` is one of DynamoDB's reserved words.
      ConditionExpression: 'userUuid = :user AND #offline = :offline',
      ExpressionAttributeNames: { '#offline': 'offline' },
      ExpressionAttributeValues: { ':user': userUuid, ':offline': true },
    },
  };
}

/** Ends one of a user's offline sessions; false when the user has none of this id. */
export async function deleteOfflineSessionOf(userUuid: string, sessionId: string): Promise<boolean> {
  return deleteItem(offlineSessionDelete(userUuid, sessionId).Delete!);
}

import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, putItem, transactWrite, updateItem, type TableWrite } from '../../adapters/store/table';
import type { SignInMethod } from './session.repository';

/**
 * The device authorization grant's records (RFC 8628): one item per authorization, keyed by its user
 * code (the verification page finds it by what the person types, the device by the code its
 * device_code carries), holding the SHA-256 digest of the device code's secret, never the secret. Every
 * change of its status is a conditional write, so an approval, a denial and an exchange racing one
 * another leave one winner.
 */

export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'exchanged';

export interface DeviceAuthorization {
  /** The stored form: 8 letters, no dash. */
  userCode: string;
  /** SHA-256 (hex) of the secret part of the device code. */
  secretHash: string;
  realm: string;
  orgUuid: string;
  clientId: string;
  /** The scope asked for, as sent (the token response grants from it). */
  scope?: string;
  status: DeviceStatus;
  /** Epoch seconds: after this the device's polls answer `expired_token` and the page refuses the code. */
  expiresAt: number;
  /** Seconds the device must wait between polls; grows by 5 at each `slow_down`. */
  interval: number;
  /** Epoch milliseconds of the last poll. */
  lastPolledAt?: number;
  /** Set by the approval: who signed in, and when (epoch seconds). */
  userUuid?: string;
  authTime?: number;
  /** Set by the approval: when the approving sign-in began (epoch ms) and how, for its session's credential stamps. */
  startedAtMs?: number;
  signedInWith?: SignInMethod;
}

/** The approving person's sign-in, as its authorization code carried it. */
export interface DeviceSignIn {
  authTime: number;
  startedAtMs?: number;
  signedInWith?: SignInMethod;
}

/**
 * The verification page's sign-in under way, kept here rather than in the browser's cookie (which holds
 * only the random state whose digest keys it): the user code it is for, the PKCE verifier of its
 * authorization request, the page's language. Read once, by the flow's answer.
 */
export interface DeviceSignInRecord {
  userCode: string;
  orgUuid: string;
  verifier: string;
  language: string;
  /** Epoch seconds. */
  expiresAt: number;
}

/** A consent form shown to a signed-in person: who, for which user code. */
export interface DeviceStep {
  userCode: string;
  /** SHA-256 (hex) of the state of the browser's sign-in cookie: the form is answered from that browser only. */
  browserHash?: string;
  orgUuid: string;
  userUuid: string;
  authTime: number;
  startedAtMs?: number;
  signedInWith?: SignInMethod;
  expiresAt: number;
}

/** How long a record is kept past its expiry, so that a late poll still answers `expired_token`. */
const KEPT_AFTER_EXPIRY_SECONDS = 3600;

/** Writes a new authorization; false when its user code is taken (the caller draws another). */
export async function createDeviceAuthorization(record: DeviceAuthorization): Promise<boolean> {
  return putItem(
    { ...keys.deviceAuthorization(record.userCode), type: 'DEVICE', ttl: record.expiresAt + KEPT_AFTER_EXPIRY_SECONDS, ...record },
    { ConditionExpression: 'attribute_not_exists(PK)' },
  );
}

export async function getDeviceAuthorization(userCode: string): Promise<DeviceAuthorization | undefined> {
  return getItem<DeviceAuthorization>(keys.deviceAuthorization(userCode), { consistent: true });
}

/**
 * Records a poll at `nowMs`. False when it came sooner than `earliestMs` after the last one (or raced
 * another poll): then the interval grows by 5 seconds (RFC 8628 §3.5) and the device is told `slow_down`.
 */
export async function notePoll(record: DeviceAuthorization, nowMs: number, earliestMs: number): Promise<boolean> {
  const Key = keys.deviceAuthorization(record.userCode);
  const onTime = await updateItem({
    Key,
    UpdateExpression: 'SET lastPolledAt = :now',
    ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastPolledAt) OR lastPolledAt <= :earliest)',
    ExpressionAttributeValues: { ':now': nowMs, ':earliest': earliestMs },
  });
  if (onTime) return true;
  await updateItem({
    Key,
    UpdateExpression: 'SET lastPolledAt = :now ADD #interval :five',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: { '#interval': 'interval' },
    ExpressionAttributeValues: { ':now': nowMs, ':five': 5 },
  });
  return false;
}

/**
 * Approves or denies a pending, unexpired authorization for `userUuid`, with `alongside` (the approval's
 * audit event) in the same transaction; false, writing nothing, when it was no longer pending.
 */
export async function decideDeviceAuthorization(
  userCode: string,
  decision: 'approved' | 'denied',
  userUuid: string,
  signIn: DeviceSignIn,
  now: number,
  alongside: readonly TableWrite[] = [],
): Promise<boolean> {
  const decide: TableWrite = {
    Update: {
      Key: keys.deviceAuthorization(userCode),
      UpdateExpression: `SET #status = :decision, userUuid = :user, authTime = :authTime, startedAtMs = :startedAtMs${signIn.signedInWith ? ', signedInWith = :method' : ''}`,
      ConditionExpression: 'attribute_exists(PK) AND #status = :pending AND expiresAt > :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':decision': decision,
        ':user': userUuid,
        ':authTime': signIn.authTime,
        ':startedAtMs': signIn.startedAtMs ?? signIn.authTime * 1000,
        ...(signIn.signedInWith ? { ':method': signIn.signedInWith } : {}),
        ':pending': 'pending',
        ':now': now,
      },
    },
  };
  return (await transactWrite([decide, ...alongside])).length === 0;
}

/** Marks an approved authorization exchanged: true for the one exchange that may answer tokens. */
export async function takeApprovedDeviceAuthorization(userCode: string): Promise<boolean> {
  return updateItem({
    Key: keys.deviceAuthorization(userCode),
    UpdateExpression: 'SET #status = :exchanged',
    ConditionExpression: 'attribute_exists(PK) AND #status = :approved',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':exchanged': 'exchanged', ':approved': 'approved' },
  });
}

export async function saveDeviceStep(stepHash: string, step: DeviceStep): Promise<void> {
  await putItem({ ...keys.deviceStep(stepHash), type: 'DEVICESTEP', ttl: step.expiresAt, ...step }, { ConditionExpression: 'attribute_not_exists(PK)' });
}

/**
 * The step its token names, taken once (a form posted twice finds nothing the second time), while
 * unexpired; one `accept` refuses (another browser's) is left as it was.
 */
export async function takeDeviceStep(stepHash: string, now: number, accept: (step: DeviceStep) => boolean = () => true): Promise<DeviceStep | undefined> {
  const step = await getItem<DeviceStep>(keys.deviceStep(stepHash), { consistent: true });
  if (!step || !accept(step) || !(await deleteItem({ Key: keys.deviceStep(stepHash), ConditionExpression: 'attribute_exists(PK)' }))) return undefined;
  return step.expiresAt > now ? step : undefined;
}

export async function saveDeviceSignIn(stateHash: string, signIn: DeviceSignInRecord): Promise<void> {
  await putItem({ ...keys.deviceSignIn(stateHash), type: 'DEVICESIGNIN', ttl: signIn.expiresAt, ...signIn }, { ConditionExpression: 'attribute_not_exists(PK)' });
}

/** The sign-in its state's digest names, while unexpired. */
export async function getDeviceSignIn(stateHash: string, now: number): Promise<DeviceSignInRecord | undefined> {
  const signIn = await getItem<DeviceSignInRecord>(keys.deviceSignIn(stateHash), { consistent: true });
  return signIn && signIn.expiresAt > now ? signIn : undefined;
}

/** Ends a sign-in once its answer was redeemed: true for the one answer that may go on. */
export async function endDeviceSignIn(stateHash: string): Promise<boolean> {
  return deleteItem({ Key: keys.deviceSignIn(stateHash), ConditionExpression: 'attribute_exists(PK)' });
}

/**
 * Counts one more entry of a user code in the window's counters (each under its own limit); false,
 * counting nothing more, once a counter is full. The address's counter is taken before the code is
 * checked, so that guesses sent together cannot pass the limit, and a right code gives its count back
 * (`refundCodeEntry`); the organization's counts wrong codes only, once they are found wrong.
 */
export async function takeCodeEntry(counters: readonly { orgUuid: string; window: number; sourceIp?: string; limit: number }[], ttl: number): Promise<boolean> {
  for (const counter of counters) {
    const counted = await updateItem({
      Key: keys.deviceEntryWindow(counter.orgUuid, counter.window, counter.sourceIp),
      UpdateExpression: 'ADD entries :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ConditionExpression: 'attribute_not_exists(entries) OR entries < :limit',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':limit': counter.limit, ':ttl': ttl },
    });
    if (!counted) return false;
  }
  return true;
}

/** Gives back the count of an entry that was right. */
export async function refundCodeEntry(counters: readonly { orgUuid: string; window: number; sourceIp?: string }[]): Promise<void> {
  await Promise.all(
    counters.map((counter) =>
      updateItem({
        Key: keys.deviceEntryWindow(counter.orgUuid, counter.window, counter.sourceIp),
        UpdateExpression: 'ADD entries :minusOne',
        ConditionExpression: 'entries > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      }),
    ),
  );
}

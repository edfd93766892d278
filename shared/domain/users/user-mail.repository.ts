import { ConflictError } from '../../kernel/errors';
import { keys } from '../../adapters/store/keys';
import type { QueuedMail } from '../../adapters/mail/mail-queue';
import { getItem, putItem, transactWrite, updateItem, type TableWrite } from '../../adapters/store/table';
import type { MailKind } from '../../kernel/messages/mail-kinds';
import { welcomedWrite } from './user.repository';

/**
 * E-mails to users in the store (docs/api/users.md#e-mails-to-users): one item per user and kind naming
 * its current attempt, written QUEUED as the e-mail is queued and settled once it is sent or fails.
 */

/** A user's latest queued e-mail of a kind (one item per user and kind): the current attempt and how it ended. */
export interface MailState {
  attempt: string;
  state: 'QUEUED' | 'SENT' | 'FAILED';
  /** Why it failed: SES's error name, or why it was never queued or sent. */
  reason?: string;
  queuedAt: string;
  settledAt?: string;
}

/** How long a user's mail item is kept after its last attempt: long past any retry. */
const MAIL_STATE_DAYS = 30;

export async function getMailState(orgUuid: string, userUuid: string, kind: MailKind): Promise<MailState | undefined> {
  return getItem<MailState>(keys.userMail(orgUuid, userUuid, kind), { consistent: true });
}

const queuedItem = (mail: QueuedMail, now: Date) => ({
  ...keys.userMail(mail.orgUuid, mail.userUuid, mail.kind),
  type: 'MAIL',
  attempt: mail.id,
  state: 'QUEUED',
  queuedAt: mail.queuedAt,
  ttl: Math.floor(now.getTime() / 1000) + MAIL_STATE_DAYS * 86_400,
});

/** Records `mail` as its user's current attempt of its kind, queued. */
export async function recordQueued(mail: QueuedMail, now: Date): Promise<void> {
  await putItem(queuedItem(mail, now));
}

/**
 * Records each of `mails` (each its own user's, at most 99) as queued, with `alongside` (a bulk job's
 * count of them), in one transaction; throws when `alongside`'s condition fails, writing nothing.
 */
export async function recordAllQueued(mails: readonly QueuedMail[], now: Date, alongside: readonly TableWrite[]): Promise<void> {
  const failed = await transactWrite([...mails.map((mail): TableWrite => ({ Put: { Item: queuedItem(mail, now) } })), ...alongside]);
  if (failed.length > 0) throw new ConflictError({ code: 'CONFLICT', message: 'The e-mails were not recorded: what is written with them changed' });
}

/** What became of a queued e-mail. */
export type MailOutcome = { sent: true } | { sent: false; reason: string };

/** Settles the attempt `mail` is, if it is still its user's current one and queued. */
export function settleWrite(mail: QueuedMail, outcome: MailOutcome, now = new Date()): TableWrite {
  return {
    Update: {
      Key: keys.userMail(mail.orgUuid, mail.userUuid, mail.kind),
      UpdateExpression: `SET #state = :state, settledAt = :now${outcome.sent ? '' : ', reason = :reason'}`,
      ConditionExpression: 'attempt = :attempt AND #state = :queued',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':state': outcome.sent ? 'SENT' : 'FAILED',
        ':now': now.toISOString(),
        ':attempt': mail.id,
        ':queued': 'QUEUED',
        ...(outcome.sent ? {} : { ':reason': outcome.reason }),
      },
    },
  };
}

/** Settles an attempt the queue did not take as failed. */
export async function settleNotQueued(mail: QueuedMail, reason: string, now: Date): Promise<void> {
  await updateItem(settleWrite(mail, { sent: false, reason }, now).Update!);
}

/**
 * Settles a sent or failed attempt (a sent welcome also marks its user welcomed) with `alongside` in
 * the same transaction; `skipped` when the attempt is no longer its user's current one, or settled
 * already (a duplicate delivery). When only what was written alongside is gone (a bulk job past its
 * retention), the e-mail is settled alone.
 */
export async function settleMail(mail: QueuedMail, outcome: MailOutcome, alongside: TableWrite[]): Promise<'settled' | 'skipped'> {
  const own = [settleWrite(mail, outcome), ...(outcome.sent && mail.kind === 'welcome' ? [welcomedWrite(mail.orgUuid, mail.userUuid)] : [])];
  const failed = await transactWrite([...own, ...alongside]);
  if (failed.some((index) => index < own.length)) return 'skipped';
  if (failed.length > 0 && (await transactWrite(own)).length > 0) return 'skipped';
  return 'settled';
}

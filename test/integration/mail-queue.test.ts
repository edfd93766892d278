import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/adapters/clients/sqs';
import { queuedMailOf, type QueuedMail } from '../../shared/adapters/mail/mail-queue';
import type { MailMessage } from '../../shared/adapters/mail/mailer';
import { metrics } from '../../shared/kernel/metrics';
import { keys } from '../../shared/adapters/store/keys';
import { putItem } from '../../shared/adapters/store/table';
import { getMailState } from '../../shared/domain/users/user-mail.repository';
import { deliverQueuedMail } from '../../shared/app/mail/mail-delivery.service';
import { getUser } from '../../shared/domain/users/user.repository';
import { stack } from '../support/stack';
import { freshOrganization, mailQueueSettled, member, recordingMailer, type Member, type TestOrg } from '../support/user-helpers';

/**
 * The mail queue's consumer side (`deliverQueuedMail`, what the `mail` function runs for each message)
 * against the real table, on messages the test holds itself (so the stack's poller does not take
 * them), and the queue's dead-letter path through the stack's own queue and `mail` function.
 */

let org: TestOrg;
let user: Member;
/** The metrics each test counted (recorded, not emitted). */
let counted: string[];
beforeEach(() => {
  counted = [];
  jest.spyOn(metrics, 'addMetric').mockImplementation((name) => (counted.push(name), metrics));
});
afterEach(() => jest.restoreAllMocks());
beforeAll(async () => {
  org = await freshOrganization();
  user = await member(org, 'VIEWER');
});

/** A welcome to the test's user, recorded as its current attempt as `queueUserMails` records it, but not sent to the queue. */
async function currentWelcome(password = 'Queued-Passw0rd'): Promise<QueuedMail> {
  const mail = await queuedMailOf({ id: randomUUID(), kind: 'welcome', orgUuid: org.orgUuid, userUuid: user.uuid, language: 'es', password: { value: password, temporary: false } });
  await putItem({ ...keys.userMail(org.orgUuid, user.uuid, 'welcome'), type: 'MAIL', attempt: mail.id, state: 'QUEUED', queuedAt: mail.queuedAt });
  return mail;
}

const refusing = (name: string) => ({
  sent: [] as MailMessage[],
  send: async () => {
    throw Object.assign(new Error('refused'), { name });
  },
});

test('a message names the user by ids and carries its password sealed: no address, name or password in clear', async () => {
  const mail = await currentWelcome('Visible-Passw0rd');
  const body = JSON.stringify(mail);

  expect(body).not.toContain('Visible-Passw0rd');
  expect(body).not.toContain(user.email);
  expect(body).not.toContain(user.name);
  expect(mail).toMatchObject({ kind: 'welcome', orgUuid: org.orgUuid, userUuid: user.uuid, password: { sealed: expect.any(String), temporary: false } });
});

test('a message delivered twice sends once: the second finds its attempt settled', async () => {
  const mail = await currentWelcome();
  const mailer = recordingMailer();

  expect(await deliverQueuedMail(mail, { mailer, final: false })).toBe('sent');
  expect(await deliverQueuedMail(mail, { mailer, final: false })).toBe('skipped');

  expect(mailer.sent).toHaveLength(1);
  expect(mailer.sent[0]).toMatchObject({ to: user.email, kind: 'welcome', language: 'es', vars: { password: 'Queued-Passw0rd', temporaryPassword: false } });
  expect(await getMailState(org.orgUuid, user.uuid, 'welcome')).toMatchObject({ attempt: mail.id, state: 'SENT' });
  expect((await getUser(org.orgUuid, user.uuid))?.welcomedAt).toEqual(expect.any(String));
});

test('a message a newer attempt superseded sends nothing', async () => {
  const old = await currentWelcome();
  await currentWelcome();
  const mailer = recordingMailer();

  expect(await deliverQueuedMail(old, { mailer, final: true })).toBe('skipped');
  expect(mailer.sent).toEqual([]);
});

test('SES refusing the message itself settles it as failed at once, and the user is not marked welcomed by it', async () => {
  const mail = await currentWelcome();
  const before = (await getUser(org.orgUuid, user.uuid))?.welcomedAt;

  expect(await deliverQueuedMail(mail, { mailer: refusing('MessageRejected'), final: false })).toBe('failed');

  expect(await getMailState(org.orgUuid, user.uuid, 'welcome')).toMatchObject({ attempt: mail.id, state: 'FAILED', reason: 'MessageRejected' });
  expect((await getUser(org.orgUuid, user.uuid))?.welcomedAt).toBe(before);
});

test('SES refusing for its rate: the queue is to deliver it again (counted as retried, not failed: no alarm), until its last receive, which settles it as failed', async () => {
  const mail = await currentWelcome();

  expect(await deliverQueuedMail(mail, { mailer: refusing('TooManyRequestsException'), final: false })).toBe('retry');
  expect(await getMailState(org.orgUuid, user.uuid, 'welcome')).toMatchObject({ attempt: mail.id, state: 'QUEUED' });
  expect(counted).toEqual(['MailsRetried']);

  expect(await deliverQueuedMail(mail, { mailer: refusing('TooManyRequestsException'), final: true })).toBe('failed');
  expect(await getMailState(org.orgUuid, user.uuid, 'welcome')).toMatchObject({ state: 'FAILED', reason: 'TooManyRequestsException' });
  expect(counted).toEqual(['MailsRetried', 'MailsFailed']);
}, 60_000);

test('a password sealed for another message does not open: the e-mail fails rather than carry a wrong password', async () => {
  const sealedElsewhere = await currentWelcome();
  const mail: QueuedMail = { ...(await currentWelcome()), password: sealedElsewhere.password };
  const mailer = recordingMailer();

  expect(await deliverQueuedMail(mail, { mailer, final: false })).toBe('failed');

  expect(counted).toEqual(['MailsFailed']);
  expect(mailer.sent).toEqual([]);
  expect(await getMailState(org.orgUuid, user.uuid, 'welcome')).toMatchObject({ state: 'FAILED', reason: 'PasswordNotReadable' });
});

test("a message the mail function cannot read goes to the dead-letter queue after the queue's receives", async () => {
  const deadLetters = async () => {
    const { origin } = new URL(stack().mailQueueUrl);
    const response = await fetch(`${origin}/_local/queues/mail-dead-letters/settled?timeoutMs=0`);
    return ((await response.json()) as { counts: { visible: number } }).counts.visible;
  };
  const before = await deadLetters();

  await sqsClient().send(new SendMessageCommand({ QueueUrl: stack().mailQueueUrl, MessageBody: '{"not":"a queued e-mail"}' }));
  await mailQueueSettled();

  expect(await deadLetters()).toBe(before + 1);
}, 90_000);

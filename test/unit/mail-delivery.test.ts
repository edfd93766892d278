import {
  GetAccountCommand,
  LimitExceededException,
  MessageRejected,
  SendEmailCommand,
  TooManyRequestsException,
  type SESv2Client,
} from '@aws-sdk/client-sesv2';
import { isThrottled, type RetryPolicy } from '../../shared/kernel/retry';
import { reasonOf } from '../../shared/adapters/mail/mail-errors';
import { mailFailures, sendMail, sesMailer, type MailMessage } from '../../shared/adapters/mail/mailer';
import { forgetSendRateBucket, rateLimited, readSendRate, sendRateBucket, FALLBACK_SEND_RATE } from '../../shared/adapters/mail/send-rate';
import { logger } from '../../shared/kernel/logger';
import { metrics } from '../../shared/kernel/metrics';
import { captureLogs } from '../support/capture-logs';

const message: MailMessage = {
  to: 'ana.souza@acme.example',
  kind: 'welcome',
  language: 'en',
  vars: { name: 'Ana Souza', realm: 'acme', email: 'ana.souza@acme.example', signInUrl: 'https://console.example/acme', password: 'Tmp-Secret-42!' },
};

const meta = { $metadata: { httpStatusCode: 429 } };
const throttled = () => new TooManyRequestsException({ message: `Maximum sending rate exceeded for ${message.to}`, ...meta });

/** An SES client that answers each SendEmail with the next outcome (an error to throw, or acceptance). */
function fakeSes(...outcomes: (Error | 'accept')[]) {
  const calls: unknown[] = [];
  const client = {
    send: async (command: unknown) => {
      calls.push(command);
      const outcome = outcomes[Math.min(calls.length, outcomes.length) - 1] ?? 'accept';
      if (outcome !== 'accept') throw outcome;
      return { MessageId: `m-${calls.length}` };
    },
  };
  return { client: client as unknown as SESv2Client, calls };
}

/** A retry policy whose waits are recorded, not slept, and whose jitter is the given fraction. */
function recordedPolicy(fraction = 1): { policy: Partial<RetryPolicy>; waits: number[] } {
  const waits: number[] = [];
  return { waits, policy: { clock: { now: () => 0, sleep: async (ms) => void waits.push(ms) }, random: () => fraction } };
}

// Quiet, but for the lines a test captures.
beforeAll(() => logger.setLogLevel('SILENT'));

const mailerOn = (client: SESv2Client) => sesMailer({ client, mail: { from: 'no-reply@acme.example' } });

describe('sending through SES with the throttling retry', () => {
  let counted: string[];
  beforeEach(() => {
    counted = [];
    jest.spyOn(metrics, 'addMetric').mockImplementation((name) => (counted.push(name), metrics));
  });
  afterEach(() => jest.restoreAllMocks());

  test('a message throttled twice, then accepted, is sent after two backed-off retries and counted once as sent', async () => {
    const { client, calls } = fakeSes(throttled(), throttled(), 'accept');
    const { policy, waits } = recordedPolicy();

    const result = await sendMail(mailerOn(client), message, { userUuid: 'u-1' }, policy);

    expect(result).toEqual({ sent: true });
    expect(calls).toHaveLength(3);
    expect(calls.every((call) => call instanceof SendEmailCommand)).toBe(true);
    expect(waits).toEqual([500, 1000]);
    expect(counted).toEqual(['MailsSent']);
  });

  test('a message throttled on every attempt fails after maxAttempts with the throttling reason, retryable, not counted (the caller knows whether it is final)', async () => {
    const { client, calls } = fakeSes(throttled());
    const { policy, waits } = recordedPolicy();
    const failuresBefore = mailFailures.count;

    const result = await sendMail(mailerOn(client), message, {}, policy);

    expect(result).toEqual({ sent: false, reason: 'TooManyRequestsException', retryable: true });
    expect(calls).toHaveLength(5);
    expect(waits).toEqual([500, 1000, 2000, 4000]);
    expect(mailFailures.count).toBe(failuresBefore + 1);
    expect(counted).toEqual([]);
  });

  test('the waits are jittered below the exponential ceiling, which is capped', async () => {
    const { client } = fakeSes(throttled());
    const { policy, waits } = recordedPolicy(0.25);

    await sendMail(mailerOn(client), message, {}, { ...policy, maxAttempts: 7 });

    expect(waits).toEqual([125, 250, 500, 1000, 1000, 1000]);
  });

  test('"Maximum sending rate exceeded" as LimitExceededException is throttling too', async () => {
    const { client, calls } = fakeSes(new LimitExceededException({ message: 'Maximum sending rate exceeded.', $metadata: {} }), 'accept');

    expect(await sendMail(mailerOn(client), message, {}, recordedPolicy().policy)).toEqual({ sent: true });
    expect(calls).toHaveLength(2);
  });

  test('an error that is not throttling is not retried', async () => {
    const { client, calls } = fakeSes(new MessageRejected({ message: `Email address is not verified: ${message.to}`, $metadata: { httpStatusCode: 400 } }));
    const { policy, waits } = recordedPolicy();

    const result = await sendMail(mailerOn(client), message, {}, policy);

    expect(result).toEqual({ sent: false, reason: 'MessageRejected', retryable: false });
    expect(calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  test('each attempt, a retry too, waits for a token of the shared bucket', async () => {
    const { client, calls } = fakeSes(throttled(), 'accept');
    let tokens = 0;
    const bucket = { take: async () => void (tokens += 1) };

    await sendMail(rateLimited(mailerOn(client), bucket), message, {}, recordedPolicy().policy);

    expect(tokens).toBe(2);
    expect(calls).toHaveLength(2);
  });

  test('the retry and failure log lines carry ids and error names, never the address, the password or the SES message', async () => {
    const { client } = fakeSes(throttled());
    const lines = await captureLogs(async () => {
      await sendMail(mailerOn(client), message, { orgUuid: 'org-1', userUuid: 'u-1' }, { ...recordedPolicy().policy, maxAttempts: 2 });
    });

    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toContainEqual(expect.objectContaining({ level: 'WARN', message: 'mail throttled: trying again', userUuid: 'u-1', attempt: 1, delayMs: 500 }));
    expect(records).toContainEqual(expect.objectContaining({ level: 'ERROR', message: 'mail not sent', reason: 'TooManyRequestsException', orgUuid: 'org-1' }));
    const all = lines.join('\n');
    for (const secret of [message.to, 'Tmp-Secret-42!', 'Ana Souza', 'Maximum sending rate']) expect(all).not.toContain(secret);
  });
});

describe('what counts as throttling, and what is said of an error', () => {
  test.each([
    [throttled(), true],
    [new LimitExceededException({ message: 'x', $metadata: {} }), true],
    [Object.assign(new Error('x'), { name: 'Throttling' }), true],
    [Object.assign(new Error('x'), { name: 'SomethingElse', $metadata: { httpStatusCode: 429 } }), true],
    [new MessageRejected({ message: 'x', $metadata: {} }), false],
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), false],
    ['TooManyRequestsException', false],
  ])('%p → %p', (error, expected) => {
    expect(isThrottled(error)).toBe(expected);
  });

  test('the reason is a name or code, never a message', () => {
    expect(reasonOf(throttled())).toBe('TooManyRequestsException');
    expect(reasonOf(Object.assign(new Error(`refused ${message.to}`), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
    expect(reasonOf({ name: `bad ${message.to}` })).toBe('UnknownError');
    expect(reasonOf(undefined)).toBe('UnknownError');
  });
});

describe("SES's send rate", () => {
  /** An SES client that answers GetAccount with `answer` (or throws it), counting the calls. */
  function accountSes(answer: unknown) {
    const calls: unknown[] = [];
    const client = {
      send: async (command: unknown) => {
        calls.push(command);
        if (answer instanceof Error) throw answer;
        return answer;
      },
    };
    return { client: client as unknown as SESv2Client, calls };
  }

  afterEach(() => forgetSendRateBucket());

  test("is the account's SendQuota.MaxSendRate from GetAccount", async () => {
    const { client, calls } = accountSes({ SendQuota: { Max24HourSend: 50_000, MaxSendRate: 14, SentLast24Hours: 3 } });

    expect(await readSendRate(client)).toEqual({ ratePerSecond: 14, source: 'account' });
    expect(calls[0]).toBeInstanceOf(GetAccountCommand);
  });

  test.each([
    [Object.assign(new Error('User is not authorized to perform ses:GetAccount'), { name: 'AccessDeniedException' }), 'AccessDeniedException'],
    [{}, 'NoSendQuota'],
    [{ SendQuota: { MaxSendRate: 0 } }, 'NoSendQuota'],
  ])('falls back to the conservative rate when GetAccount answers %p', async (answer, reason) => {
    const { client } = accountSes(answer);

    expect(await readSendRate(client)).toEqual({ ratePerSecond: FALLBACK_SEND_RATE, source: 'fallback', reason });
  });

  test('is read once per process: every lane gets the same bucket, sized from it', async () => {
    const { client, calls } = accountSes({ SendQuota: { MaxSendRate: 14 } });

    const buckets = await Promise.all(Array.from({ length: 8 }, () => sendRateBucket(client)));

    expect(calls).toHaveLength(1);
    expect(new Set(buckets).size).toBe(1);
    expect(buckets[0]).toMatchObject({ ratePerSecond: 14, burst: 14 });
  });

  test('a failed read is logged once and the process keeps the fallback rate', async () => {
    const { client, calls } = accountSes(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));

    const lines = await captureLogs(async () => {
      await sendRateBucket(client);
      await sendRateBucket(client);
    });

    expect(calls).toHaveLength(1);
    expect((await sendRateBucket(client)).ratePerSecond).toBe(FALLBACK_SEND_RATE);
    const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.level === 'WARN');
    expect(warnings).toEqual([expect.objectContaining({ message: 'SES send quota not read: sending at the fallback rate', reason: 'AccessDeniedException', ratePerSecond: 1 })]);
  });
});

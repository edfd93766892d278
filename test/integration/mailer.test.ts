import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import sesModule from 'aws-ses-v2-local';
import { ConfigError, mailSettings, readConfig } from '../../shared/kernel/config';
import { localSesAccount } from '../../infra/local/ses-account';
import { logger } from '../../shared/kernel/logger';
import { languages, mailKinds, renderMail, type MailVars } from '../../shared/adapters/mail/mail.templates';
import { mailFailures, sendMail, sendSafely, sesMailer, type Mailer, type MailMessage } from '../../shared/adapters/mail/mailer';
import { systemClock, TokenBucket, type Clock } from '../../shared/kernel/retry';
import { rateLimited, readSendRate } from '../../shared/adapters/mail/send-rate';
import { stack, unique } from '../support/stack';
import { captureLogs } from '../support/capture-logs';

/** What the SES emulator keeps of each e-mail (`GET mailboxUrl` answers `{ templates, emails }`). */
interface ReceivedMail {
  messageId: string;
  from: string;
  destination: { to: string[]; cc: string[]; bcc: string[] };
  subject: string;
  body: { html?: string; text?: string };
  at: number;
}

async function receivedBy(address: string): Promise<ReceivedMail[]> {
  const response = await fetch(stack().mailboxUrl);
  expect(response.status).toBe(200);
  const { emails } = (await response.json()) as { emails: ReceivedMail[] };
  return emails.filter((mail) => mail.destination.to.includes(address));
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

const vars = (run: string, password?: string): MailVars => ({
  name: `Ana O'Brien & <Co> ${run}`,
  realm: stack().orgs[0]!.name,
  email: `ana.${run}@mail.example`,
  signInUrl: `${stack().authUrl}/auth/realms/${stack().orgs[0]!.name}/protocol/openid-connect/token`,
  ...(password !== undefined ? { password } : {}),
});

describe('the SES mailer against the local SES emulator', () => {
  const combinations = mailKinds.flatMap((kind) => languages.map((language) => [kind, language] as const));

  test.each(combinations)('delivers the %s e-mail in %s with its subject, sender, recipient and both bodies', async (kind, language) => {
    const run = unique();
    const to = `${kind}.${language}.${run}@mail.example`;
    const message: MailMessage = { to, kind, language, vars: vars(run, `Tmp-${run}-1a`) };
    const expected = renderMail(kind, language, message.vars);

    await sesMailer().send(message);

    const received = await receivedBy(to);
    expect(received).toHaveLength(1);
    const [mail] = received as [ReceivedMail];
    expect(mail.from).toBe(process.env.MAIL_FROM);
    expect(mail.destination).toEqual({ to: [to], cc: [], bcc: [] });
    expect(mail.subject).toBe(expected.subject);
    expect(mail.body.html).toBe(expected.html);
    expect(mail.body.text).toBe(expected.text);
    expect(mail.body.text).toContain(`Tmp-${run}-1a`);
    expect(mail.body.html).toContain('O&#39;Brien &amp; &lt;Co&gt;');
  });

  test('sendSafely reports a delivered e-mail as sent', async () => {
    const run = unique();
    const to = `safe.${run}@mail.example`;
    const failuresBefore = mailFailures.count;

    const sent = await sendSafely(sesMailer(), { to, kind: 'reactivation', language: 'pt', vars: vars(run) });

    expect(sent).toBe(true);
    expect(mailFailures.count).toBe(failuresBefore);
    const [mail] = await receivedBy(to);
    expect(mail?.subject).toBe(renderMail('reactivation', 'pt', vars(run)).subject);
  });

  test('without a sender or a sign-in address, the mail settings fail naming the variable', () => {
    const env = { ...process.env };
    expect(mailSettings(readConfig(env))).toMatchObject({ from: process.env.MAIL_FROM, signInUrl: process.env.SIGN_IN_URL });
    expect(() => mailSettings(readConfig({ ...env, MAIL_FROM: '' }))).toThrow(new ConfigError('Missing environment variable MAIL_FROM: the sender of e-mails to users'));
    expect(() => mailSettings(readConfig({ ...env, SIGN_IN_URL: undefined }))).toThrow(/^Missing environment variable SIGN_IN_URL/);
  });

  test('with SES unreachable, sendSafely returns false, counts the failure and logs it with the request id only', async () => {
    const run = unique();
    const password = `Secret-${run}-9`;
    const message: MailMessage = { to: `down.${run}@mail.example`, kind: 'welcome', language: 'es', vars: vars(run, password) };
    const rendered = renderMail(message.kind, message.language, message.vars);
    const client = new SESv2Client({ region: 'us-east-1', endpoint: `http://127.0.0.1:${await closedPort()}`, maxAttempts: 1 });
    const failuresBefore = mailFailures.count;
    const requestId = `mail-down-${run}`;
    let sent: boolean | undefined;

    logger.appendKeys({ requestId });
    const lines = await captureLogs(async () => {
      sent = await sendSafely(sesMailer({ client }), message, { userUuid: `user-${run}` });
    }).finally(() => logger.removeKeys(['requestId']));

    expect(sent).toBe(false);
    expect(mailFailures.count).toBe(failuresBefore + 1);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'mail not sent',
        requestId,
        kind: 'welcome',
        language: 'es',
        userUuid: `user-${run}`,
        // ECONNREFUSED in Lambda; under jest the SDK wraps the socket's cross-realm error in a bare Error.
        reason: expect.stringMatching(/^(ECONNREFUSED|Error)$/),
        metric: 'MailNotSent',
        value: 1,
      }),
    );
    expect(records.every((record) => record.requestId === requestId)).toBe(true);
    const all = lines.join('\n');
    for (const secret of [message.to, message.vars.email, message.vars.name, password, rendered.subject, rendered.text, rendered.html]) {
      expect(all).not.toContain(secret);
    }
    expect(all).not.toContain('127.0.0.1');
  });
});

// CommonJS with an `exports.default`, as infra/local/emulators.ts notes.
const sesServer = ((sesModule as unknown as { default?: typeof sesModule }).default ?? sesModule) as typeof sesModule;

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const closeServer = (server: Server) =>
  new Promise<void>((done) => {
    server.closeAllConnections();
    server.close(() => done());
  });
const clientAt = (endpoint: string) => new SESv2Client({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });

describe("SES's send rate, read with GetAccount from the SES emulator", () => {
  // An emulator of this test's own: it answers GetAccount from AWS_SES_ACCOUNT in its process's environment.
  let emulator: Server;
  beforeAll(async () => {
    emulator = await sesServer({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    delete process.env.AWS_SES_ACCOUNT;
    await closeServer(emulator);
  });

  test('without an account configured (the local stack as it starts), GetAccount is refused and the fallback rate applies', async () => {
    delete process.env.AWS_SES_ACCOUNT;

    // The emulator answers 400 with `{ type: 'BadRequestException' }`, a body the SDK cannot name: `Unknown`.
    expect(await readSendRate(clientAt(urlOf(emulator)))).toEqual({ ratePerSecond: 1, source: 'fallback', reason: 'Unknown' });
  });

  test("with an account configured, the rate is the account's SendQuota.MaxSendRate", async () => {
    process.env.AWS_SES_ACCOUNT = JSON.stringify(emulatedAccount(5));

    expect(await readSendRate(clientAt(urlOf(emulator)))).toEqual({ ratePerSecond: 5, source: 'account' });
  });

  test('eight lanes sending through one bucket at the read rate deliver every e-mail, none sooner than the rate allows', async () => {
    process.env.AWS_SES_ACCOUNT = JSON.stringify(emulatedAccount(5));
    const { ratePerSecond } = await readSendRate(clientAt(urlOf(emulator)));
    const clock = recordingClock();
    const origin = clock.now();
    const bucket = new TokenBucket({ ratePerSecond, clock });
    const starts: number[] = [];
    const timed: Mailer = { send: (message) => (starts.push(clock.now()), sesMailer().send(message)) };
    const mailer = rateLimited(timed, bucket);
    const run = unique();
    const queue = Array.from({ length: 12 }, (_, i) => `rate.${i}.${run}@mail.example`);

    const results = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const sent = [];
        for (let to = queue.shift(); to; to = queue.shift()) sent.push(await sendMail(mailer, { to, kind: 'welcome', language: 'en', vars: vars(run) }));
        return sent;
      }),
    );

    expect(results.flat()).toEqual(Array.from({ length: 12 }, () => ({ sent: true })));
    for (let i = 0; i < 12; i++) expect(await receivedBy(`rate.${i}.${run}@mail.example`)).toHaveLength(1);
    // A burst of 5 at once, then one every 200 ms: the k-th send (from 0) starts no sooner than (k - 4) · 200 ms
    // after the bucket was made. Lower bounds only (a timer may fire 1 ms early), so a slow machine cannot fail it.
    expect(bucket.burst).toBe(5);
    starts.sort((a, b) => a - b).forEach((start, k) => expect(start - origin).toBeGreaterThanOrEqual(Math.max(0, k - 4) * 200 - 2));
    expect(clock.sleeps.length).toBeGreaterThan(0);
  });
});

describe('throttling answered by SES, through the real SDK', () => {
  /** A server in front of the stack's SES emulator that answers the first `refusals` SendEmail calls 429, as SES does. */
  async function throttlingSes(refusals: number): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
    let requests = 0;
    const server = createHttpServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        requests += 1;
        if (requests <= refusals) {
          response.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' });
          response.end(JSON.stringify({ message: 'Maximum sending rate exceeded.' }));
          return;
        }
        const headers = { 'content-type': 'application/json', authorization: request.headers.authorization ?? '' };
        fetch(`${stack().endpoints.ses}${request.url}`, { method: request.method, headers, body: Buffer.concat(chunks) }).then(
          async (answer) => {
            response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
            response.end(Buffer.from(await answer.arrayBuffer()));
          },
          () => response.destroy(),
        );
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return { url: urlOf(server), requests: () => requests, close: () => closeServer(server) };
  }

  const fastRetry = { baseDelayMs: 10, maxDelayMs: 40 };

  test('a message throttled twice is sent on the third attempt and arrives once', async () => {
    const ses = await throttlingSes(2);
    const run = unique();
    const to = `throttled.${run}@mail.example`;
    try {
      const result = await sendMail(sesMailer({ client: clientAt(ses.url) }), { to, kind: 'welcome', language: 'en', vars: vars(run) }, {}, fastRetry);

      expect(result).toEqual({ sent: true });
      expect(ses.requests()).toBe(3);
      expect(await receivedBy(to)).toHaveLength(1);
    } finally {
      await ses.close();
    }
  });

  test('a message throttled on every attempt is reported not sent, with the throttling reason', async () => {
    const ses = await throttlingSes(Number.POSITIVE_INFINITY);
    const run = unique();
    const to = `always-throttled.${run}@mail.example`;
    const failuresBefore = mailFailures.count;
    try {
      const result = await sendMail(sesMailer({ client: clientAt(ses.url) }), { to, kind: 'welcome', language: 'en', vars: vars(run) }, {}, { ...fastRetry, maxAttempts: 3 });

      expect(result).toEqual({ sent: false, reason: 'TooManyRequestsException', retryable: true });
      expect(ses.requests()).toBe(3);
      expect(mailFailures.count).toBe(failuresBefore + 1);
      expect(await receivedBy(to)).toEqual([]);
    } finally {
      await ses.close();
    }
  });
});

/** The local stack's SES account (the emulator checks every field is there), at another send rate. */
function emulatedAccount(maxSendRate: number) {
  return { ...localSesAccount, SendQuota: { ...localSesAccount.SendQuota, MaxSendRate: maxSendRate } };
}

/** The system clock, noting each wait the bucket asks for. */
function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: systemClock.now, sleep: (ms) => (sleeps.push(ms), systemClock.sleep(ms)) };
}

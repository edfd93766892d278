import { createServer } from 'node:net';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { ConfigError, mailSettings, readConfig } from '../../shared/config';
import { logger } from '../../shared/logger';
import { languages, mailKinds, renderMail, type MailVars } from '../../shared/mail/mail.templates';
import { mailFailures, sendSafely, sesMailer, type MailMessage } from '../../shared/mail/mailer';
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

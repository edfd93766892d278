import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import { sesClient } from '../clients/ses';
import { mailSettings } from '../config';
import { logger } from '../logger';
import { renderMail, type Language, type MailKind, type MailVars } from './mail.templates';

/** One e-mail to one user: the kind and language choose the template, `vars` fill it in. */
export interface MailMessage {
  to: string;
  kind: MailKind;
  language: Language;
  vars: MailVars;
}

/** The port domain services send e-mail through. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface SesMailerOptions {
  /** Defaults to the process's SES client (`shared/clients/ses.ts`). */
  client?: SESv2Client;
  /** Sender and configuration set; default the function's `mailSettings()`, read on the first send. */
  mail?: { from: string; configurationSet?: string };
}

/** The Mailer on SES v2: one Simple-content message, HTML and text, in UTF-8. */
export function sesMailer(options: SesMailerOptions = {}): Mailer {
  return {
    async send({ to, kind, language, vars }) {
      const { from, configurationSet } = options.mail ?? mailSettings();
      const mail = renderMail(kind, language, vars);
      await (options.client ?? sesClient()).send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [to] },
          Content: {
            Simple: {
              Subject: { Data: mail.subject, Charset: 'UTF-8' },
              Body: { Html: { Data: mail.html, Charset: 'UTF-8' }, Text: { Data: mail.text, Charset: 'UTF-8' } },
            },
          },
          ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
        }),
      );
    },
  };
}

/** Failed sends in this process (the log line below is what CloudWatch counts). */
export const mailFailures = { count: 0 };

/** Ids only (never an address, a name or a password): added to the failure's log line. */
export interface MailLogContext {
  orgUuid?: string;
  userUuid?: string;
}

// SDK and network error messages can quote the recipient or the request: only a name or code is logged.
// Duck-typed, not `instanceof Error`: errors from another realm (Node's sockets under jest) are errors too.
function reasonOf(error: unknown): string {
  const { name, code } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown };
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) && (name === 'Error' || name === undefined)) return code;
  return typeof name === 'string' && /^[A-Za-z][A-Za-z0-9_.]*$/.test(name) ? name : 'UnknownError';
}

/**
 * Sends and never throws: a user is created or restored whether its e-mail leaves or not. A failure
 * is logged (with the request id the logger carries, and no address, subject, body or password) and
 * counted. Returns whether the e-mail was sent.
 */
export async function sendSafely(mailer: Mailer, message: MailMessage, context: MailLogContext = {}): Promise<boolean> {
  const { kind, language } = message;
  try {
    await mailer.send(message);
    logger.info('mail sent', { kind, language, ...context });
    return true;
  } catch (error) {
    mailFailures.count += 1;
    logger.error('mail not sent', { kind, language, ...context, reason: reasonOf(error), metric: 'MailNotSent', value: 1 });
    return false;
  }
}

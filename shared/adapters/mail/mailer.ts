import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import { sesClient } from '../clients/ses';
import { mailSettings } from '../../kernel/config';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import { retryThrottled, sesRetryPolicy, type RetryPolicy } from '../../kernel/retry';
import { isTransient, reasonOf } from './mail-errors';
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
  /** Defaults to the process's SES client (`shared/adapters/clients/ses.ts`). */
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

/** Ids only (never an address, a name or a password): added to the mail's log lines. */
export interface MailLogContext {
  orgUuid?: string;
  userUuid?: string;
}

/**
 * Whether SES accepted the message; if not, the error's name or code (`TooManyRequestsException`,
 * `MessageRejected`), and whether the same message may be accepted later (`retryable`).
 */
export type MailResult = { sent: true } | { sent: false; reason: string; retryable: boolean };

/**
 * Sends and never throws, trying again while SES refuses for its rate: the result says whether SES
 * accepted the message. Each outcome is logged (with the request id the logger carries, and no
 * address, subject, body or password); a sent e-mail is counted (`MailsSent`). A failure is counted by
 * the caller, which knows whether it is final or the queue will deliver the e-mail again.
 */
export async function sendMail(mailer: Mailer, message: MailMessage, context: MailLogContext = {}, retry: Partial<RetryPolicy> = {}): Promise<MailResult> {
  const { kind, language } = message;
  try {
    await retryThrottled(
      () => mailer.send(message),
      { ...sesRetryPolicy, ...retry },
      (attempt, delayMs) => logger.warn('mail throttled: trying again', { kind, language, ...context, attempt, delayMs }),
    );
    count('MailsSent');
    logger.info('mail sent', { kind, language, ...context });
    return { sent: true };
  } catch (error) {
    const reason = reasonOf(error);
    mailFailures.count += 1;
    logger.error('mail not sent', { kind, language, ...context, reason, metric: 'MailNotSent', value: 1 });
    return { sent: false, reason, retryable: isTransient(error) };
  }
}

/** `sendMail`, answering only whether the e-mail was sent. */
export async function sendSafely(mailer: Mailer, message: MailMessage, context: MailLogContext = {}, retry: Partial<RetryPolicy> = {}): Promise<boolean> {
  return (await sendMail(mailer, message, context, retry)).sent;
}

import { html, trusted, type Html } from '../../kernel/html/html';
import type { KindMessages, MailMessages } from '../../kernel/messages/messages';
import { messagesOf } from '../../kernel/messages/messages-of';
import { TEMPORARY_PASSWORD_DAYS } from '../identity/password-policy';
import type { Language } from '../../kernel/messages/languages';
import type { MailKind } from '../../kernel/messages/mail-kinds';

export { isLanguage, languages, type Language } from '../../kernel/messages/languages';
export { mailKinds, type MailKind } from '../../kernel/messages/mail-kinds';

/** What a user needs to sign in: the values every e-mail fills in. */
export interface MailVars {
  /** The user's name, as the administrator entered it. */
  name: string;
  /** The organization's realm name, which the user signs in to. */
  realm: string;
  /** The e-mail address the user signs in with. */
  email: string;
  /** Where the user signs in (the console, or the realm's token endpoint). */
  signInUrl: string;
  /**
   * The password the administrator set: the temporary one of a welcome, the new one of a reactivation.
   * Left out, a welcome says the administrator will share it and a reactivation that it is unchanged.
   */
  password?: string;
  /** The password is a generated, temporary one: the user must choose its own before signing in. */
  temporaryPassword?: boolean;
}

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

// A value with line breaks or other control characters could forge lines of the text body or headers.
// eslint-disable-next-line no-control-regex
const oneLine = (value: string): string => value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

// Only a web address becomes a link: anything else (`javascript:`, `data:`) is shown as text only.
const isWebUrl = (value: string): boolean => /^https?:\/\/[^\s]+$/i.test(value);

interface Prepared {
  vars: Required<Omit<MailVars, 'password' | 'temporaryPassword'>> & { password?: string };
  copy: MailMessages;
  /** The kind's words, with the temporary-password ones in place when the password is temporary. */
  kind: KindMessages;
}

function kindCopy(copy: MailMessages, kind: MailKind, temporaryPassword: boolean): KindMessages {
  if (kind !== 'welcome' || !temporaryPassword) return copy[kind];
  const { temporaryPasswordLabel, withTemporaryPassword, ...welcome } = copy.welcome;
  return { ...welcome, passwordLabel: temporaryPasswordLabel, withPassword: withTemporaryPassword(TEMPORARY_PASSWORD_DAYS) };
}

function renderText({ vars, copy, kind }: Prepared): string {
  const line = (label: string, value: string) => `${label}${copy.colon}${value}`;
  const details = [
    line(copy.labels.organization, vars.realm),
    line(copy.labels.email, vars.email),
    line(copy.labels.signInUrl, vars.signInUrl),
    ...(vars.password !== undefined ? [line(kind.passwordLabel, vars.password)] : []),
  ];
  return [
    copy.greeting(vars.name),
    kind.lead(vars.realm),
    details.join('\n'),
    vars.password !== undefined ? kind.withPassword : kind.withoutPassword,
    `${copy.notExpected}\n${copy.automatic}`,
  ].join('\n\n') + '\n';
}

// Stands for the realm in the lead so the words can be escaped whole and the realm then set in bold;
// `oneLine` removes this character from every value, so no value can contain it.
const MARK = '\u0000';

/** The lead with the realm in bold: the words escaped around it, the realm escaped within. */
function leadWithRealm(kind: KindMessages, realm: string): Html {
  const [before = '', after = ''] = kind.lead(MARK).split(MARK);
  return html`${before}<strong>${realm}</strong>${after}`;
}

// E-mail clients take no style sheet or content policy: the e-mail's shell is its own, styled inline.
function renderHtml(language: Language, subject: string, { vars, copy, kind }: Prepared): string {
  const row = (label: string, value: Html | string) =>
    html`<tr><td style="padding:6px 16px 6px 0;color:#5f6368;white-space:nowrap;vertical-align:top">${label}</td><td style="padding:6px 0;font-weight:600;word-break:break-all">${value}</td></tr>`;
  const link = isWebUrl(vars.signInUrl);
  const rows = [
    row(copy.labels.organization, vars.realm),
    row(copy.labels.email, vars.email),
    row(copy.labels.signInUrl, link ? html`<a href="${vars.signInUrl}" style="color:#1a56db">${vars.signInUrl}</a>` : vars.signInUrl),
    vars.password !== undefined &&
      row(kind.passwordLabel, html`<code style="font-size:15px;background:#f1f3f4;padding:2px 6px;border-radius:4px">${vars.password}</code>`),
  ];
  const button =
    link &&
    html`<p style="margin:24px 0"><a href="${vars.signInUrl}" style="display:inline-block;background:#1a56db;color:#ffffff;text-decoration:none;padding:10px 20px;border-radius:6px;font-weight:600">${copy.signInButton}</a></p>`;
  return html`<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:0;background:#f6f7f9">
<div style="${trusted(MAIL_FONT)}">
<p>${copy.greeting(vars.name)}</p>
<p>${leadWithRealm(kind, vars.realm)}</p>
<table role="presentation" style="border-collapse:collapse;margin:16px 0">${rows}</table>
<p>${vars.password !== undefined ? kind.withPassword : kind.withoutPassword}</p>
${button}
<p style="font-size:13px;color:#5f6368">${copy.notExpected}<br>${copy.automatic}</p>
</div>
</body>
</html>
`.markup;
}

const MAIL_FONT =
  "max-width:560px;margin:0 auto;padding:32px 24px;font-family:-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,'Hiragino Sans','Noto Sans JP',Meiryo,sans-serif;font-size:15px;line-height:1.6;color:#202124;background:#ffffff";

/** Renders one kind of e-mail in one language: every value is HTML-escaped in `html` and plain in `text`. */
export function renderMail(kind: MailKind, language: Language, vars: MailVars): RenderedMail {
  const copy = messagesOf(language).mail;
  const prepared: Prepared = {
    copy,
    kind: kindCopy(copy, kind, Boolean(vars.temporaryPassword)),
    vars: {
      name: oneLine(vars.name),
      realm: oneLine(vars.realm),
      email: oneLine(vars.email),
      signInUrl: oneLine(vars.signInUrl),
      // A password is shown exactly as set (spaces are allowed in it); only an absent one is left out.
      ...(vars.password !== undefined && vars.password !== '' ? { password: vars.password } : {}),
    },
  };
  const subject = copy[kind].subject(prepared.vars.realm);
  return { subject, html: renderHtml(language, subject, prepared), text: renderText(prepared) };
}

/**
 * The languages and kinds of e-mail, and the HTML escaping the templates share with the account page:
 * apart from the templates, so the functions that only check a `language` header or queue a message
 * do not carry every locale's copy.
 */

/** The languages of the `language` header, and so of every e-mail to users. */
export const languages = ['en', 'es', 'ja', 'pt'] as const;
export type Language = (typeof languages)[number];
export const defaultLanguage: Language = 'en';

export const isLanguage = (value: unknown): value is Language => languages.includes(value as Language);

/** `welcome`: an ADMIN created the user. `reactivation`: a deleted user was restored. */
export const mailKinds = ['welcome', 'reactivation'] as const;
export type MailKind = (typeof mailKinds)[number];

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes a value for HTML text and quoted attribute values. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

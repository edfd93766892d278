/**
 * The languages and kinds of e-mail: apart from the templates, so the functions that only check a
 * `language` header or queue a message do not carry every language's messages.
 */
export { defaultLanguage, isLanguage, languages, type Language } from '../../kernel/messages/languages';

/** `welcome`: an ADMIN created the user. `reactivation`: a deleted user was restored. */
export const mailKinds = ['welcome', 'reactivation'] as const;
export type MailKind = (typeof mailKinds)[number];

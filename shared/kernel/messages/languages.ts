/**
 * The languages the service speaks, to people (pages) and in e-mails: one file of messages each, in
 * this folder. Apart from the messages, so what only checks a language carries none of them.
 */
export const languages = ['en', 'es', 'ja', 'pt'] as const;
export type Language = (typeof languages)[number];
export const defaultLanguage: Language = 'en';

export const isLanguage = (value: unknown): value is Language => languages.includes(value as Language);

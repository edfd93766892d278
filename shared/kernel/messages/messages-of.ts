import { createRequire } from 'node:module';
import { lazy } from '../lazy';
import type { Language } from './languages';
import type { Messages } from './messages';

/**
 * Each language's words are loaded by the first page or e-mail in that language, from a file of their
 * own beside the function's bundle (infra/cloud/service-function.ts, lazyProjectFiles): a function's
 * cold start carries none of them. Each `require` names its file literally, so that a bundler sees it;
 * under tsx, an ES module without `require`, the file is required by the same relative path.
 */
const wordsOf = (file: string, load: () => unknown, language: Language) =>
  lazy(() => ((typeof require === 'function' ? load() : createRequire(import.meta.url)(file)) as Record<Language, Messages>)[language]);

/* eslint-disable @typescript-eslint/no-require-imports -- lazy loads, on purpose */
const all: Record<Language, () => Messages> = {
  en: wordsOf('./lazy/messages-en.cjs', () => require('./lazy/messages-en.cjs'), 'en'),
  es: wordsOf('./lazy/messages-es.cjs', () => require('./lazy/messages-es.cjs'), 'es'),
  ja: wordsOf('./lazy/messages-ja.cjs', () => require('./lazy/messages-ja.cjs'), 'ja'),
  pt: wordsOf('./lazy/messages-pt.cjs', () => require('./lazy/messages-pt.cjs'), 'pt'),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** What the service says in `language`. */
export const messagesOf = (language: Language): Messages => all[language]();

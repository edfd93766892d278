import type { Language } from './languages';
import type { Messages } from './messages';
import { en } from './en';
import { es } from './es';
import { ja } from './ja';
import { pt } from './pt';

const all: Record<Language, Messages> = { en, es, ja, pt };

/** What the service says in `language`. */
export const messagesOf = (language: Language): Messages => all[language];

import { ValidationError } from '../../kernel/errors';
import { defaultLanguage, isLanguage, languages, type Language } from '../../kernel/messages/languages';

/** The request's `language` header: `en`, `es`, `ja` or `pt` in any case, `en` when absent; anything else is a 422. */
export function languageOf(headers: Record<string, string | undefined>): Language {
  const language = headers.language?.trim().toLowerCase() || defaultLanguage;
  if (!isLanguage(language)) {
    throw new ValidationError({ details: [{ fieldName: 'language', message: `Must be one of ${languages.join(', ')}`, errorCode: 'FIELD_INVALID' }] });
  }
  return language;
}

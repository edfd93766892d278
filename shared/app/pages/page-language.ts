import { defaultLanguage, isLanguage, languages, type Language } from '../../kernel/messages/languages';

/** The language of the page: `kc_locale` if it is one of ours, else the first of Accept-Language we speak. */
export function pageLanguage(locale: string | undefined, acceptLanguage: string | undefined): Language {
  const chosen = locale?.trim().toLowerCase();
  if (isLanguage(chosen)) return chosen;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((entry, index) => {
      const [tag = '', ...params] = entry.trim().split(';');
      const q = Number(params.find((p) => p.trim().startsWith('q='))?.trim().slice(2) ?? '1');
      return { primary: tag.trim().toLowerCase().split('-')[0] ?? '', q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.map((entry) => entry.primary).find((primary): primary is Language => languages.includes(primary as Language)) ?? defaultLanguage;
}

import { lazy } from '../lazy';

/** Text matching shared by the listings and quicksearches: accent- and case-insensitive. */

/** Lower-cases and strips accents (`José` → `jose`). */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase();
}

/**
 * The quicksearch rule: the term's characters, spaces ignored, are found in the name in order, each at
 * the leftmost position after the previous one (greedy, left to right). `jdo` matches `John Doe`,
 * `doj` does not. Both sides are folded first.
 */
export function quickMatches(term: string, name: string): boolean {
  return quickMatchesFolded(quickTermOf(term), fold(name));
}

/** A quicksearch term as `quickMatchesFolded` takes it: folded, spaces removed. */
export const quickTermOf = (term: string): string => fold(term).replace(/\s+/g, '');

/** `quickMatches` of a term and a name both folded already (`quickTermOf`, `fold`): for a list matched many times. */
export function quickMatchesFolded(wanted: string, haystack: string): boolean {
  let from = 0;
  for (const char of wanted) {
    const at = haystack.indexOf(char, from);
    if (at < 0) return false;
    from = at + char.length;
  }
  return true;
}

/** Made on first use: `Intl` loads its locale data as a collator is made, which no cold start needs. */
const collator = lazy(() => new Intl.Collator('en', { sensitivity: 'base', numeric: true }));

/** Alphabetical order that ignores case and accents and orders numbers naturally. */
export const compareText = (a: string, b: string): number => collator().compare(a, b);

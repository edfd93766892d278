/**
 * What every fresh bot of the integration tests is made with (`bot-helpers.ts`), so a test can say
 * what it expects to read back. Plain data: unit tests take it too.
 */

/** The first persona of a fresh bot, every field set. */
export const GUIDE_PERSONA = {
  name: 'Test guide',
  image: 'https://images.example.test/guide.png',
  backstory: 'Guides test customers.',
  personality: 'Calm',
  communicationStyle: 'WITTY_AND_CASUAL',
} as const;

/** The first collection of a fresh bot, every field set. */
export const MANUALS_COLLECTION = {
  name: 'Manuals',
  description: 'Every manual',
  documentCount: 12,
  searchType: { type: 'SEMANTIC', semanticWeight: 100, fullTextWeight: 0 },
  previousUserInput: 2,
  threshold: 0.75,
  topK: 8,
};

/** What an agent or supervisor reads back for the optional lists and parameters it was not given. */
export const NO_OPTIONAL_LISTS = { constraints: [], tags: [], parameters: null, functions: [], knowledge: [] };

/** `npm run bench:scim` (docs/benchmarks.md#scim-filter-reads): SCIM filter reads by the service provider's reader and by scimmy's parser. */
import SCIMMY from 'scimmy';
import { MAX_COMPARISONS, MAX_DEPTH, MAX_FILTER_LENGTH, readFilter } from '../shared/app/scim/scim-filter-syntax';
import { benchmark } from './harness/benchmark';
import { medianMs, table } from './harness/series';

const pairs = (n: number) => Array.from({ length: n }, (_, i) => `(id eq "a${i}" or id eq "b${i}")`).join(' and ');
const backslashes = (n: number) => `userName eq "${'\\'.repeat(n)}`;
const ors = (n: number) => Array.from({ length: n }, (_, i) => `userName eq "u${i}@x.io"`).join(' or ');
const nested = (open: string, depth: number) => `${open.repeat(depth)}userName pr${')'.repeat(depth)}`;
/** A reader that answers how it took a filter: read, or refused with the error's code. */
const answering = (read: (filter: string) => unknown) => (filter: string) => {
  try {
    read(filter);
    return 'read';
  } catch (error) {
    return `refused (${(error as { code?: string }).code ?? (error as Error).name})`;
  }
};
const readers = { scimmy: answering((filter) => new SCIMMY.Types.Filter(filter)), 'service provider': answering(readFilter) };
type Reader = keyof typeof readers;
const [both, ours]: [Reader[], Reader[]] = [['scimmy', 'service provider'], ['service provider']];
const shapes: [string, string, Reader[]][] = [
  ...[4, 6, 7, 8].map((n): [string, string, Reader[]] => [`${n} or-pairs joined by and (${2 * n} comparisons)`, pairs(n), both]),
  ...[30, 34, 38].map((n): [string, string, Reader[]] => [`unclosed string of ${n} backslashes`, backslashes(n), both]),
  [`${MAX_COMPARISONS / 2} or-pairs joined by and (the most comparisons)`, pairs(MAX_COMPARISONS / 2), ours],
  [`${MAX_COMPARISONS} userName eq joined by or`, ors(MAX_COMPARISONS), ours],
  [`${MAX_DEPTH} nested not (…)`, nested('not (', MAX_DEPTH), ours],
  [`unclosed string of ${MAX_FILTER_LENGTH - 13} backslashes`, backslashes(MAX_FILTER_LENGTH - 13), ours],
  [`first refused: ${MAX_COMPARISONS + 1} comparisons`, ors(MAX_COMPARISONS + 1), ours],
  [`first refused: ${MAX_FILTER_LENGTH + 1} characters`, `userName ne "${'x'.repeat(MAX_FILTER_LENGTH - 13)}"`, ours],
  [`first refused: ${MAX_DEPTH + 1} levels of nesting`, nested('(', MAX_DEPTH + 1), ours],
];

benchmark<undefined, { shape: string; filter: string; reader: Reader; ms: number; result: string }[]>({
  title: 'SCIM filter reads',
  measure: async (_, { progress }) =>
    shapes.flatMap(([shape, filter, names]) =>
      names.map((reader) => {
        progress(`${shape}: ${reader}`);
        return { shape, filter, reader, ...medianMs(() => readers[reader](filter), 5, 2_000) };
      }),
    ),
  report: ({ measured }) => ({
    'Reads by shape': [
      'Median of 5 reads after one warm-up, in one process; a read past 2 s is timed once. "scimmy" is scimmy\'s own parser (`new SCIMMY.Types.Filter(text)`), which the service provider no longer gives filters to; "service provider" is `readFilter` (shared/app/scim/scim-filter-syntax.ts): the pre-scan and the tree, with every attribute checked against the schema.',
      table(measured, [['shape', (r) => r.shape], ['characters', (r) => r.filter.length, 'right'], ['reader', (r) => r.reader], ['ms', (r) => r.ms.toFixed(3), 'right'], ['outcome', (r) => r.result]]),
    ],
  }),
});

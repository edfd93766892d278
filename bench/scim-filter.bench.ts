import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import SCIMMY from 'scimmy';
import { MAX_COMPARISONS, MAX_DEPTH, MAX_FILTER_LENGTH, readFilter } from '../shared/app/scim/scim-filter-syntax';

/**
 * How long a SCIM filter takes to read, by the service provider's reader and by scimmy's parser (which
 * the service provider no longer gives filters to), for the shapes that cost scimmy exponential time
 * and for the worst filters within the bounds. Median of 5 reads in this process after one warm-up;
 * scimmy's shapes stop growing once a read passes 2 s. Writes bench/scim-filter-figures.md.
 */

const pairs = (n: number) => Array.from({ length: n }, (_, i) => `(id eq "a${i}" or id eq "b${i}")`).join(' and ');
const backslashes = (n: number) => `userName eq "${'\\'.repeat(n)}`;
const ors = (n: number) => Array.from({ length: n }, (_, i) => `userName eq "u${i}@x.io"`).join(' or ');
const padded = (length: number) => `userName ne "${'x'.repeat(length - 14)}"`;

function medianMs(read: (filter: string) => unknown, filter: string): { ms: number; outcome: string } {
  const run = () => {
    const started = performance.now();
    try {
      read(filter);
      return { ms: performance.now() - started, outcome: 'read' };
    } catch (error) {
      return { ms: performance.now() - started, outcome: `refused (${(error as { code?: string }).code ?? (error as Error).name})` };
    }
  };
  const first = run();
  if (first.ms > 2_000) return first;
  const runs = [first, ...Array.from({ length: 5 }, run)].slice(1).sort((a, b) => a.ms - b.ms);
  return runs[2]!;
}

const ours = (filter: string) => readFilter(filter);
const scimmys = (filter: string) => new SCIMMY.Types.Filter(filter);
const rows: string[] = [];
const row = (shape: string, filter: string, readers: [string, (filter: string) => unknown][]) => {
  for (const [name, read] of readers) {
    const { ms, outcome } = medianMs(read, filter);
    rows.push(`| ${shape} | ${filter.length} | ${name} | ${ms.toFixed(3)} | ${outcome} |`);
    console.log(rows.at(-1));
  }
};

for (const n of [4, 6, 7, 8]) row(`${n} or-pairs joined by and (${2 * n} comparisons)`, pairs(n), [['scimmy', scimmys], ['service provider', ours]]);
for (const n of [30, 34, 38]) row(`unclosed string of ${n} backslashes`, backslashes(n), [['scimmy', scimmys], ['service provider', ours]]);
row(`${MAX_COMPARISONS / 2} or-pairs joined by and (the most comparisons)`, pairs(MAX_COMPARISONS / 2), [['service provider', ours]]);
row(`${MAX_COMPARISONS} userName eq joined by or`, ors(MAX_COMPARISONS), [['service provider', ours]]);
row(`${MAX_DEPTH} nested not (…)`, `${'not ('.repeat(MAX_DEPTH)}userName pr${')'.repeat(MAX_DEPTH)}`, [['service provider', ours]]);
row(`unclosed string of ${MAX_FILTER_LENGTH - 13} backslashes`, backslashes(MAX_FILTER_LENGTH - 13), [['service provider', ours]]);
row(`first refused: ${MAX_COMPARISONS + 1} comparisons`, ors(MAX_COMPARISONS + 1), [['service provider', ours]]);
row(`first refused: ${MAX_FILTER_LENGTH + 1} characters`, padded(MAX_FILTER_LENGTH + 1), [['service provider', ours]]);
row(`first refused: ${MAX_DEPTH + 1} levels of nesting`, `${'('.repeat(MAX_DEPTH + 1)}userName pr${')'.repeat(MAX_DEPTH + 1)}`, [['service provider', ours]]);

const report = `# SCIM filter reads

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:scim\` (bench/scim-filter.bench.ts) on ${cpus().length} CPUs × ${cpus()[0]?.model.trim()}, Node ${process.version}; load average (1 min) at the start ${loadavg()[0]!.toFixed(2)}.
Median of 5 reads after one warm-up, in one process; a read past 2 s is timed once. "scimmy" is scimmy's own parser (\`new SCIMMY.Types.Filter(text)\`), which the service provider no longer gives filters to; "service provider" is \`readFilter\` (shared/app/scim/scim-filter-syntax.ts): the pre-scan and the tree, with every attribute checked against the schema.

| shape | characters | reader | ms | outcome |
|---|---:|---|---:|---|
${rows.join('\n')}
`;
writeFileSync(new URL('./scim-filter-figures.md', import.meta.url), report);

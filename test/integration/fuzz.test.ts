import fc from 'fast-check';
import { describeRequest, problemsWith, targetOf, type Answer } from '../support/fuzz-checks';
import { knownDefects, request, routes } from '../support/fuzz-generators';
import { toHttp } from '../support/fuzz-requests';
import { fuzzWorld, type World } from '../support/fuzz-world';

/**
 * Property-based fuzzing of every operation of the catalogue through the real local gateway: generated path values, queries, headers and bodies, sent as the ADMIN of an organization of
 * the test's own (sometimes as a VIEWER, anonymously or with a bad token). For every answer:
 *
 * - never a 5xx;
 * - every 4xx carries the spec's standard error body (section 7; the token endpoint may answer
 *   OAuth's own `{error, error_description}` instead, the SCIM endpoints SCIM's error schema), its
 *   `path` the request's;
 * - the request id is echoed: the one sent when it is safe, a generated one otherwise;
 * - a write refused (POST, PUT or DELETE answered 4xx) leaves its target as it was, read back with a
 *   GET before and after.
 *
 * The seed is fixed and printed; `FUZZ_SEED=<n>` replays another, `FUZZ_RUNS=<n>` changes how many
 * requests are sent (one per run; 600 by default).
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);

let world: World;

beforeAll(async () => {
  world = await fuzzWorld();
});

test(`${RUNS} requests over every route: never a 5xx, the standard error body, the request id, refused writes change nothing`, async () => {
  const all = routes();
  const statuses = new Map<number, number>();
  let sentCount = 0;
  const started = Date.now();
  console.log(`fuzz: seed ${SEED}, ${RUNS} requests over ${all.length} routes (FUZZ_SEED and FUZZ_RUNS change them)`);

  const examples = knownDefects(all);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...all).chain(request), async (fuzz) => {
      const sent = toHttp(world, fuzz);
      const write = sent.method !== 'GET';
      const target = write ? targetOf(world, fuzz) : undefined;
      const before = target ? await target() : undefined;

      const response = await fetch(sent.url, { method: sent.method, headers: sent.headers, body: sent.body, signal: AbortSignal.timeout(40_000) }).catch(
        (error: unknown) => {
          // The connection dropped or hung: the stack itself fell over (an unhandled error ends its process).
          const cause = error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error);
          throw new Error(`no answer (${cause})\n  ${describeRequest(sent, { status: 0, contentType: null, requestId: null, text: '' })}`);
        },
      );
      const answer: Answer = {
        status: response.status,
        contentType: response.headers.get('content-type'),
        requestId: response.headers.get('x-request-id'),
        text: await response.text(),
      };
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      sentCount += 1;

      const problems = problemsWith(fuzz, sent, answer);
      if (target && answer.status >= 400) {
        const after = await target();
        if (after !== before) problems.push(`a refused write changed its target:\n    before ${before?.slice(0, 600)}\n    after  ${after.slice(0, 600)}`);
      }
      if (problems.length > 0) throw new Error(`${problems.join('; ')}\n  ${describeRequest(sent, answer)}`);
    }),
    {
      seed: SEED,
      numRuns: RUNS,
      endOnFailure: true,
      examples: examples.map((example) => [example]),
      // The failing request as sent (bounded), not the generated value (which may hold large bodies).
      reporter: (details) => {
        if (!details.failed) return;
        const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        throw new Error(
          `Fuzz request ${details.numRuns} of seed ${details.seed} failed (replay: FUZZ_SEED=${details.seed} FUZZ_RUNS=${details.numRuns} npx jest test/integration/fuzz.test.ts):\n${cause}`,
        );
      },
    },
  );

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`fuzz: ${sentCount} requests (the ${examples.length} known-defect examples, then generated ones) in ${seconds} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
}, 300_000);

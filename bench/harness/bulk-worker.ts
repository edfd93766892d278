/** A bulk-create job's worker alone in this process, so that its memory is the worker's: `bench:bulk` spawns it (organization, job) with IPC and the functions' environment. */
import { performance } from 'node:perf_hooks';
import { runBulkCreateJob } from '../../shared/app/bulk/bulk-create.worker';

const loaded = process.memoryUsage(); // Modules loaded, the job not yet read.
let peakHeap = loaded.heapUsed;
const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 50);
const started = performance.now();
const job = await runBulkCreateJob(process.argv[2] ?? '', process.argv[3] ?? '');
const [ms, maxRss] = [performance.now() - started, process.resourceUsage().maxRSS * 1024]; // getrusage(2)'s KiB.
clearInterval(sampler);
const result = { ms, status: job?.status, counts: job?.counts, loaded: { rss: loaded.rss, heap: loaded.heapUsed }, maxRss, peakHeap };
process.send!(result, () => process.exit(0));
export type WorkerResult = typeof result;

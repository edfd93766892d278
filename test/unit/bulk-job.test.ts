import { jobWrite, type JobEvent } from '../../shared/domain/bulk/bulk-job-lifecycle.repository';

/**
 * The writes the bulk job's lifecycle table makes (`shared/domain/bulk/bulk-job-lifecycle.repository.ts`), as DynamoDB reads
 * them. DynamoDB binds AND tighter than OR, so a state's guard must stay inside that state's
 * parentheses; and it refuses a name or value that no expression uses, or one that is missing.
 */

const job = { orgUuid: '0b7e1c1e-6a40-4d3c-9d5e-0f3f8c2b9a11', jobId: '5f0c8d2a-3b1e-4c7a-8e9f-1a2b3c4d5e6f' };
const now = new Date('2026-01-02T03:04:05.678Z');
const lease = { runId: 'run-1', until: now.getTime() + 60_000 };
const outcome = { ':run': 'run-1', ':counts': { rows: 1, created: 1, failed: 0 } };
const failure = { errorCode: 'BULK_WORKER_FAILED', message: 'm', retryable: true };

/** Every event with the values its callers give it. */
const given: Record<Exclude<JobEvent, 'create'>, Record<string, unknown>> = {
  take: { ':run': 'run-1', ':lease': lease },
  renew: { ':run': 'run-1', ':until': lease.until },
  start: { ':run': 'run-1', ':progress': { processed: 0, total: 3 }, ':rows': 3 },
  reopen: { ':run': 'run-1' },
  tally: { ':run': 'run-1', ':counts': { rows: 3, created: 1, failed: 1 }, ':processed': 2 },
  finish: outcome,
  refuse: { ...outcome, ':failure': { errorCode: 'NOT_CSV', message: 'm' } },
  fail: { ':failure': failure },
  retry: {},
  resend: {},
  settle: {},
};

const update = (event: Exclude<JobEvent, 'create'>) => jobWrite(event, job, { values: given[event] }, now).Update!;

test('a job is taken when queued or running, and then only with its lease free, lapsed or its own', () => {
  const free = 'attribute_not_exists(lease) OR lease.#until < :epoch OR lease.runId = :run';

  const write = update('take');

  expect(write.ConditionExpression).toBe(`(#status = :queued AND (${free})) OR (#status = :running AND (${free}))`);
  expect(write.UpdateExpression).toBe('SET #status = :to, lease = :lease, updatedAt = :now');
  expect(write.ExpressionAttributeValues).toEqual({
    ':to': 'running',
    ':lease': { runId: 'run-1', until: now.getTime() + 60_000 },
    ':now': now.toISOString(),
    ':queued': 'queued',
    ':epoch': now.getTime(),
    ':run': 'run-1',
    ':running': 'running',
  });
  expect(write.ExpressionAttributeNames).toEqual({ '#status': 'status', '#until': 'until' });
});

test('a job is queued again when its worker failed retryably, or its lease lapsed; the failure and lease go', () => {
  const write = update('retry');

  expect(write.ConditionExpression).toBe('(#status = :failed AND (failure.retryable = :true)) OR (#status = :running AND (lease.#until < :epoch))');
  expect(write.UpdateExpression).toBe('SET #status = :to, updatedAt = :now REMOVE failure, lease');
  expect(write.ExpressionAttributeValues).toMatchObject({ ':to': 'queued', ':failed': 'failed', ':running': 'running', ':true': true, ':epoch': now.getTime() });
});

test('the writes that keep a job running leave its status alone; the lease renewal leaves even updatedAt', () => {
  for (const event of ['renew', 'start', 'tally'] as const) {
    expect(update(event).UpdateExpression).not.toContain('#status');
    expect(update(event).ConditionExpression).toMatch(/^#status = :running AND \(/);
  }
  expect(update('renew').UpdateExpression).toBe('SET lease.#until = :until');
});

test('every write names exactly the attributes and values its expressions use (DynamoDB refuses any other)', () => {
  for (const event of Object.keys(given) as (keyof typeof given)[]) {
    const write = update(event);
    const expressions = `${write.UpdateExpression} ${write.ConditionExpression}`;
    expect(Object.keys(write.ExpressionAttributeNames!).sort()).toEqual([...new Set(expressions.match(/#\w+/g))].sort());
    expect(Object.keys(write.ExpressionAttributeValues!).sort()).toEqual([...new Set(expressions.match(/:\w+/g))].sort());
    expect(Object.values(write.ExpressionAttributeValues!)).not.toContain(undefined);
  }
});

test('a write missing a value it names is refused before it reaches the table, naming the value', () => {
  expect(() => jobWrite('refuse', job, { values: outcome }, now)).toThrow('The refuse write of a bulk job needs :failure');
});

test('a job is created queued, only where none is', () => {
  const item = {
    ...job,
    requestedBy: 'u',
    language: 'en' as const,
    dryRun: false,
    status: 'queued' as const,
    counts: { rows: 0, created: 0, failed: 0 },
    progress: { processed: 0, total: 0 },
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    ttl: 1,
  };

  const write = jobWrite('create', job, { item }, now);

  expect(write.Put).toEqual({
    Item: { PK: `ORG#${job.orgUuid}`, SK: `JOB#${job.jobId}`, type: 'JOB', ...item },
    ConditionExpression: 'attribute_not_exists(PK)',
  });
});

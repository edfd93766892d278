import type { DynamoDBStreamEvent, S3Event, SQSEvent } from 'aws-lambda';
import { jobUserUuid } from '../../shared/app/bulk/bulk-create.worker';
import { readErrors } from '../../shared/domain/bulk/bulk-file.repository';
import { getJob } from '../../shared/domain/bulk/bulk-job.repository';
import { keys } from '../../shared/adapters/store/keys';
import { putItem } from '../../shared/adapters/store/table';
import { findUserByEmail, getUser } from '../../shared/domain/users/user.repository';
import { receivedEvents } from '../support/change-events-helpers';
import {
  bulkErrors,
  expectNamesEvents,
  fill,
  idOf,
  queueFiles,
  readUser,
  s3Files,
  streamFiles,
  subjectOf,
  triggerHandler,
  type Replay,
} from '../support/sample-events';
import { adminToken } from '../support/stack';
import { mailsTo } from '../support/user-helpers';

/**
 * The trigger events of the functions without a route (an S3 notification, the table's stream, the
 * mail queue), each replayed twice through its function's handler, as their sources deliver at least once.
 */

/** What each S3 event's replay must leave behind, checked against the stack. */
const s3Expectations: Record<string, (replay: Replay, token: string) => Promise<void>> = {
  'bulk-worker.s3-put': async ({ event, values, job }, token) => {
    expect((event as unknown as S3Event).Records.map((record) => record.s3.bucket.name)).toEqual([process.env.BULK_BUCKET_NAME]);
    // Whichever run finished it (the replay or the stack's own), the job is done once, with the file's outcome.
    const orgUuid = values.__ORG_UUID__!;
    expect(await getJob(orgUuid, job!.jobId)).toMatchObject({
      status: 'done',
      dryRun: false,
      counts: { rows: 2, created: 1, failed: 1 },
      progress: { processed: 2, total: 2 },
    });
    expect(await readErrors(orgUuid, job!.jobId)).toEqual(bulkErrors(job!.otherEmail));
    // One user for the VIEWER's e-mail: the one with the job's uuid for it (no run made another).
    const uuid = jobUserUuid(job!.jobId, job!.email);
    expect(await readUser(token, uuid)).toMatchObject({ uuid, email: job!.email, name: 'Ana Lima', role: 'VIEWER', status: 'ACTIVE' });
    expect((await findUserByEmail(orgUuid, job!.email))?.uuid).toBe(uuid);
    expect(await findUserByEmail(orgUuid, job!.otherEmail)).toBeUndefined();
    // Welcome e-mails to the VIEWER only (two runs at once may each send one).
    const mails = await mailsTo(job!.email);
    expect(mails.length).toBeGreaterThanOrEqual(1);
    expect(mails.map((mail) => mail.subject)).toEqual(mails.map(() => subjectOf('welcome', 'en')));
    expect(await mailsTo(job!.otherEmail)).toEqual([]);
  },
};
expectNamesEvents(s3Expectations, s3Files.map(idOf));

describe.each(s3Files)('events/%s', (file) => {
  test('replays through its function, twice (S3 and Lambda deliver at least once)', async () => {
    const replay = await fill(file);
    const handler = await triggerHandler<S3Event, void>(file);
    await expect(handler(replay.event as unknown as S3Event)).resolves.toBeUndefined();
    await expect(handler(replay.event as unknown as S3Event)).resolves.toBeUndefined();
    await s3Expectations[idOf(file)]?.(replay, (await adminToken()).accessToken);
  });
});

describe.each(streamFiles)('events/%s', (file) => {
  test('replays through its function, twice (the stream delivers at least once): one change event on the bus, by the audit event\'s id', async () => {
    const replay = await fill(file);
    const event = replay.event as unknown as DynamoDBStreamEvent;
    const handler = await triggerHandler<DynamoDBStreamEvent, unknown>(file);
    await expect(handler(event)).resolves.toEqual({ batchItemFailures: [] });
    await expect(handler(event)).resolves.toEqual({ batchItemFailures: [] });
    const id = event.Records[0]!.dynamodb!.NewImage!.id!.S;
    const received = await receivedEvents();
    const copies = received.filter((candidate) => candidate.detail.id === id && candidate.detail.source === `/org/${replay.values.__ORG_UUID__}`);
    expect(copies.length).toBeGreaterThanOrEqual(2);
    expect(new Set(copies.map((copy) => JSON.stringify(copy.detail))).size).toBe(1);
  });
});

describe.each(queueFiles)('events/%s', (file) => {
  test('replays through its function, twice (SQS delivers at least once): the e-mail it names is sent once', async () => {
    const event = (await fill(file)).event as unknown as SQSEvent;
    const mail = JSON.parse(event.Records[0]!.body) as { id: string; kind: string; orgUuid: string; userUuid: string };
    // The attempt the message is, as the request that queued it records it.
    await putItem({ ...keys.userMail(mail.orgUuid, mail.userUuid, mail.kind), type: 'MAIL', attempt: mail.id, state: 'QUEUED', queuedAt: new Date().toISOString() });
    const user = await getUser(mail.orgUuid, mail.userUuid);
    const before = (await mailsTo(user!.email)).length;
    const handler = await triggerHandler<SQSEvent, unknown>(file);
    await expect(handler(event)).resolves.toEqual({ batchItemFailures: [] });
    await expect(handler(event)).resolves.toEqual({ batchItemFailures: [] });
    const mails = await mailsTo(user!.email);
    expect(mails.slice(before).map((received) => received.subject)).toEqual([subjectOf('reactivation', 'en')]);
  });
});

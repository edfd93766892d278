import { randomUUID } from 'node:crypto';
import { jobUserUuid } from '../../shared/app/bulk/bulk-create.worker';
import { bulkCreateColumns } from '../../shared/app/bulk/bulk.limits';
import { getJob } from '../../shared/domain/bulk/bulk-job.repository';
import type { JobView } from '../../shared/app/bulk/bulk.service';
import type { ItemError } from '../../shared/app/bulk/bulk-users.service';
import { csvCell } from '../../shared/app/bulk/csv-file';
import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { findUserByEmail } from '../../shared/domain/users/user.repository';
import { errorMessage } from '../../shared/kernel/errors';
import {
  bodyOf,
  bulkErrors,
  expectNoSignIn,
  expectRequeuedThenDone,
  jobIdOf,
  jobOnceDone,
  readUser,
  replaceUser,
  replayRouteEvents,
  subjectOf,
  userStatus,
} from '../support/sample-events';
import { stack, unique } from '../support/stack';
import { mailsTo } from '../support/user-helpers';

/** The sample events of the bulk function: bulk creation (a file, an upload), its jobs, bulk deletes and grants. */

replayRouteEvents(['bulk'], {
  prepare: {
    // A second grant (the environment's other bot), so the revocation of the first leaves one behind.
    'bulk.revoke': async (replay, token) => {
      const { user, values } = replay;
      const permissions = [...user!.permissions, { environmentUuid: values.__ENV_UUID__!, botUuid: values.__OTHER_BOT_UUID__! }];
      replay.user = await replaceUser(token, { ...user!, permissions });
      expect(replay.user.permissions).toEqual(permissions);
    },
    // A finished job with a welcome SES did not accept (a dry run's rerun sends none and clears the list).
    'bulk.welcomes': async ({ job, values }) => {
      const failure = { line: 2, userUuid: randomUUID(), reason: 'MessageRejected' };
      await updateItem({
        Key: keys.bulkJob(values.__ORG_UUID__!, job!.jobId),
        UpdateExpression: 'SET welcomeFailures = :failures',
        ExpressionAttributeValues: { ':failures': [failure] },
      });
      expect(await getJob(values.__ORG_UUID__!, job!.jobId)).toMatchObject({ status: 'done', welcomeFailures: [failure] });
    },
    // A job whose worker died: still `running`, its lease lapsed a minute ago (it reads as failed, retryable).
    'bulk.retry': async ({ job, values }) => {
      const lapsed = { runId: 'a-run-that-died', until: Date.now() - 60_000 };
      await updateItem({
        Key: keys.bulkJob(values.__ORG_UUID__!, job!.jobId),
        UpdateExpression: 'SET #status = :running, lease = :lease',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': 'running', ':lease': lapsed },
      });
      expect(await getJob(values.__ORG_UUID__!, job!.jobId)).toMatchObject({ status: 'running', lease: lapsed });
    },
  },
  expectations: {
    // A job whose file the client uploads itself: the presigned POST takes the file, whose upload runs the job.
    'bulk.upload': async (result, { event, values }) => {
      expect(result.statusCode).toBe(201);
      const body = bodyOf<{ jobId: string; upload: { method: string; url: string; fields: Record<string, string>; expiresAt: string }; job: string }>(result);
      const location = `/${stack().userSubpath}/org/${values.__ORG_UUID__}/users/bulk-jobs/${body.jobId}`;
      expect(result.headers?.location).toBe(location);
      expect(body).toMatchObject({ upload: { method: 'POST' }, job: location });
      const email = `event-upload-${unique()}@example.test`;
      const form = new FormData();
      for (const [name, value] of Object.entries(body.upload.fields)) form.append(name, value);
      form.append('file', new Blob([`Email,Name,Role\r\n${email},Upload Probe,ADMIN\r\n`], { type: 'text/csv' }), 'users.csv');
      const posted = await fetch(body.upload.url, { method: 'POST', body: form });
      expect(posted.status).toBe(204);
      const job = await jobOnceDone(values.__ORG_UUID__!, body.jobId);
      // The event asks for a dry run in Japanese: the file is checked, nobody is created or mailed.
      expect(job).toMatchObject({ status: 'done', dryRun: true, language: event.headers.language, counts: { rows: 1, created: 1, failed: 0 } });
      expect(await findUserByEmail(values.__ORG_UUID__!, email)).toBeUndefined();
      expect(await mailsTo(email)).toEqual([]);
    },
    'bulk.create': async (result, { event, values }, token) => {
      expect(result.statusCode).toBe(200);
      // The file's error list: the EDITOR broke rule 3; the VIEWER was created.
      expect(bodyOf(result)).toEqual(bulkErrors(values.__OTHER_NEW_EMAIL__!));
      const orgUuid = values.__ORG_UUID__!;
      const jobId = jobIdOf(result.headers?.location as string | undefined);
      expect(result.headers?.location).toBe(`/${stack().userSubpath}/org/${orgUuid}/users/bulk-jobs/${jobId}`);
      expect(await getJob(orgUuid, jobId!)).toMatchObject({ status: 'done', dryRun: false, language: event.headers.language, counts: { rows: 2, created: 1, failed: 1 } });
      const [env, bot] = [values.__ENV_UUID__!, values.__BOT_UUID__!];
      expect(await readUser(token, jobUserUuid(jobId!, values.__NEW_EMAIL__!))).toEqual({
        uuid: jobUserUuid(jobId!, values.__NEW_EMAIL__!),
        orgUUID: orgUuid,
        name: 'Ana Lima',
        email: values.__NEW_EMAIL__,
        company: 'Acme Support',
        role: 'VIEWER',
        permissions: [{ environmentUuid: env, botUuid: bot }],
        image: null,
        admin: false,
        status: 'ACTIVE',
        createdAt: expect.any(String),
      });
      // The welcome e-mail (with the generated password) in the `language` header's language; none for the EDITOR.
      expect(await mailsTo(values.__NEW_EMAIL__!)).toMatchObject([{ subject: subjectOf('welcome', event.headers.language) }]);
      expect(await mailsTo(values.__OTHER_NEW_EMAIL__!)).toEqual([]);
      expect(await findUserByEmail(orgUuid, values.__OTHER_NEW_EMAIL__!)).toBeUndefined();
    },
    'bulk.welcomes': async (result, replay) => expectRequeuedThenDone(result, replay, { welcomeFailures: [] }),
    // Requeued, and the upload's copy onto itself runs the job again, to the same outcome.
    'bulk.retry': async (result, replay) => expectRequeuedThenDone(result, replay, {}),
    'bulk.job': async (result, { job }, token) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf<JobView>(result)).toEqual({
        jobId: job!.jobId,
        status: 'done',
        dryRun: true,
        counts: { rows: 2, created: 1, failed: 1 },
        welcomes: { sent: 0, pending: 0, failed: 0 },
        progress: { processed: 2, total: 2, percent: 100 },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        errors: bulkErrors(job!.otherEmail),
      });
      // A dry run counts the VIEWER as created but creates nobody.
      expect(await userStatus(token, jobUserUuid(job!.jobId, job!.email))).toBe(404);
      expect(await mailsTo(job!.email)).toEqual([]);
    },
    'bulk.failedRows': async (result, { job }) => {
      expect(result.statusCode).toBe(200);
      expect(result.headers?.['content-type']).toBe('text/csv; charset=utf-8');
      expect(result.headers?.['content-disposition']).toBe(`attachment; filename="failed-rows-${job!.jobId}.csv"`);
      // The file's header plus `Error`, then the EDITOR's row with its error's message.
      const [error] = bulkErrors(job!.otherEmail);
      const lines = [[...bulkCreateColumns, 'Error'], [...job!.rows[1]!, error!.message]].map((cells) => cells.map(csvCell).join(','));
      expect(result.body).toBe(`${lines.join('\r\n')}\r\n`);
    },
    'bulk.delete': async (result, { values, user }, token) => {
      expect(result.statusCode).toBe(200);
      // The user is deleted; the unknown e-mail (second in the list) is the only error.
      const unknown: ItemError = { email: values.__NEW_EMAIL__!, message: errorMessage('USER_NOT_FOUND', 'item'), errorCode: 'USER_NOT_FOUND', index: 1 };
      expect(bodyOf(result)).toEqual([unknown]);
      expect(await readUser(token, user!.uuid)).toEqual({ ...user, status: 'DELETED' });
      await expectNoSignIn(user!.email);
      expect(await findUserByEmail(values.__ORG_UUID__!, values.__NEW_EMAIL__!)).toBeUndefined();
    },
    'bulk.grant': async (result, { values, user }, token) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toEqual([]);
      // The VIEWER keeps its bot and gains the environment's other one.
      const granted = { environmentUuid: values.__ENV_UUID__!, botUuid: values.__OTHER_BOT_UUID__! };
      expect(user!.permissions).not.toContainEqual(granted);
      expect(await readUser(token, user!.uuid)).toEqual({ ...user, permissions: [...user!.permissions, granted] });
    },
    'bulk.revoke': async (result, { values, user }, token) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toEqual([]);
      // The grant of that bot is gone; the other bot's (added by `prepare`) stays.
      const revoked = { environmentUuid: values.__ENV_UUID__!, botUuid: values.__BOT_UUID__! };
      expect(user!.permissions).toContainEqual(revoked);
      const after = await readUser(token, user!.uuid);
      expect(after.permissions).not.toContainEqual(revoked);
      expect(after).toEqual({ ...user, permissions: user!.permissions.filter((p) => p.botUuid !== revoked.botUuid) });
      expect(after.permissions).toEqual([{ environmentUuid: values.__ENV_UUID__!, botUuid: values.__OTHER_BOT_UUID__! }]);
    },
  },
});

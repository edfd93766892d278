import { ConflictError } from '../../kernel/errors';
import { keys } from '../../adapters/store/keys';
import { getItem, updateItem, type TableWrite } from '../../adapters/store/table';
import type { BulkJob, WelcomeFailure } from './bulk-job.entities';

/**
 * A job's tally of its welcome e-mails: counted pending by the worker as it queues them, settled by the
 * `mail` function as it sends each (in the same transaction as the e-mail's outcome), also after the job
 * is done, until none is pending.
 */

/**
 * The write counting welcome e-mails the worker is about to queue as pending, made with their records
 * (before they are queued, so that no outcome comes first).
 */
export function welcomesQueuedWrite(orgUuid: string, jobId: string, queued: number): TableWrite {
  return {
    Update: {
      Key: keys.bulkJob(orgUuid, jobId),
      UpdateExpression: 'SET welcomes.pending = welcomes.pending + :queued, updatedAt = :now',
      ConditionExpression: 'attribute_exists(welcomes)',
      ExpressionAttributeValues: { ':queued': queued, ':now': new Date().toISOString() },
    },
  };
}

/** Counts welcome e-mails the worker is about to queue as pending (`welcomesQueuedWrite` alone). */
export async function countWelcomesQueued(orgUuid: string, jobId: string, queued: number): Promise<void> {
  if (!(await updateItem(welcomesQueuedWrite(orgUuid, jobId, queued).Update!))) throw new ConflictError({ code: 'CONFLICT', message: 'The job has no welcome counts' });
}

/**
 * The write counting a welcome e-mail's outcome on its job, made with the outcome itself: one fewer
 * pending, one more sent, or one more failed and listed.
 */
export function welcomeOutcomeWrite(orgUuid: string, jobId: string, outcome: { sent: true } | { sent: false; failure: WelcomeFailure }, now = new Date()): TableWrite {
  const counted = outcome.sent ? 'welcomes.sent = welcomes.sent + :one' : 'welcomes.failed = welcomes.failed + :one, welcomeFailures = list_append(welcomeFailures, :failure)';
  return {
    Update: {
      Key: keys.bulkJob(orgUuid, jobId),
      UpdateExpression: `SET ${counted}, welcomes.pending = welcomes.pending - :one, updatedAt = :now`,
      ConditionExpression: 'attribute_exists(welcomes) AND attribute_exists(welcomeFailures)',
      ExpressionAttributeValues: { ':one': 1, ':now': now.toISOString(), ...(outcome.sent ? {} : { ':failure': [outcome.failure] }) },
    },
  };
}

/** Counts a welcome e-mail the queue would not take as failed on its job, and lists it. */
export async function countWelcomeFailed(orgUuid: string, jobId: string, failure: WelcomeFailure): Promise<void> {
  await updateItem(welcomeOutcomeWrite(orgUuid, jobId, { sent: false, failure }).Update!);
}

/**
 * Takes a user's failed welcome off its job's list, as it is queued again: one fewer failed, one more
 * pending. Conditioned on the list as read, and read again when an outcome changed it meanwhile.
 */
export async function countWelcomeRequeued(orgUuid: string, jobId: string, userUuid: string): Promise<void> {
  for (;;) {
    const job = await getItem<BulkJob>(keys.bulkJob(orgUuid, jobId), { consistent: true });
    const listed = job?.welcomeFailures ?? [];
    if (!job?.welcomes || !listed.some((failure) => failure.userUuid === userUuid)) return countWelcomesQueued(orgUuid, jobId, 1);
    const written = await updateItem({
      Key: keys.bulkJob(orgUuid, jobId),
      UpdateExpression: 'SET welcomeFailures = :rest, welcomes.failed = welcomes.failed - :one, welcomes.pending = welcomes.pending + :one, updatedAt = :now',
      ConditionExpression: 'size(welcomeFailures) = :size',
      ExpressionAttributeValues: {
        ':rest': listed.filter((failure) => failure.userUuid !== userUuid),
        ':one': 1,
        ':size': listed.length,
        ':now': new Date().toISOString(),
      },
    });
    if (written) return;
  }
}

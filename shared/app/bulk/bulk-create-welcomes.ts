import { queueUserMails, type UserMailRequest } from '../users/user-mail';
import type { BulkJob } from '../../domain/bulk/bulk-job.entities';
import { countWelcomeFailed, countWelcomeRequeued, welcomesQueuedWrite } from '../../domain/bulk/bulk-job-welcomes.repository';

/** A welcome e-mail a created user still needs. */
export interface Welcome {
  userUuid: string;
  line: number;
  password: { value: string; temporary: boolean };
}

/** E-mails queued ten at a time (one SendMessageBatch), or sooner when creation is slow; a few batches at once. */
const WELCOME_BATCH = 10;
const WELCOME_BATCH_MS = 250;
const WELCOME_BATCHES_AT_ONCE = 4;

/**
 * Hands a job's welcome e-mails to the mail queue in batches, as the users are created: each batch is
 * counted pending on the job before it is queued (so no outcome can come first), and an e-mail the
 * queue would not take is counted failed and listed at once, like one SES refused. A lane that fills
 * a batch waits while `WELCOME_BATCHES_AT_ONCE` are on their way, so queueing keeps up with creation.
 */
export class WelcomeBatcher {
  private waiting: Welcome[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly sending = new Set<Promise<void>>();
  private failure: unknown;

  constructor(private readonly job: BulkJob) {}

  async add(welcome: Welcome, requeued: boolean): Promise<void> {
    if (requeued) {
      // A welcome that failed before is taken off the job's list (and counted pending) as it is queued again.
      await countWelcomeRequeued(this.job.orgUuid, this.job.jobId, welcome.userUuid);
      return this.queue([welcome], false);
    }
    this.waiting.push(welcome);
    if (this.waiting.length >= WELCOME_BATCH) return this.send();
    this.timer ??= setTimeout(() => void this.send(), WELCOME_BATCH_MS);
  }

  /** Queues what waits and everything on its way; throws what a batch met (the run fails, and its rerun queues what is missing). */
  async flush(): Promise<void> {
    await this.send();
    await Promise.all(this.sending);
    if (this.failure) throw this.failure;
  }

  private async send(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length > 0) {
      const sent: Promise<void> = this.queue(batch, true)
        .catch((error: unknown) => void (this.failure ??= error))
        .finally(() => this.sending.delete(sent));
      this.sending.add(sent);
    }
    while (this.sending.size >= WELCOME_BATCHES_AT_ONCE) await Promise.race(this.sending);
  }

  private async queue(batch: Welcome[], count: boolean): Promise<void> {
    const { orgUuid, jobId, language } = this.job;
    const requests: UserMailRequest[] = batch.map(({ userUuid, line, password }) => ({ kind: 'welcome', orgUuid, userUuid, language, password, job: { jobId, line } }));
    // The batch is counted pending in the transaction that records its e-mails as queued.
    const notQueued = await queueUserMails(requests, count ? { alongside: [welcomesQueuedWrite(orgUuid, jobId, batch.length)] } : {});
    await Promise.all(
      notQueued.map(({ request, reason }) =>
        countWelcomeFailed(orgUuid, jobId, { line: request.job!.line, userUuid: request.userUuid, reason }),
      ),
    );
  }
}

import { join } from 'node:path';
import { MAIL_MAX_RECEIVES } from '../../shared/mail/mail-queue';
import { createLocalQueues as createQueues, type LocalQueues } from './sqs/queue-endpoint';

/** The local names of the mail queue and its dead-letter queue (CloudFormation names them in AWS). */
export const LOCAL_MAIL_QUEUE = 'mail';
export const LOCAL_MAIL_DEAD_LETTERS = 'mail-dead-letters';

/**
 * How long a received e-mail stays invisible before the queue delivers it again: as in AWS, six times
 * the `mail` function's 60 s timeout, unless `LOCAL_MAIL_VISIBILITY_SECONDS` says otherwise (the
 * tests take seconds, to see a retry).
 */
export const VISIBILITY_ENV = 'LOCAL_MAIL_VISIBILITY_SECONDS';

function visibilitySeconds(setting = process.env[VISIBILITY_ENV]): number {
  if (setting === undefined || setting === '') return 360;
  const value = Number(setting);
  if (!Number.isInteger(value) || value < 0 || value > 43_200) throw new Error(`${VISIBILITY_ENV} must be a whole number of seconds from 0 to 43200 (got "${setting}")`);
  return value;
}

/** The stack's queues (the mail queue and its dead letters, as the CDK stack makes them), kept under `<dataDir>/queues`. */
export function createLocalQueues(dataDir: string): LocalQueues {
  return createQueues(
    [
      { name: LOCAL_MAIL_DEAD_LETTERS, visibilityTimeoutSeconds: 30, retentionSeconds: 14 * 86_400 },
      { name: LOCAL_MAIL_QUEUE, visibilityTimeoutSeconds: visibilitySeconds(), maxReceiveCount: MAIL_MAX_RECEIVES, deadLetterQueue: LOCAL_MAIL_DEAD_LETTERS, retentionSeconds: 4 * 86_400 },
    ],
    join(dataDir, 'queues'),
  );
}

/** The mail queue's URL at `baseUrl` (where the queues' server listens). */
export const queueUrlOf = (queues: LocalQueues, baseUrl: string): string => queues.queueUrl(LOCAL_MAIL_QUEUE, baseUrl);

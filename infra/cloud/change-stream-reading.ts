/**
 * How the `publisher` function reads the table's stream, in AWS (the event source mapping of
 * `change-events.ts`) and on the local stack (infra/local/stream-poller.ts reads DynamoDB Local's
 * stream with the same values). A module of its own, so that the local stack reads it without
 * loading aws-cdk-lib.
 */
export const changeStreamReading = {
  batchSize: 100,
  /** Retries of a failed batch (split in halves on a function error) before it goes to the dead-letter queue. */
  retryAttempts: 10,
  /** The stream keeps records 24 hours: a record older than this is handed to the dead-letter queue instead. */
  maxRecordAgeHours: 24,
} as const;

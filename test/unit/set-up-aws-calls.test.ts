import { discardAwsCalls, publishMetrics, recordAwsCall } from '../../shared/kernel/metrics';
import { captureLogs } from '../support/capture-logs';

/** The local stack's set-up (the seeding, the demo provider's registration) makes AWS calls outside any invocation. */

test("calls discarded once the set-up is done are on no invocation's AWS call totals", async () => {
  const lines = await captureLogs(async () => {
    // The seeding's expected conditional-check failure, then the first request's own call.
    recordAwsCall({ awsService: 'DynamoDB', operation: 'PutItem', durationMs: 4, outcome: 'ConditionalCheckFailedException', attempts: 1 });
    discardAwsCalls();
    recordAwsCall({ awsService: 'DynamoDB', operation: 'GetItem', durationMs: 2, outcome: 'ok', attempts: 1 });
    publishMetrics('auth', 'first-request');
  });

  const totals = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === 'aws calls');
  expect(totals).toEqual([expect.objectContaining({ operation: 'GetItem', calls: 1, failed: 0 })]);
});

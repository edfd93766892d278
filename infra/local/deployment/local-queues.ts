import { join } from 'node:path';
import { serveOnLoopback } from '../kernel/gateway-port';
import { createLocalQueues } from '../sqs/queue-endpoint';
import type { LocalQueueSettings } from '../sqs/sqs-model';
import type { Teardown } from '../kernel/teardown';
import { deploymentOverrides } from './overrides';
import type { TemplateDeployment } from '../template/template-deployment';

/** `BulkPipeline/Failures` → `bulk-pipeline-failures`. */
const kebab = (path: string) => path.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase().slice(0, 80);

/** The local name of each queue of the template, by logical id: the overrides table's, else its construct path in kebab case. */
export function localQueueNames(deployment: TemplateDeployment): Map<string, string> {
  return new Map(deployment.queues.map((queue) => [queue.logicalId, deploymentOverrides.queueNames.value[queue.path] ?? kebab(queue.path)]));
}

/** The local SQS's queues as the template declares them: visibility timeout, retention and redrive policy. */
export function localQueueSettings(deployment: TemplateDeployment): LocalQueueSettings[] {
  const names = localQueueNames(deployment);
  return deployment.queues.map((queue) => ({
    name: names.get(queue.logicalId)!,
    visibilityTimeoutSeconds: deploymentOverrides.queueVisibilitySeconds.value(queue.path) ?? queue.visibilityTimeoutSeconds,
    retentionSeconds: queue.retentionSeconds,
    ...(queue.redrive ? { deadLetterQueue: names.get(queue.redrive.deadLetterQueue)!, maxReceiveCount: queue.redrive.maxReceiveCount } : {}),
  }));
}

/**
 * The local SQS with the template's queues, journaled under `<dataDir>/queues`, on a free loopback port;
 * its stop handed to `teardown`.
 */
export async function startLocalQueues(deployment: TemplateDeployment, dataDir: string, teardown: Teardown): Promise<{ endpoint: string; urlOf(logicalId: string): string }> {
  const queues = createLocalQueues(localQueueSettings(deployment), join(dataDir, 'queues'));
  const endpoint = await serveOnLoopback(queues.server, 'local SQS', teardown, () => queues.close());
  const names = localQueueNames(deployment);
  return { endpoint, urlOf: (logicalId) => queues.queueUrl(names.get(logicalId) ?? logicalId, endpoint) };
}

import type { LocalQueueSettings } from '../sqs/sqs-model';
import { deploymentOverrides } from './overrides';
import type { TemplateDeployment } from './template-deployment';

/** `BulkPipeline/Failures` → `bulk-pipeline-failures`. */
const kebab = (path: string) =>
  path
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()
    .slice(0, 80);

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

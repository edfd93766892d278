import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { localQueueNames } from '../../infra/local/deployment/local-queues';
import { environmentOverrides } from '../../infra/local/deployment/overrides';
import type { TemplateDeployment } from '../../infra/local/template/template-deployment';
import { readFunctionEnvironments } from '../../infra/local/env/function-env-file';
import { LOCAL_CREDENTIALS } from '../../infra/local/provision';
import { loadTemplate } from '../../infra/local/synth/template-source';
import { stack } from '../support/stack';

/**
 * The run's local stack runs what the synthesized template declares: each function with the variables
 * its template declares and the local-only ones, nothing more; each queue of the local SQS with the
 * template's visibility timeout, retention and redrive policy.
 */

let deployment: TemplateDeployment;
beforeAll(async () => {
  ({ deployment } = await loadTemplate());
});

const localOnly = environmentOverrides.filter((entry) => entry.kind === 'local-only').map((entry) => entry.variable);
/** Variables the overrides table unsets locally (a template's value it has no local counterpart for). */
const unsetLocally = ['SES_CONFIGURATION_SET'];

test("each function's environment is its template's variables and the local-only ones, nothing another function has", () => {
  const environments = readFunctionEnvironments(process.env.TEST_STACK_DIR!);

  expect([...environments.keys()].sort()).toEqual(deployment.functions.map((fn) => fn.group).sort());
  for (const fn of deployment.functions) {
    const declared = Object.keys(fn.environment).filter((name) => !unsetLocally.includes(name));
    expect({ group: fn.group, variables: Object.keys(environments.get(fn.group)!).sort() }).toEqual({ group: fn.group, variables: [...declared, ...localOnly].sort() });
  }
  expect(environments.get('docs')).not.toHaveProperty('TABLE_NAME');
  expect(environments.get('auth')).not.toHaveProperty('MAIL_QUEUE_URL');
});

test("each queue of the local SQS has the template's visibility timeout, retention and redrive policy (the mail queue's visibility set by the tests)", async () => {
  const { origin } = new URL(stack().mailQueueUrl);
  const sqs = new SQSClient({ endpoint: origin, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  const names = localQueueNames(deployment);
  try {
    for (const queue of deployment.queues) {
      const name = names.get(queue.logicalId)!;
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: `${origin}/000000000000/${name}`, AttributeNames: ['All'] }));
      const redrive = queue.redrive ? { deadLetterTargetArn: `arn:aws:sqs:us-east-1:000000000000:${names.get(queue.redrive.deadLetterQueue)}`, maxReceiveCount: queue.redrive.maxReceiveCount } : undefined;

      expect({ name, visibility: Attributes?.VisibilityTimeout, retention: Attributes?.MessageRetentionPeriod, redrive: Attributes?.RedrivePolicy && JSON.parse(Attributes.RedrivePolicy) }).toEqual({
        name,
        // The run's stack starts with LOCAL_MAIL_VISIBILITY_SECONDS=3 (global-setup.ts).
        visibility: String(name === 'mail' ? 3 : queue.visibilityTimeoutSeconds),
        retention: String(queue.retentionSeconds),
        redrive,
      });
    }
  } finally {
    sqs.destroy();
  }
  expect([...names.values()].sort()).toEqual(['bulk-pipeline-dead-letters', 'bulk-pipeline-failures', 'change-events-dead-letters', 'mail', 'mail-dead-letters']);
});

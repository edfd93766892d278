import type { CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { groupAccess } from '../../infra/cloud/group-access';
import { resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { skipBundling, statementsOfRole, synthesize, synthesizeBundled, type PolicyStatementJson, type Synthesized } from './synth';

/** `Fn::GetAtt` of a logical id's attribute (its ARN unless told). */
export const getAtt = (id: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id, attribute] });

/** What Lambda's pollers need to read a stream (the publisher function's event source mapping). */
export const streamActions = ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];

/** Every group but the API reference, which reads none of the stack's data (`noData`). */
export const dataGroups = resourceGroups.filter((group) => !groupAccess[group]?.noData);

/**
 * The stack of one test file, synthesized once before its tests (without esbuild bundling unless the
 * file asks for it, as `cdk synth` bundles: then the run's bundled assembly), and what the tests read of its template: logical ids of
 * its parts, each function's environment and the statements of its role.
 */
export function synthesizedStack({ bundling = false } = {}) {
  let synthesized: Synthesized;
  // With bundling: the run's one bundled synthesis, which may first wait for another file's.
  let remove = () => {};
  beforeAll(async () => {
    if (!bundling) synthesized = synthesize(skipBundling);
    else ({ synthesized, remove } = await synthesizeBundled());
  }, 300_000);
  afterAll(() => remove());

  const template = () => synthesized.template;
  /** The logical id of the CloudFormation resource of a construct found by its path of ids under the stack. */
  const childId = (...path: string[]) => {
    const construct = path.reduce<IConstruct>((parent, id) => parent.node.findChild(id), synthesized.stack);
    return synthesized.logicalId(construct.node.defaultChild as CfnElement);
  };
  const fnOf = (group: ResourceGroup) => synthesized.stack.functions.get(group)!;
  const functionId = (group: ResourceGroup) => synthesized.logicalId(fnOf(group).node.defaultChild as CfnElement);
  const roleId = (group: ResourceGroup) => synthesized.logicalId(fnOf(group).role!.node.defaultChild as CfnElement);
  /** The logical id of the template's one resource of this type. */
  const singleId = (type: string) => {
    const ids = Object.keys(template().findResources(type));
    expect(ids).toHaveLength(1);
    return ids[0]!;
  };

  return {
    synthesized: () => synthesized,
    template,
    functionId,
    roleId,
    singleId,
    /** The token-signing key (the alarm topic has a KMS key of its own). */
    signingKeyId: () => childId('TokenSigning', 'Key'),
    /** The sealing keys (envelope encryption of what the table keeps secret). */
    sealingKeyId: (name: 'ProviderSecrets' | 'MailPasswords') => childId('Sealing', name),
    bulkBucketId: () => childId('BulkUploads', 'Bucket'),
    bulkQueueId: (name: 'Failures' | 'DeadLetters') => childId('BulkPipeline', name),
    changeEventsId: (name: 'Bus' | 'DeadLetters') => childId('ChangeEvents', name),
    mailQueueId: (name: 'Queue' | 'DeadLetters') => childId('MailQueue', name),
    environmentOf: (group: ResourceGroup): Record<string, unknown> =>
      template().findResources('AWS::Lambda::Function')[functionId(group)]!.Properties.Environment.Variables,
    statementsOf: (group: ResourceGroup): PolicyStatementJson[] => statementsOfRole(template(), roleId(group)),
  };
}

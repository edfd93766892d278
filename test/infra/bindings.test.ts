import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../infra/cloud/build-app';
import { bindBulkBucket, type BulkBucket } from '../../infra/cloud/bulk-bucket';
import { actionsOf, resourcesOf, skipBundling, statementsOfRole } from './synth';

// No group uses the bulk bucket yet (bulk-worker will): bind it to a function here to prove the
// helper grants object access only, sets the variable, and that its cdk-nag acknowledgment matches.
test('bindBulkBucket grants object access in the bulk bucket only and sets BULK_BUCKET_NAME', () => {
  const { app, stack } = buildApp(skipBundling);
  const bulk = stack.node.findChild('BulkUploads') as BulkBucket;
  const fn = stack.functions.get('users')!;
  bindBulkBucket(fn, bulk, 'readWrite');

  const template = Template.fromJSON(app.synth().getStackArtifact(stack.artifactId).template as Record<string, unknown>);

  const id = (element: CfnElement) => stack.resolve(stack.getLogicalId(element)) as string;
  const bucketId = id(bulk.bucket.node.defaultChild as CfnElement);
  const s3Statements = statementsOfRole(template, id(fn.role!.node.defaultChild as CfnElement)).filter((s) =>
    actionsOf(s).some((a) => a.startsWith('s3:')),
  );
  expect(s3Statements).toHaveLength(1);
  expect(actionsOf(s3Statements[0]!).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
  expect(resourcesOf(s3Statements[0]!)).toEqual([{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] }]);
  expect(template.findResources('AWS::Lambda::Function')[id(fn.node.defaultChild as CfnElement)]!.Properties.Environment.Variables)
    .toMatchObject({ BULK_BUCKET_NAME: { Ref: bucketId } });
});

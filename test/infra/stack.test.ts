import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { defaultSubpaths, resourceGroups } from '../../shared/edge/api/routes';
import { getAtt, synthesizedStack } from './stack-template';

/**
 * The stack as `cdk synth` makes it, esbuild bundles included: clean of findings and warnings, within
 * CloudFormation's size, each function's bundle, and the outputs the operator CLI reads.
 */

const { synthesized, template, functionId, singleId, signingKeyId, sealingKeyId, bulkBucketId, bulkQueueId, changeEventsId, mailQueueId } = synthesizedStack({ bundling: true });

describe('synthesis', () => {
  test('cdk-nag and CloudFormation validation leave no finding unacknowledged (synth throws on any nag finding)', () => {
    expect(synthesized().violations).toEqual([]);
  });

  test('CDK itself warns about nothing (no deprecated API, no ignored setting)', () => {
    expect(synthesized().cdkMessages).toEqual([]);
  });

  // CloudFormation takes at most 500 resources a stack: 400 keeps a margin for what comes next.
  test('the stack stays well within CloudFormation\'s 500 resources (at most 400)', () => {
    expect(Object.keys(template().toJSON().Resources as object).length).toBeLessThanOrEqual(400);
  });
});

describe('bundles', () => {
  test.each(resourceGroups)('%s is bundled by esbuild with a source map, leaving the AWS SDK to the runtime', (group) => {
    const fn = template().findResources('AWS::Lambda::Function')[functionId(group)]!;
    const assetDir = path.join(synthesized().assemblyDir, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
    const code = readFileSync(path.join(assetDir, 'index.js'), 'utf8');
    expect(existsSync(path.join(assetDir, 'index.js.map'))).toBe(true);
    // The docs function serves the API description from the catalogue alone: no AWS client at all.
    if (group === 'docs') expect(code).not.toMatch(/require\("@aws-sdk\//);
    else expect(code).toContain('require("@aws-sdk/client-dynamodb")');
    expect(code.startsWith('"use strict";')).toBe(true); // CommonJS
    expect(code.length / code.split('\n').length).toBeGreaterThan(1000); // minified (license comments keep a few lines)
  });


  test('docs carries Swagger UI beside its bundle, where the code finds it, with its licences and nothing else of the package', () => {
    const fn = template().findResources('AWS::Lambda::Function')[functionId('docs')]!;
    const assetDir = path.join(synthesized().assemblyDir, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
    const packageDir = path.join(assetDir, 'node_modules', 'swagger-ui-dist');
    expect(readdirSync(packageDir).sort()).toEqual(['LICENSE', 'NOTICE', 'oauth2-redirect.js', 'swagger-ui-bundle.js', 'swagger-ui-bundle.js.LICENSE.txt', 'swagger-ui.css']);
    expect(readFileSync(path.join(packageDir, 'swagger-ui-bundle.js'))).toEqual(readFileSync(path.join('node_modules', 'swagger-ui-dist', 'swagger-ui-bundle.js')));
  });

});

describe('outputs', () => {
  test('name what the operator CLI reads', () => {
    const apiEndpoint = getAtt(singleId('AWS::ApiGatewayV2::Api'), 'ApiEndpoint');
    const outputs = template().toJSON().Outputs as Record<string, { Value: unknown; Export?: unknown }>;
    expect(Object.fromEntries(Object.entries(outputs).map(([id, output]) => [id, output.Value]))).toEqual({
      ApiUrl: apiEndpoint,
      AuthUrl: apiEndpoint,
      UserPoolId: { Ref: singleId('AWS::Cognito::UserPool') },
      UserPoolClientId: { Ref: singleId('AWS::Cognito::UserPoolClient') },
      TableName: { Ref: singleId('AWS::DynamoDB::Table') },
      BulkBucketName: {
        Ref: bulkBucketId(),
      },
      SigningKeyArn: getAtt(signingKeyId()),
      ProviderSecretsKeyArn: getAtt(sealingKeyId('ProviderSecrets')),
      MailPasswordsKeyArn: getAtt(sealingKeyId('MailPasswords')),
      TokenIssuer: { 'Fn::Join': ['', [apiEndpoint, '/auth']] },
      GenerativeSubpath: defaultSubpaths.generative,
      UserSubpath: defaultSubpaths.user,
      AlarmTopicArn: { Ref: singleId('AWS::SNS::Topic') },
      DashboardName: { Ref: singleId('AWS::CloudWatch::Dashboard') },
      MailConfigurationSetName: { Ref: singleId('AWS::SES::ConfigurationSet') },
      BulkFailureQueueUrl: { Ref: bulkQueueId('Failures') },
      BulkDeadLetterQueueUrl: { Ref: bulkQueueId('DeadLetters') },
      EventBusName: { Ref: changeEventsId('Bus') },
      ChangeEventsDeadLetterQueueUrl: { Ref: changeEventsId('DeadLetters') },
      MailQueueUrl: { Ref: mailQueueId('Queue') },
      MailDeadLetterQueueUrl: { Ref: mailQueueId('DeadLetters') },
    });
    expect(Object.values(outputs).filter((output) => output.Export)).toEqual([]);
  });
});

import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { EventType } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import * as path from 'node:path';
import { resolveRoutes, resourceGroups, type ResourceGroup } from '../../shared/routes';
import { bindBulkBucket, BulkBucket } from './bulk-bucket';
import { bindTable, DataTable } from './data-table';
import { Gateway } from './gateway';
import { groupAccess } from './group-access';
import { bindMailer, Mailer } from './mailer';
import { projectRoot } from './project-root';
import { ServiceFunction } from './service-function';
import type { StackSettings } from './settings';
import { bindSigningKey, TokenSigningKey } from './signing-key';
import { bindUserPool, UserDirectory } from './user-directory';
import { envNames } from '../../shared/config';

export interface ManagementApiStackProps extends StackProps {
  readonly settings: StackSettings;
}

const pascalCase = (group: string) =>
  group.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());

/** The whole cloud side: data, identity, mail, token signing, one function per resource group, the HTTP API. */
export class ManagementApiStack extends Stack {
  /** Each resource group's function, for tests and later wiring (S3 notifications to bulk-worker). */
  readonly functions: ReadonlyMap<ResourceGroup, LambdaFunction>;

  constructor(scope: Construct, id: string, props: ManagementApiStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const alarmAction = settings.alarmTopicArn
      ? new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', settings.alarmTopicArn))
      : undefined;

    const data = new DataTable(this, 'Data');
    const bulkUploads = new BulkBucket(this, 'BulkUploads');
    const signingKey = new TokenSigningKey(this, 'TokenSigning');
    const directory = new UserDirectory(this, 'Directory');
    const mailer = new Mailer(this, 'Mail', { senderEmail: settings.senderEmail });
    const gateway = new Gateway(this, 'Gateway', { throttle: settings.throttle, alarmAction });

    // The API resource does not depend on any function, so the functions may name its endpoint.
    const tokenIssuer = settings.tokenIssuer ?? `${gateway.api.apiEndpoint}/auth`;
    const signInUrl = settings.signInUrl ?? `${gateway.api.apiEndpoint}/auth/realms/{realm}/protocol/openid-connect/token`;

    const functions = new Map<ResourceGroup, LambdaFunction>();
    for (const group of resourceGroups) {
      const access = groupAccess[group] ?? {};
      const fn = new ServiceFunction(this, `${pascalCase(group)}Function`, {
        group,
        entry: path.join(projectRoot, 'functions', group, 'handler.ts'),
        projectRoot,
        logLevel: settings.logLevel,
        alarmAction,
        ...(access.timeoutSeconds ? { timeout: Duration.seconds(access.timeoutSeconds) } : {}),
        environment: {
          [envNames.tokenIssuer]: tokenIssuer,
          [envNames.generativeSubpath]: settings.subpaths.generative,
          [envNames.userSubpath]: settings.subpaths.user,
          ...settings.tokenLifetimes,
        },
      }).function;
      bindTable(fn, data);
      bindUserPool(fn, directory, access.userPoolActions ?? []);
      bindSigningKey(fn, signingKey, { canSign: access.signsTokens ?? false });
      if (access.sendsMail) {
        bindMailer(fn, mailer, alarmAction);
        fn.addEnvironment(envNames.signInUrl, signInUrl);
      }
      if (access.bulkUploads) bindBulkBucket(fn, bulkUploads, access.bulkUploads);
      if (access.onUpload) {
        bulkUploads.bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(fn), { prefix: 'uploads/', suffix: '.csv' });
      }
      functions.set(group, fn);
    }
    this.functions = functions;
    acknowledgeNotificationsHandler(this);

    gateway.addRoutes(resolveRoutes(settings.subpaths), (group) => functions.get(group)!);

    const outputs: Record<string, { value: string; description: string }> = {
      ApiUrl: { value: gateway.api.apiEndpoint, description: 'Base URL of the management API ({base_url})' },
      AuthUrl: { value: gateway.api.apiEndpoint, description: 'Base URL of the token endpoint ({auth_url})' },
      UserPoolId: { value: directory.userPool.userPoolId, description: 'Cognito user pool holding credentials' },
      UserPoolClientId: {
        value: directory.consoleClient.userPoolClientId,
        description: 'The fixed console client_id given to integrators',
      },
      TableName: { value: data.table.tableName, description: 'The single DynamoDB table' },
      BulkBucketName: { value: bulkUploads.bucket.bucketName, description: 'Bucket for bulk-operation CSV uploads' },
      SigningKeyArn: { value: signingKey.key.keyArn, description: 'KMS key signing access tokens' },
      TokenIssuer: { value: tokenIssuer, description: 'The iss claim of access tokens' },
      GenerativeSubpath: { value: settings.subpaths.generative, description: 'Subpath of the agent-configuration area' },
      UserSubpath: { value: settings.subpaths.user, description: 'Subpath of the user-administration area' },
    };
    for (const [outputId, output] of Object.entries(outputs)) new CfnOutput(this, outputId, output);
  }
}

/**
 * S3 event notifications are configured by CDK's own singleton custom resource, whose role carries the
 * AWS managed basic-execution policy (logs only). It is CDK's construct, not ours to reshape.
 */
function acknowledgeNotificationsHandler(stack: Stack): void {
  for (const child of stack.node.children) {
    if (!child.node.id.startsWith('BucketNotificationsHandler')) continue;
    Validations.of(child).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "CDK's bucket-notifications custom resource: its role only writes its own logs through the basic-execution policy.",
    });
  }
}

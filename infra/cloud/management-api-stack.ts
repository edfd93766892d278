import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { EventType } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import * as path from 'node:path';
import { resolveRoutes, resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { bindBulkBucket, BulkBucket } from './bulk-bucket';
import { BulkPipeline } from './bulk-pipeline';
import { MailQueue } from './mail-queue';
import { ChangeEvents } from './change-events';
import { OperationsDashboard } from './dashboard';
import { bindTable, DataTable } from './data-table';
import { Gateway } from './gateway';
import { groupAccess } from './group-access';
import { bindMailer, Mailer } from './mailer';
import { AlarmTopic, alarmAtLeast, appMetric } from './monitoring';
import { projectRoot } from './project-root';
import { ServiceFunction } from './service-function';
import { pascalCase, type StackSettings } from './settings';
import { bindSigningKey, TokenSigningKey } from './signing-key';
import { bindSealingKey, SealingKeys } from './sealing-keys';
import { bindConsoleClient, bindUserPool, UserDirectory } from './user-directory';
import { envNames } from '../../shared/kernel/config';

export interface ManagementApiStackProps extends StackProps {
  readonly settings: StackSettings;
}

/** The token endpoint's operation id in the catalogue (shared/edge/api/auth.api.ts): it gets throttling of its own. */
const tokenRouteId = 'auth.token';

/**
 * Reserved concurrency, by group. The bulk worker's (`workerConcurrency`, default 2) keeps imports
 * from starving the API and bounds their pressure on Cognito and SES. The bulk HTTP function holds
 * its invocation up to 25 s while it waits for a job, so it too can pile up; it gets none by
 * default (`bulkConcurrency` sets one): reserving subtracts from what every other group shares, and
 * its route throttling (`throttleBulkRate`, default 5/s on each of its write routes, 25 s each)
 * already bounds how many wait. Lambda refuses a reservation that leaves fewer than 100 unreserved
 * executions, and a new account's quota may be as low as 10: there (UnreservedConcurrentExecutions
 * under 102 in `aws lambda get-account-settings`), deploy with `-c workerConcurrency=none` or ask for
 * a higher quota first (docs/operations/deploy.md#2-choose-the-context-values).
 */
const reservedConcurrency = (settings: StackSettings): Partial<Record<ResourceGroup, number | undefined>> => ({
  'bulk-worker': settings.workerConcurrency,
  bulk: settings.bulkConcurrency,
});

/**
 * The audit events' retention (`-c auditRetentionDays=…`), for every function that writes data: each
 * event's TTL is set when it is written, so a change applies to events written after the deploy.
 */
const auditRetention = (settings: StackSettings): Record<string, string> =>
  settings.auditRetentionDays === undefined ? {} : { [envNames.auditRetentionDays]: String(settings.auditRetentionDays) };

/** The whole cloud side: data, identity, mail, token signing, one function per resource group, the HTTP API. */
export class ManagementApiStack extends Stack {
  /** Each resource group's function, for tests and later wiring (S3 notifications to bulk-worker). */
  readonly functions: ReadonlyMap<ResourceGroup, LambdaFunction>;

  constructor(scope: Construct, id: string, props: ManagementApiStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const alarms = new AlarmTopic(this, 'Alarms', { topicArn: settings.alarmTopicArn, email: settings.alarmEmail });

    const data = new DataTable(this, 'Data');
    const bulkUploads = new BulkBucket(this, 'BulkUploads');
    const signingKey = new TokenSigningKey(this, 'TokenSigning');
    const sealingKeys = new SealingKeys(this, 'Sealing');
    const directory = new UserDirectory(this, 'Directory');
    const mailer = new Mailer(this, 'Mail', { senderEmail: settings.senderEmail, importedIdentity: settings.importedSenderIdentity });
    const gateway = new Gateway(this, 'Gateway', {
      throttle: settings.throttle,
      routeThrottles: settings.routeThrottles,
      tokenRouteId,
      errorRatePercent: settings.apiErrorRatePercent,
      latencyP99Ms: settings.apiLatencyP99Ms,
    });

    // The API resource does not depend on any function, so the functions may name its endpoint.
    const tokenIssuer = settings.tokenIssuer ?? `${gateway.api.apiEndpoint}/auth`;
    const signInUrl = settings.signInUrl ?? `${gateway.api.apiEndpoint}/auth/realms/{realm}/account?kc_locale={locale}`;

    const functions = new Map<ResourceGroup, LambdaFunction>();
    for (const group of resourceGroups) {
      const access = groupAccess[group] ?? {};
      const fn = new ServiceFunction(this, `${pascalCase(group)}Function`, {
        group,
        entry: path.join(projectRoot, 'functions', group, 'handler.ts'),
        projectRoot,
        logLevel: settings.logLevel,
        reservedConcurrency: reservedConcurrency(settings)[group],
        ...(access.timeoutSeconds ? { timeout: Duration.seconds(access.timeoutSeconds) } : {}),
        ...(access.packageFiles ? { packageFiles: access.packageFiles } : {}),
        environment: {
          [envNames.generativeSubpath]: settings.subpaths.generative,
          [envNames.userSubpath]: settings.subpaths.user,
          ...(access.noData ? {} : { [envNames.tokenIssuer]: tokenIssuer, ...settings.tokenLifetimes, ...auditRetention(settings) }),
        },
      }).function;
      functions.set(group, fn);
      // Least privilege: a group that reads no data (the API reference) gets no grant and no setting for it.
      if (access.noData) {
        if (access.namesConsoleClient) bindConsoleClient(fn, directory);
        continue;
      }
      bindTable(fn, data, { conditionChecks: access.writesAgents ?? false, readOnly: access.readsTableOnly ?? false });
      bindUserPool(fn, directory, access.userPoolActions ?? []);
      if (access.userPoolActions?.length) {
        alarmAtLeast(
          fn,
          'IdentityProviderThrottledAlarm',
          appMetric(fn, 'IdentityProviderThrottled', group),
          `Cognito throttled the ${group} function (metric IdentityProviderThrottled): its quotas are per account`,
        );
      }
      bindSigningKey(fn, signingKey, { canSign: access.signsTokens ?? false });
      if (access.signsTokens && settings.authRedirectUris.length) fn.addEnvironment(envNames.authRedirectUris, settings.authRedirectUris.join(' '));
      if (access.sendsMail) {
        bindMailer(fn, mailer, group, { readsSendQuota: access.sendsMail === 'paced' });
        fn.addEnvironment(envNames.signInUrl, signInUrl);
      }
      if (access.bulkUploads) bindBulkBucket(fn, bulkUploads, access.bulkUploads);
      if (access.onUpload) {
        bulkUploads.bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(fn), { prefix: 'uploads/', suffix: '.csv' });
      }
    }
    this.functions = functions;
    acknowledgeNotificationsHandler(this);
    // A provider's client secret is sealed where an ADMIN registers it, opened where the broker uses it.
    bindSealingKey(functions.get('users')!, sealingKeys.providerSecrets, envNames.providerSecretsKey, 'seal');
    bindSealingKey(functions.get('auth')!, sealingKeys.providerSecrets, envNames.providerSecretsKey, 'open');
    const mailQueue = new MailQueue(this, 'MailQueue', { consumer: functions.get('mail')!, passwords: sealingKeys.mailPasswords });
    for (const group of resourceGroups) if (groupAccess[group]?.queuesMail) mailQueue.bindSender(functions.get(group)!, group);

    gateway.addRoutes(resolveRoutes(settings.subpaths), (group) => functions.get(group)!);
    const bulkPipeline = new BulkPipeline(this, 'BulkPipeline', { worker: functions.get('bulk-worker')! });
    const changeEvents = new ChangeEvents(this, 'ChangeEvents', {
      publisher: functions.get('publisher')!,
      table: data.table,
      busName: settings.eventBusName,
      typePrefix: settings.eventTypePrefix,
    });
    // The users function types the pings it sends to webhooks, and reads subscriptions' full event types, under the same prefix.
    functions.get('users')!.addEnvironment(envNames.eventTypePrefix, settings.eventTypePrefix);
    // The feed reads `types` under the same prefix.
    functions.get('feed')!.addEnvironment(envNames.eventTypePrefix, settings.eventTypePrefix);
    const dashboard = new OperationsDashboard(this, 'Operations', {
      api: gateway.api,
      functions,
      table: data.table,
      failures: bulkPipeline.failures,
      deadLetters: bulkPipeline.deadLetters,
      mail: { queue: mailQueue.queue, deadLetters: mailQueue.deadLetters },
    });
    alarms.notifyEveryAlarm(this);

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
      ProviderSecretsKeyArn: { value: sealingKeys.providerSecrets.keyArn, description: "KMS key sealing identity providers' client secrets" },
      MailPasswordsKeyArn: { value: sealingKeys.mailPasswords.keyArn, description: 'KMS key sealing the passwords of queued e-mails' },
      TokenIssuer: { value: tokenIssuer, description: 'The iss claim of access tokens' },
      GenerativeSubpath: { value: settings.subpaths.generative, description: 'Subpath of the agent-configuration area' },
      UserSubpath: { value: settings.subpaths.user, description: 'Subpath of the user-administration area' },
      MailConfigurationSetName: { value: mailer.configurationSet.configurationSetName, description: 'SES configuration set every e-mail goes through' },
      AlarmTopicArn: { value: alarms.topic.topicArn, description: 'SNS topic every alarm notifies (ALARM and OK)' },
      DashboardName: { value: dashboard.dashboard.dashboardName, description: "The on-call engineer's CloudWatch dashboard" },
      BulkFailureQueueUrl: { value: bulkPipeline.failures.queueUrl, description: 'Bulk uploads whose worker failed after its retries' },
      EventBusName: { value: changeEvents.bus.eventBusName, description: 'EventBridge bus every change event is put on' },
      ChangeEventsDeadLetterQueueUrl: { value: changeEvents.deadLetters.queueUrl, description: 'Change-event batches not published after their retries (replay them)' },
      BulkDeadLetterQueueUrl: { value: bulkPipeline.deadLetters.queueUrl, description: 'Failed bulk uploads the worker could not settle' },
      MailQueueUrl: { value: mailQueue.queue.queueUrl, description: 'E-mails to users waiting for their turn at SES\'s send rate' },
      MailDeadLetterQueueUrl: { value: mailQueue.deadLetters.queueUrl, description: 'E-mails to users the mail function could not settle' },
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

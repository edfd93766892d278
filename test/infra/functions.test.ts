import { readConfig } from '../../shared/kernel/config';
import { defaultSubpaths, resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { contextDefaults } from '../../infra/cloud/settings';
import { dataGroups, synthesizedStack } from './stack-template';
import { actionsOf, resolveIntrinsic, resourcesOf, type PolicyStatementJson } from './synth';

/** Each resource group's function in the template: runtime and limits, the configuration it is given, and who may send mail. */

const { synthesized, template, functionId, singleId, signingKeyId, environmentOf, statementsOf } = synthesizedStack();

describe('functions', () => {
  test('there is one per resource group', () => {
    expect([...synthesized().stack.functions.keys()].sort()).toEqual([...resourceGroups].sort());
    // Besides ours, only CDK's own handler that configures the bulk bucket's event notification.
    const others = Object.keys(template().findResources('AWS::Lambda::Function')).filter(
      (id) => !resourceGroups.some((group) => id === functionId(group)),
    );
    expect(others).toHaveLength(1);
    expect(others[0]).toMatch(/^BucketNotificationsHandler/);
  });

  /** 10 s, except the users area's and SCIM's (Cognito's throttling is retried), the bulk HTTP side (it waits up to 25 s for its worker, within API Gateway's 30), agents (a bundle's apply), the change feed (a request waits up to 20 s), the worker, the publisher function and the mail queue's consumer (10 e-mails at its share of SES's rate). */
  const timeouts: Partial<Record<ResourceGroup, number>> = { users: 20, scim: 20, agents: 29, bulk: 29, feed: 29, 'bulk-worker': 900, publisher: 90, mail: 60 };

  test.each(resourceGroups)('%s runs Node.js 24 on arm64 with 512 MB, its timeout, X-Ray and its own log group', (group) => {
    const fn = template().findResources('AWS::Lambda::Function')[functionId(group)]!;
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: timeouts[group] ?? 10,
      TracingConfig: { Mode: 'Active' },
    });
    const logGroupId = fn.Properties.LoggingConfig.LogGroup.Ref as string;
    expect(template().findResources('AWS::Logs::LogGroup')[logGroupId]!.Properties.RetentionInDays).toBe(30);
  });

  test('only the bulk worker has reserved concurrency (workerConcurrency, default 2)', () => {
    const reserved = Object.fromEntries(
      resourceGroups.map((group) => [group, template().findResources('AWS::Lambda::Function')[functionId(group)]!.Properties.ReservedConcurrentExecutions]),
    );
    expect(reserved).toEqual({ ...Object.fromEntries(resourceGroups.map((group) => [group, undefined])), 'bulk-worker': 2 });
  });

  test.each(dataGroups)("%s gets every variable shared/kernel/config.ts requires, pointing at this stack's resources", (group) => {
    const environment = environmentOf(group);
    const config = readConfig(Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, resolveIntrinsic(v)])));
    const id = (type: string) => singleId(type);
    expect(config).toMatchObject({
      tableName: `<${id('AWS::DynamoDB::Table')}>`,
      userPoolId: `<${id('AWS::Cognito::UserPool')}>`,
      userPoolClientId: `<${id('AWS::Cognito::UserPoolClient')}>`,
      signingKey: { kind: 'kms', keyId: `<${signingKeyId()}.Arn>` },
      tokenIssuer: `<${id('AWS::ApiGatewayV2::Api')}.ApiEndpoint>/auth`,
      subpaths: defaultSubpaths,
    });
    expect(environment).toMatchObject({
      POWERTOOLS_SERVICE_NAME: group,
      // Powertools' namespace names the stack, so two stacks in one account never share a metric.
      POWERTOOLS_METRICS_NAMESPACE: 'ManagementApi/AgentPlatformManagementApi',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    });
    // No `--enable-source-maps`: the logger maps logged stacks itself, so no cold start parses the map.
    expect(environment).not.toHaveProperty('NODE_OPTIONS');
  });

  test("docs, the API reference, gets only the routing settings, the console's client id and its runtime own: no table, pool, key nor token settings", () => {
    expect(resourceGroups.filter((group) => !dataGroups.includes(group))).toEqual(['docs']);
    expect(environmentOf('docs')).toEqual({
      POWERTOOLS_SERVICE_NAME: 'docs',
      POWERTOOLS_METRICS_NAMESPACE: 'ManagementApi/AgentPlatformManagementApi',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      GENERATIVE_SUBPATH: defaultSubpaths.generative,
      USER_SUBPATH: defaultSubpaths.user,
      USER_POOL_CLIENT_ID: { Ref: singleId('AWS::Cognito::UserPoolClient') },
    });
  });

  test('only mail, the mail queue\'s consumer, may send mail, as the sender, through the configuration set, to any recipient', () => {
    const mailSettings = ['MAIL_FROM', 'SES_CONFIGURATION_SET', 'SIGN_IN_URL'];
    const environment = environmentOf('mail');
    expect(resolveIntrinsic(environment.SIGN_IN_URL)).toBe(
      `<${singleId('AWS::ApiGatewayV2::Api')}.ApiEndpoint>/auth/realms/{realm}/account?kc_locale={locale}`,
    );
    expect(environment).toMatchObject({
      MAIL_FROM: contextDefaults.senderEmail,
      SES_CONFIGURATION_SET: { Ref: singleId('AWS::SES::ConfigurationSet') },
    });
    for (const group of resourceGroups.filter((group) => group !== 'mail')) {
      expect([group, Object.keys(environmentOf(group)).filter((name) => mailSettings.includes(name))]).toEqual([group, []]);
    }
    const senders = resourceGroups.filter((group) =>
      statementsOf(group).some((s) => actionsOf(s).some((a) => a.startsWith('ses:'))),
    );
    expect(senders).toEqual(['mail']);
    const sesStatements = statementsOf('mail').filter((s) => actionsOf(s).some((a) => a.startsWith('ses:')));
    // It reads the send quota to pace its sends: GetAccount has no resource-level permission.
    expect(sesStatements.flatMap(actionsOf)).toEqual(['ses:SendEmail', 'ses:SendEmail', 'ses:GetAccount']);
    const [asSender, toRecipients, quota] = sesStatements as [PolicyStatementJson, PolicyStatementJson, PolicyStatementJson];
    expect(resourcesOf(quota)).toEqual(['*']);
    expect(asSender.Condition).toBeUndefined();
    expect(resourcesOf(asSender).map(resolveIntrinsic)).toEqual([
      `arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/<${singleId('AWS::SES::EmailIdentity')}>`,
      `arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:configuration-set/<${singleId('AWS::SES::ConfigurationSet')}>`,
    ]);
    // The SES sandbox authorizes each recipient's identity too: any identity, only as our sender.
    expect(resourcesOf(toRecipients).map(resolveIntrinsic)).toEqual(['arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*']);
    expect(toRecipients.Condition).toEqual({ StringEquals: { 'ses:FromAddress': contextDefaults.senderEmail } });
  });
});

import { App, type CfnElement } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { buildApp } from '../../infra/cloud/build-app';
import { groupAccess } from '../../infra/cloud/group-access';
import { contextDefaults, readSettings, throttleDefaults, type Throttle } from '../../infra/cloud/settings';
import { defaultSubpaths, resolveRoutes, resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { skipBundling, statementsOfRole, synthesize, type Synthesized } from './synth';

/**
 * Every context key readSettings (infra/cloud/settings.ts) reads, and its effect on the template.
 * Four syntheses: `custom` (API, throttling, functions, an existing alarm topic), `staging` (another
 * stack name, deploy, an imported domain identity, an alarm e-mail, no reserved worker concurrency)
 * and the two other forms of `importSenderIdentity`. Bad values fail synth with the key named.
 */

/** Each group's own limits (`throttle<Group>Rate`, `throttle<Group>Burst`): all differ from the defaults. */
const groupThrottleContext: Record<string, [key: string, value: string]> = {
  auth: ['throttleAuth', '31'],
  users: ['throttleUsers', '32'],
  supervisors: ['throttleSupervisors', '33'],
  agents: ['throttleAgents', '34'],
  configurations: ['throttleConfigurations', '35'],
  bulk: ['throttleBulk', '36'],
  docs: ['throttleDocs', '37'],
  scim: ['throttleScim', '38'],
  feed: ['throttleFeed', '39'],
};
/** Rate `n`, burst `2n`. */
const groupThrottles = Object.fromEntries(
  Object.entries(groupThrottleContext).map(([group, [, rate]]) => [group, { rateLimit: Number(rate), burstLimit: 2 * Number(rate) }]),
) as Partial<Record<ResourceGroup, Throttle>>;

const custom = {
  ...skipBundling,
  generativeSubpath: 'gen-ai',
  userSubpath: 'admin',
  tokenIssuer: 'urn:example:issuer',
  // As `cdk synth -c key=value` passes them: strings.
  throttleRateLimit: '10',
  throttleBurstLimit: '20',
  throttleTokenRate: '3',
  throttleTokenBurst: '6',
  ...Object.fromEntries(
    Object.values(groupThrottleContext).flatMap(([prefix, rate]) => [
      [`${prefix}Rate`, rate],
      [`${prefix}Burst`, String(2 * Number(rate))],
    ]),
  ),
  accessTokenSeconds: '120',
  auditRetentionDays: '30',
  alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
  senderEmail: 'mail@example.org',
  importSenderIdentity: 'false',
  signInUrl: 'https://console.example.org/{realm}/sign-in',
  authRedirectUris: 'https://console.example.org/callback https://console.example.org/silent',
  logLevel: 'debug',
  apiErrorRatePercent: '5',
  apiLatencyP99Ms: '8000',
  workerConcurrency: '4',
  // As cdk.json may pass it: a number.
  bulkConcurrency: 3,
};

/** A second stack (say, staging) deployed with an existing domain identity and an alarm e-mail. */
const staging = {
  ...skipBundling,
  stackName: 'ManagementApiStaging',
  deploy: 'true',
  senderEmail: 'no-reply@mail.example.net',
  importSenderIdentity: 'mail.example.net',
  alarmEmail: 'oncall@example.net',
  workerConcurrency: 'none',
  refreshTokenSeconds: 900,
  sessionMaxSeconds: '7200',
  offlineSessionIdleSeconds: '604800',
};

let synthesized: Synthesized;
let stagingSynth: Synthesized;
beforeAll(() => {
  synthesized = synthesize(custom);
  stagingSynth = synthesize(staging);
});

const routeKeys = () =>
  Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Route')).map((r) => r.Properties.RouteKey as string);
/** The environments of our functions (CDK's bucket-notifications handler has none). */
const environments = (of = synthesized) =>
  Object.values(of.template.findResources('AWS::Lambda::Function'))
    .filter((fn) => fn.Properties.Environment)
    .map((fn) => fn.Properties.Environment.Variables as Record<string, unknown>);
/** Whether a function's group reads the stack's data (every group but the API reference: `noData`). */
const readsData = (environment: Record<string, unknown>) => !groupAccess[environment.POWERTOOLS_SERVICE_NAME as ResourceGroup]?.noData;
const functionOf = (of: Synthesized, group: ResourceGroup) =>
  of.template.findResources('AWS::Lambda::Function')[of.logicalId(of.stack.functions.get(group)!.node.defaultChild as CfnElement)]!;
const reservedConcurrency = (of: Synthesized) =>
  Object.fromEntries(
    resourceGroups
      .map((group) => [group, functionOf(of, group).Properties.ReservedConcurrentExecutions as number | undefined] as const)
      .filter(([, reserved]) => reserved !== undefined),
  );
type AlarmProperties = Record<string, unknown> & { Metrics?: { Expression?: string }[] };
const alarms = (of = synthesized) =>
  Object.values(of.template.findResources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties as AlarmProperties);
/** The SendEmail statements naming the sender identity (not the sandbox's `identity/*` one), of the mail sender (the mail queue's consumer). */
const senderStatements = (of: Synthesized) =>
  (['mail'] as const).flatMap((group) =>
    statementsOfRole(of.template, of.logicalId(of.stack.functions.get(group)!.role!.node.defaultChild as CfnElement)).filter(
      (statement) => statement.Action === 'ses:SendEmail' && statement.Condition === undefined,
    ),
  );

test('custom subpaths change the route keys, the functions and the outputs', () => {
  const expected = resolveRoutes({ generative: 'gen-ai', user: 'admin' }).map((route) => route.routeKey);
  expect(routeKeys().sort()).toEqual([...expected, '$default'].sort());
  const defaults = resolveRoutes(defaultSubpaths).map((route) => route.routeKey);
  expect(routeKeys().filter((key) => defaults.includes(key) && !expected.includes(key))).toEqual([]);
  expect(routeKeys().some((key) => key.includes(' /admin/'))).toBe(true);
  for (const environment of environments()) {
    expect(environment).toMatchObject({ GENERATIVE_SUBPATH: 'gen-ai', USER_SUBPATH: 'admin' });
  }
  synthesized.template.hasOutput('GenerativeSubpath', { Value: 'gen-ai' });
  synthesized.template.hasOutput('UserSubpath', { Value: 'admin' });
});

test('the token issuer, token lifetimes and sender come from context', () => {
  for (const environment of environments().filter(readsData)) {
    expect(environment).toMatchObject({ TOKEN_ISSUER: 'urn:example:issuer', ACCESS_TOKEN_SECONDS: '120' });
    expect(environment.REFRESH_TOKEN_SECONDS).toBeUndefined();
  }
  // The API reference reads no token: it is given none of their settings.
  for (const environment of environments().filter((environment) => !readsData(environment))) {
    expect(Object.keys(environment).filter((name) => /TOKEN|SESSION/.test(name))).toEqual([]);
  }
  synthesized.template.hasOutput('TokenIssuer', { Value: 'urn:example:issuer' });
  synthesized.template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'mail@example.org' });
});

test('refreshTokenSeconds, sessionMaxSeconds and offlineSessionIdleSeconds set their variables in every function; unset, the token issuer is the API', () => {
  const environmentsOf = environments(stagingSynth);
  expect(environmentsOf).toHaveLength(resourceGroups.length);
  const apiId = Object.keys(stagingSynth.template.findResources('AWS::ApiGatewayV2::Api'))[0]!;
  expect(environmentsOf.filter((environment) => !readsData(environment)).map((environment) => environment.POWERTOOLS_SERVICE_NAME)).toEqual(['docs']);
  for (const environment of environmentsOf.filter(readsData)) {
    expect(environment).toMatchObject({ REFRESH_TOKEN_SECONDS: '900', SESSION_MAX_SECONDS: '7200', OFFLINE_SESSION_IDLE_SECONDS: '604800' });
    expect(environment.ACCESS_TOKEN_SECONDS).toBeUndefined();
    expect(environment.TOKEN_ISSUER).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] }, '/auth']] });
  }
});

test('auditRetentionDays sets the audit events\' retention in every function that writes data; unset, their default applies', () => {
  const withData = environments().filter(readsData);
  expect(withData.length).toBeGreaterThan(0);
  for (const environment of withData) expect(environment.AUDIT_RETENTION_DAYS).toBe('30');
  for (const environment of environments().filter((environment) => !readsData(environment))) expect(environment.AUDIT_RETENTION_DAYS).toBeUndefined();
  for (const environment of environments(stagingSynth)) expect(environment.AUDIT_RETENTION_DAYS).toBeUndefined();
});

test('the sign-in address of e-mails comes from context, for the function that sends mail only', () => {
  const withSignIn = environments().filter((environment) => 'SIGN_IN_URL' in environment);
  expect(withSignIn.map((environment) => environment.POWERTOOLS_SERVICE_NAME)).toEqual(['mail']);
  for (const environment of withSignIn) {
    expect(environment).toMatchObject({ SIGN_IN_URL: 'https://console.example.org/{realm}/sign-in', MAIL_FROM: 'mail@example.org' });
  }
});

test("the console's redirect URIs come from context, for the token service only", () => {
  const withRedirects = environments().filter((environment) => 'AUTH_REDIRECT_URIS' in environment);
  expect(withRedirects.map((environment) => environment.POWERTOOLS_SERVICE_NAME)).toEqual(['auth']);
  expect(withRedirects[0]!.AUTH_REDIRECT_URIS).toBe('https://console.example.org/callback https://console.example.org/silent');
  for (const environment of environments(stagingSynth)) expect(environment.AUTH_REDIRECT_URIS).toBeUndefined();
});

test('throttling comes from context', () => {
  synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
    DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
  });
});

test('the test names every group that has route throttling of its own', () => {
  expect(Object.keys(groupThrottleContext).sort()).toEqual(Object.keys(throttleDefaults).filter((key) => key !== 'token').sort());
});

test('throttleToken* and throttle<Group>* set the stage route settings of the token route and of each group\'s routes', () => {
  const stage = Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
  const expected = Object.fromEntries(
    resolveRoutes({ generative: 'gen-ai', user: 'admin' })
      .filter((route) => !(route.group === 'bulk' && route.method === 'GET'))
      .map((route) => {
        const limits = route.id === 'auth.token' ? { rateLimit: 3, burstLimit: 6 } : groupThrottles[route.group]!;
        return [route.routeKey, { ThrottlingRateLimit: limits.rateLimit, ThrottlingBurstLimit: limits.burstLimit }];
      }),
  );
  expect(stage.Properties.RouteSettings).toEqual(expected);
  expect(expected['POST /auth/realms/{realm}/protocol/openid-connect/token']).toEqual({ ThrottlingRateLimit: 3, ThrottlingBurstLimit: 6 });
});

test('logLevel (any case) sets POWERTOOLS_LOG_LEVEL of every function', () => {
  expect(environments()).toHaveLength(resourceGroups.length);
  for (const environment of environments()) expect(environment.POWERTOOLS_LOG_LEVEL).toBe('DEBUG');
});

test('every alarm notifies the given topic', () => {
  const alarms = Object.values(synthesized.template.findResources('AWS::CloudWatch::Alarm'));
  expect(alarms.length).toBeGreaterThan(0);
  for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([custom.alarmTopicArn]);
});

test('alarmTopicArn: the OK actions go to it too, and the stack creates no topic of its own', () => {
  for (const alarm of alarms()) expect(alarm.OKActions).toEqual([custom.alarmTopicArn]);
  expect(synthesized.template.findResources('AWS::SNS::Topic')).toEqual({});
  expect(synthesized.template.findResources('AWS::SNS::Subscription')).toEqual({});
  synthesized.template.hasOutput('AlarmTopicArn', { Value: custom.alarmTopicArn });
});

test('alarmEmail subscribes the address to the stack\'s own topic, which every alarm notifies', () => {
  const topicIds = Object.keys(stagingSynth.template.findResources('AWS::SNS::Topic'));
  expect(topicIds).toHaveLength(1);
  const subscriptions = Object.values(stagingSynth.template.findResources('AWS::SNS::Subscription')).map((s) => s.Properties);
  expect(subscriptions).toEqual([{ Protocol: 'email', Endpoint: 'oncall@example.net', TopicArn: { Ref: topicIds[0] } }]);
  for (const alarm of alarms(stagingSynth)) {
    expect([alarm.AlarmActions, alarm.OKActions]).toEqual([[{ Ref: topicIds[0] }], [{ Ref: topicIds[0] }]]);
  }
});

test('apiErrorRatePercent is the threshold of the API 5xx rate alarm', () => {
  const rate = alarms().filter((alarm) => alarm.Metrics?.some((m) => m.Expression?.includes('errors / requests')));
  expect(rate.map((alarm) => alarm.Threshold)).toEqual([5]);
  expect(rate[0]!.AlarmDescription).toContain('At least 5%');
});

test('apiLatencyP99Ms is the threshold of the API p99 latency alarm', () => {
  expect(alarms().filter((alarm) => alarm.MetricName === 'Latency').map((alarm) => [alarm.ExtendedStatistic, alarm.Threshold])).toEqual([
    ['p99', 8000],
  ]);
});

test('workerConcurrency and bulkConcurrency reserve concurrency of the bulk worker and of the bulk function', () => {
  expect(reservedConcurrency(synthesized)).toEqual({ 'bulk-worker': 4, bulk: 3 });
});

test('workerConcurrency=none reserves none for the worker', () => {
  expect(reservedConcurrency(stagingSynth)).toEqual({});
});

test('the stack name comes from context', () => {
  expect(buildApp({ ...skipBundling, stackName: 'ManagementApiStaging' }).stack.stackName).toBe('ManagementApiStaging');
});

test('stackName names the stack, its dashboard, its alarm topic and its metrics namespace', () => {
  expect(stagingSynth.stack.artifactId).toBe('ManagementApiStaging');
  const dashboards = Object.values(stagingSynth.template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards.map((dashboard) => dashboard.Properties.DashboardName)).toEqual(['ManagementApiStaging-operations']);
  stagingSynth.template.hasResourceProperties('AWS::SNS::Topic', { DisplayName: 'ManagementApiStaging alarms' });
  for (const environment of environments(stagingSynth)) {
    expect(environment.POWERTOOLS_METRICS_NAMESPACE).toBe('ManagementApi/ManagementApiStaging');
  }
  const appAlarms = alarms(stagingSynth).filter((alarm) => alarm.MetricName === 'MailsFailed');
  expect(appAlarms.length).toBeGreaterThan(0);
  for (const alarm of appAlarms) expect(alarm.Namespace).toBe('ManagementApi/ManagementApiStaging');
});

test('deploy=true with a sender synthesizes, sending as that sender', () => {
  for (const environment of environments(stagingSynth).filter((environment) => 'MAIL_FROM' in environment)) {
    expect(environment.MAIL_FROM).toBe('no-reply@mail.example.net');
  }
  expect(environments(stagingSynth).filter((environment) => 'MAIL_FROM' in environment).map((environment) => environment.POWERTOOLS_SERVICE_NAME)).toEqual(['mail']);
});

describe('importSenderIdentity', () => {
  const identityOf = (statement: { Resource: unknown }) =>
    JSON.stringify(statement.Resource).match(/:identity\/([^"]+)"/)?.[1] ?? JSON.stringify(statement.Resource);

  test('false (or unset): the stack creates the sender\'s identity, the one the functions may send as', () => {
    const identities = synthesized.template.findResources('AWS::SES::EmailIdentity');
    expect(Object.values(identities).map((identity) => identity.Properties.EmailIdentity)).toEqual(['mail@example.org']);
    expect(senderStatements(synthesized)).toHaveLength(1);
    for (const statement of senderStatements(synthesized)) {
      expect(JSON.stringify(statement.Resource)).toContain(`{"Ref":"${Object.keys(identities)[0]}"}`);
    }
  });

  test('a domain: no identity is created; the functions send as the domain identity', () => {
    expect(stagingSynth.template.findResources('AWS::SES::EmailIdentity')).toEqual({});
    const statements = senderStatements(stagingSynth);
    expect(statements).toHaveLength(1);
    for (const statement of statements) expect(identityOf(statement)).toBe('mail.example.net');
  });

  test.each([
    ['true', 'mail@example.org'],
    ['mail@example.org', 'mail@example.org'],
  ])('%s: no identity is created; the functions send as the address identity', (value, identity) => {
    const imported = synthesize({ ...skipBundling, senderEmail: 'mail@example.org', importSenderIdentity: value });
    expect(imported.template.findResources('AWS::SES::EmailIdentity')).toEqual({});
    const statements = senderStatements(imported);
    expect(statements).toHaveLength(1);
    for (const statement of statements) expect(identityOf(statement)).toBe(identity);
    // The defaults of the other keys, seen on the same template.
    expect(reservedConcurrency(imported)).toEqual({ 'bulk-worker': contextDefaults.workerConcurrency });
  });
});

describe('invalid context fails synth with the key named', () => {
  const settingsOf = (context: Record<string, unknown>) => () => readSettings(new App({ context }).node);

  test('authRedirectUris: separated by spaces or commas, or a list; loopback http allowed', () => {
    const uris = ['https://console.example.com/callback', 'http://127.0.0.1:3000/cb'];
    expect(settingsOf({ authRedirectUris: uris.join(', ') })().authRedirectUris).toEqual(uris);
    expect(settingsOf({ authRedirectUris: uris })().authRedirectUris).toEqual(uris);
    expect(settingsOf({})().authRedirectUris).toEqual([]);
  });

  test.each([
    [{ throttleRateLimit: 'fast' }, /throttleRateLimit/],
    [{ throttleBurstLimit: 0 }, /throttleBurstLimit/],
    [{ senderEmail: 'nobody' }, /senderEmail/],
    [{ logLevel: 'LOUD' }, /logLevel/],
    [{ sessionMaxSeconds: '1.5' }, /sessionMaxSeconds/],
    [{ authRedirectUris: 'http://console.example.com/callback' }, /"authRedirectUris" holds "http:\/\/console\.example\.com\/callback"/],
    [{ authRedirectUris: 'https://console.example.com/callback#top' }, /without a fragment/],
    [{ authRedirectUris: 'console' }, /"authRedirectUris" holds "console"/],
    [{ authRedirectUris: 7 }, /"authRedirectUris" must be addresses/],
  ])('%j', (context, message) => {
    expect(settingsOf(context)).toThrow(message);
  });

  test.each([
    [{ stackName: 7 }, /"stackName" must be a string/],
    [{ importSenderIdentity: 'other.example.com', senderEmail: 'mail@example.org' }, /"importSenderIdentity" must be .*"example\.org" \(got "other\.example\.com"\)/],
    [{ deploy: 'true' }, /"senderEmail" is required to deploy/],
    [{ deploy: true }, /"senderEmail" is required to deploy/],
    [{ deploy: 'yes', senderEmail: 'mail@example.org' }, /"deploy" must be true or false/],
    [{ alarmEmail: 'oncall' }, /"alarmEmail" must be an e-mail address/],
    [{ alarmEmail: 'oncall@example.org', alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms' }, /"alarmEmail" and "alarmTopicArn" exclude each other/],
    [{ throttleTokenRate: '0' }, /"throttleTokenRate" must be a positive integer/],
    [{ throttleUsersBurst: 'many' }, /"throttleUsersBurst" must be a positive integer/],
    [{ apiErrorRatePercent: '0.5' }, /"apiErrorRatePercent" must be a positive integer/],
    [{ apiLatencyP99Ms: 'slow' }, /"apiLatencyP99Ms" must be a positive integer/],
    [{ workerConcurrency: 'all' }, /"workerConcurrency" must be a positive integer/],
    [{ bulkConcurrency: -1 }, /"bulkConcurrency" must be a positive integer/],
    [{ accessTokenSeconds: '0' }, /"accessTokenSeconds" must be a positive integer/],
    [{ auditRetentionDays: '1.5' }, /"auditRetentionDays" must be a positive integer/],
    [{ refreshTokenSeconds: 'long' }, /"refreshTokenSeconds" must be a positive integer/],
  ])('buildApp(%j)', (context, message) => {
    expect(() => buildApp({ ...skipBundling, ...context })).toThrow(message);
  });

  test('a subpath the route table refuses', () => {
    expect(() => buildApp({ ...skipBundling, userSubpath: 'Not/Valid' })).toThrow(/Subpath/);
  });
});

test('cdk-nag runs on every app buildApp makes: a non-compliant resource fails synth', () => {
  const { app, stack } = buildApp(skipBundling);
  new Bucket(stack, 'NonCompliant');
  expect(() => app.synth()).toThrow(/AwsSolutions-S1[^0-9]/);
});

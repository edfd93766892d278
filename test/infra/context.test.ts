import { App } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { buildApp } from '../../infra/cloud/build-app';
import { readSettings } from '../../infra/cloud/settings';
import { defaultSubpaths, resolveRoutes } from '../../shared/routes';
import { skipBundling, synthesize, type Synthesized } from './synth';

const custom = {
  ...skipBundling,
  generativeSubpath: 'gen-ai',
  userSubpath: 'admin',
  tokenIssuer: 'urn:example:issuer',
  // As `cdk synth -c key=value` passes them: strings.
  throttleRateLimit: '10',
  throttleBurstLimit: '20',
  accessTokenSeconds: '120',
  alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
  senderEmail: 'mail@example.org',
  signInUrl: 'https://console.example.org/{realm}/sign-in',
};

let synthesized: Synthesized;
beforeAll(() => {
  synthesized = synthesize(custom);
});

const routeKeys = () =>
  Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Route')).map((r) => r.Properties.RouteKey as string);
/** The environments of our functions (CDK's bucket-notifications handler has none). */
const environments = () =>
  Object.values(synthesized.template.findResources('AWS::Lambda::Function'))
    .filter((fn) => fn.Properties.Environment)
    .map((fn) => fn.Properties.Environment.Variables as Record<string, unknown>);

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
  for (const environment of environments()) {
    expect(environment).toMatchObject({ TOKEN_ISSUER: 'urn:example:issuer', ACCESS_TOKEN_SECONDS: '120' });
    expect(environment.REFRESH_TOKEN_SECONDS).toBeUndefined();
  }
  synthesized.template.hasOutput('TokenIssuer', { Value: 'urn:example:issuer' });
  synthesized.template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'mail@example.org' });
});

test('the sign-in address of e-mails comes from context, for the functions that send mail only', () => {
  const withSignIn = environments().filter((environment) => 'SIGN_IN_URL' in environment);
  expect(withSignIn).toHaveLength(2); // users and bulk-worker
  for (const environment of withSignIn) {
    expect(environment).toMatchObject({ SIGN_IN_URL: 'https://console.example.org/{realm}/sign-in', MAIL_FROM: 'mail@example.org' });
  }
});

test('throttling comes from context', () => {
  synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
    DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
  });
});

test('every alarm notifies the given topic', () => {
  const alarms = Object.values(synthesized.template.findResources('AWS::CloudWatch::Alarm'));
  expect(alarms.length).toBeGreaterThan(0);
  for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([custom.alarmTopicArn]);
});

test('the stack name comes from context', () => {
  expect(buildApp({ ...skipBundling, stackName: 'ManagementApiStaging' }).stack.stackName).toBe('ManagementApiStaging');
});

describe('invalid context fails synth with the key named', () => {
  const settingsOf = (context: Record<string, unknown>) => () => readSettings(new App({ context }).node);

  test.each([
    [{ throttleRateLimit: 'fast' }, /throttleRateLimit/],
    [{ throttleBurstLimit: 0 }, /throttleBurstLimit/],
    [{ senderEmail: 'nobody' }, /senderEmail/],
    [{ logLevel: 'LOUD' }, /logLevel/],
    [{ sessionMaxSeconds: '1.5' }, /sessionMaxSeconds/],
  ])('%j', (context, message) => {
    expect(settingsOf(context)).toThrow(message);
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

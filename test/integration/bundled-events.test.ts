import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envNames } from '../../shared/kernel/config';
import { groupAccess } from '../../infra/cloud/group-access';
import { catalogue } from '../../shared/edge/api/catalogue';
import { resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { bundledFunctions, deployedEnvVars, readAssembly, writeLocalSam, type Assembly, type BundledFunction, type LocalSam } from '../../scripts/sam-env';
import { eventIds, eventsDir, fillEvent, isTriggerEvent, localStack, unfilledPlaceholders } from '../../scripts/sam-event';
import { bundledAssembly } from '../support/bundled-assembly';
import { invokeBundle, samEnvironment, type EnvVarsFile, type Outcome } from '../support/sam-invoke';

/**
 * What `sam local invoke` runs, without Docker: each function's bundle from a cloud assembly synthesized
 * with bundling (the asset `aws:asset:path` names), given what SAM would give it from the files
 * `npm run sam:env -- --local` writes, invoked with each `events/*.json` as `npm run sam:event` fills it
 * for the test's local stack.
 */

/** The status each event's replay answers; an S3 event's function answers nothing (undefined). */
const expectedStatus: Record<string, number | undefined> = {
  // The sign-in page of a well-formed request from a loopback client.
  'auth.authorize': 200,
  // A file cannot hold a live sign-in request: the page says it expired.
  'auth.authenticate': 400,
  // A state no brokered sign-in sent: the error page, never a redirect.
  'auth.broker': 400,
  // Nor can it hold a live link confirmation (and its browser's cookie): the page says it expired.
  'auth.firstBrokerLogin': 400,
  'auth.token': 200,
  'auth.deviceAuthorization': 200,
  // The page, its form filled from the query.
  'auth.device': 200,
  // A code no device asked for: the form again, saying so.
  'auth.deviceCode': 200,
  // No sign-in cookie (a file cannot hold one): the page says the sign-in expired.
  'auth.deviceCallback': 400,
  // Nor the cookie of the decision's sign-in: refused as forged.
  'auth.deviceDecision': 403,
  'auth.certs': 200,
  'auth.discovery': 200,
  'auth.userinfo': 200,
  'auth.userinfoPost': 200,
  // RFC 7009: a token the realm never issued is revoked without complaint.
  'auth.revoke': 200,
  // sam:event has no refresh token to give, and the access token in its place is refused.
  'auth.logout': 400,
  // No hint (a file cannot hold an ID token): nothing to end, back to the loopback application.
  'auth.endSession': 302,
  'auth.thirdPartyCookies': 200,
  // No page session: on to the realm's sign-in.
  'auth.account': 303,
  // On to the realm's sign-in, the e-mail as its login_hint.
  'auth.accountSignIn': 303,
  // No page session (a file cannot hold one): back to the page, which asks to sign in.
  'auth.accountPassword': 303,
  'auth.accountSignOut': 303,
  // A code no sign-in issued: the page, saying the sign-in did not succeed.
  'auth.accountSso': 200,
  // No page session either: back to the page.
  'auth.accountRevokeOfflineToken': 303,
  'docs.root': 302,
  'docs.openapi': 200,
  'docs.ui': 200,
  // swagger-ui-bundle.js: read from the package files the stack copies beside the bundle.
  'docs.asset': 200,
  'users.identityProvider': 200,
  'users.list': 200,
  'users.quicksearch': 200,
  'users.create': 200,
  'users.activate': 200,
  'users.get': 200,
  'users.update': 200,
  'users.delete': 204,
  'users.bruteForce': 200,
  'users.clearBruteForce': 204,
  'users.offlineSessions': 200,
  'users.revokeOfflineSession': 204,
  // The user sam:event makes has never signed in at a provider: no link to remove.
  'users.removeIdentityProviderLink': 404,
  'users.auditEvents': 200,
  'events.feed': 200,
  'bulk.create': 200,
  'bulk.upload': 201,
  'bulk.job': 200,
  'bulk.failedRows': 200,
  'bulk.delete': 200,
  'bulk.grant': 200,
  'bulk.revoke': 200,
  // The job sam:event makes has not failed, so there is nothing to retry: the function reads it and refuses.
  'bulk.retry': 409,
  // Nor any welcome e-mail to send again (a dry run sends none).
  'bulk.welcomes': 409,
  'configurations.save': 200,
  'configurations.list': 200,
  'configurations.has': 200,
  'configurations.listOfBot': 200,
  'configurations.hasOfBot': 200,
  'supervisors.list': 200,
  'supervisors.default': 200,
  'supervisors.get': 200,
  'supervisors.update': 200,
  'supervisors.revisions': 200,
  'supervisors.revision': 200,
  'supervisors.revisionDiff': 200,
  'supervisors.restore': 200,
  'agents.list': 200,
  'agents.quicksearch': 200,
  'agents.create': 201,
  'agents.get': 200,
  'agents.update': 200,
  'agents.revisions': 200,
  'agents.revision': 200,
  'agents.revisionDiff': 200,
  'agents.restore': 200,
  'bundles.export': 200,
  'bundles.plan': 200,
  'bundles.apply': 200,
  'scim.createToken': 201,
  'scim.listTokens': 200,
  'scim.revokeToken': 204,
  'scim.serviceProviderConfig': 200,
  'scim.resourceTypes': 200,
  'scim.schemas': 200,
  'scim.schema': 200,
  'scim.resourceType': 200,
  'scim.createUser': 201,
  'scim.searchUsers': 200,
  'scim.getUser': 200,
  'scim.replaceUser': 200,
  'scim.patchUser': 200,
  'scim.deleteUser': 204,
  'webhooks.create': 201,
  'webhooks.list': 200,
  'webhooks.get': 200,
  'webhooks.update': 200,
  'webhooks.delete': 204,
  'webhooks.rotate': 200,
  'webhooks.deliveries': 200,
  'webhooks.redeliver': 202,
  'webhooks.test': 202,
  'identityProviders.create': 201,
  'identityProviders.list': 200,
  'identityProviders.get': 200,
  'identityProviders.update': 200,
  'identityProviders.delete': 204,
  'bulk-worker.s3-put': undefined,
  'publisher.dynamodb-insert': undefined,
  'mail.sqs-reactivation': undefined,
};

const groupOf = (id: string) => (isTriggerEvent(id) ? id.split('.')[0] : catalogue.find((route) => route.id === id)?.group);

let outDir: string;
/** The assembly this file synthesized itself, when the run shares none. */
let ownAssembly: string | undefined;
let assembly: Assembly;
let functions: BundledFunction[];
let local: LocalSam;
/** Each event's replay: what its function answered and printed, or why it could not be filled or run. */
const replays = new Map<string, { event: unknown; outcome: Outcome; output: string } | { failure: string }>();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** fetch's own failure (no answer at all), as opposed to an answer the fill did not expect. */
const isNetworkFailure = (error: unknown) => (error as Error | undefined)?.message === 'fetch failed';
/** An error's message and, for fetch's own failure, its cause (jest's realm defeats `instanceof` here). */
const described = (error: unknown) => {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return `${String(error)}${cause ? ` (${String(cause)})` : ''}`;
};

/** Fills every event (a few at a time: each may create a user or a job), then runs each function once on all of its events. */
async function replayEvents(): Promise<void> {
  const ids = Object.keys(expectedStatus);
  const filled = new Map<string, unknown>();
  const pending = [...ids];
  const fillNext = async (): Promise<void> => {
    for (let id = pending.shift(); id; id = pending.shift()) {
      // A fill makes its own users and jobs (unique names), so one that lost its connection on a loaded
      // machine is filled again from the start.
      const fill = () => fillEvent(id!, localStack(process.env.TEST_STACK_DIR!));
      await fill()
        .catch(async (error: unknown) => (isNetworkFailure(error) ? pause(2_000).then(fill) : Promise.reject(error)))
        .then(
          ({ event }) => filled.set(id!, event),
          (error: unknown) => replays.set(id!, { failure: `sam:event could not fill it: ${described(error)}` }),
        );
    }
  };
  await Promise.all(Array.from({ length: 6 }, fillNext));
  const template = JSON.parse(readFileSync(local.templateFile, 'utf8')) as Assembly['template'];
  const envVars = JSON.parse(readFileSync(local.envFile, 'utf8')) as EnvVarsFile;
  await Promise.all(
    functions.map(async (fn) => {
      const mine = ids.filter((id) => groupOf(id) === fn.group && filled.has(id));
      const events = mine.map((id) => filled.get(id));
      try {
        const { outcomes, output } = await invokeBundle(local.codeDirs[fn.logicalId]!, samEnvironment(template, fn.logicalId, envVars), events);
        mine.forEach((id, index) => replays.set(id, { event: events[index], outcome: outcomes[index]!, output }));
      } catch (error) {
        for (const id of mine) replays.set(id, { failure: String(error) });
      }
    }),
  );
}

beforeAll(async () => {
  // Outside the project, as /var/task is: no package.json above the bundle makes it an ES module.
  outDir = mkdtempSync(join(tmpdir(), 'bundled-events-'));
  // As the CDK CLI synthesizes: with the asset metadata SAM (and this test) find each bundle by; the run's one bundled synthesis.
  const synthesized = await bundledAssembly();
  if (!synthesized.shared) ownAssembly = synthesized.dir;
  assembly = readAssembly(synthesized.dir);
  functions = bundledFunctions(assembly);
  expect(functions).toHaveLength(resourceGroups.length);
  local = writeLocalSam(assembly, { dataDir: process.env.TEST_STACK_DIR!, outDir: join(outDir, 'sam'), host: '127.0.0.1' });
  await replayEvents();
}, 240_000);

afterAll(() => {
  for (const dir of [outDir, ownAssembly]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test('every event has an expected status, and every function a bundled asset', () => {
  expect(eventIds().sort()).toEqual(Object.keys(expectedStatus).sort());
  expect(functions.map((fn) => fn.group).sort()).toEqual([...new Set(eventIds().map(groupOf))].sort());
  for (const fn of functions) expect(readFileSync(join(local.codeDirs[fn.logicalId]!, 'index.js'))).toEqual(readFileSync(join(fn.assetDir, 'index.js')));
});

test('sam:env --outputs gives every expression of the template a deployed value, from the outputs', () => {
  const outputs = Object.fromEntries(Object.keys(assembly.template.Outputs ?? {}).map((key) => [key, `deployed-${key}`]));
  const { envVars, unresolved } = deployedEnvVars(assembly, outputs);
  const stackValues = {
    [envNames.tableName]: outputs.TableName,
    [envNames.userPoolId]: outputs.UserPoolId,
    [envNames.userPoolClientId]: outputs.UserPoolClientId,
    [envNames.signingKey]: `kms:${outputs.SigningKeyArn}`,
    [envNames.tokenIssuer]: outputs.TokenIssuer,
  };
  for (const fn of functions) {
    // A group that reads no data (the API reference) is given none of the stack's resources, only the
    // console client's id when it signs people in as that client.
    const access = groupAccess[fn.group as ResourceGroup];
    if (access?.noData) {
      const given = Object.keys(envVars[fn.logicalId]!).filter((name) => name in stackValues);
      expect(given).toEqual(access.namesConsoleClient ? [envNames.userPoolClientId] : []);
      if (access.namesConsoleClient) expect(envVars[fn.logicalId]![envNames.userPoolClientId]).toBe(outputs.UserPoolClientId);
    } else expect(envVars[fn.logicalId]).toMatchObject(stackValues);
  }
  // The SES configuration set's name is the one value no output gives today.
  expect(unresolved.filter((name) => !name.endsWith(`.${envNames.sesConfigurationSet}`))).toEqual([]);
});

test.each(Object.keys(expectedStatus))('events/%s.json, filled for the local stack, runs in its bundled function with the status it expects', (id) => {
  const replay = replays.get(id);
  if (!replay || 'failure' in replay) throw new Error(replay?.failure ?? 'not replayed: its function has no bundle');
  expect(unfilledPlaceholders(readFileSync(join(eventsDir, `${id}.json`), 'utf8'), JSON.stringify(replay.event))).toEqual([]);
  if (!replay.outcome.ok) throw new Error(`The function failed: ${JSON.stringify(replay.outcome.error)}\n${replay.output}`);
  expect((replay.outcome.result as { statusCode?: number } | undefined)?.statusCode).toBe(expectedStatus[id]);
});

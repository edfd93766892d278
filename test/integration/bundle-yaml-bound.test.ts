import { stringify } from 'yaml';
import { yamlBundleLimits } from '../../shared/app/bundles/bundle.limits';
import { adminApi, botUrl, freshBot, userWithGrants, type Api, type FreshBot } from '../support/bot-helpers';
import { expectError } from '../support/error-body';

/**
 * YAML bodies of `…/bundle/plan` and `…/bundle/apply` have bounds of their own, below the 6 MB a JSON
 * body takes: over 1 MiB, or holding more keys and values than any bundle of that size, a 413
 * `BODY_TOO_LARGE` that says to send JSON; collections nested deeper, or more aliases, than any bundle
 * has, a 400. A bundle within them is read as before, and a refused one changes nothing.
 */

const admin = adminApi();
let bot: FreshBot;
let viewer: Api;
beforeAll(async () => {
  bot = await freshBot();
  viewer = (await userWithGrants('VIEWER', [{ environmentUuid: bot.envUuid, botUuid: bot.botUuid }])).api;
});

const bundleUrl = (path = '') => botUrl(bot, `/bundle${path}`);
const yaml = (type = 'application/yaml') => ({ 'content-type': type });

/** A valid bundle of agents with long instructions, as many as keep its YAML within `maxBytes` (or just past it). */
function bundleOfSize(maxBytes: number, past = false) {
  const agents: Record<string, unknown>[] = [];
  const bundle = { formatVersion: 1, supervisors: [], agents };
  const agent = (i: number) => ({
    role: `Bound agent ${String(i).padStart(3, '0')}`,
    goal: 'Answer within the bound',
    instructions: Array.from({ length: 1900 }, (_, word) => `step${word}`).join(' ').slice(0, 19_000),
    persona: { name: 'Test guide' },
    inheritFromSupervisor: true,
  });
  while (Buffer.byteLength(stringify(bundle, { lineWidth: 0 })) <= maxBytes) agents.push(agent(agents.length));
  if (!past) agents.pop();
  return { bundle, text: stringify(bundle, { lineWidth: 0 }) };
}

const exportEtag = async () => (await admin.get(bundleUrl())).headers.get('etag');

test('a YAML body over 1 MiB is a 413 BODY_TOO_LARGE for a VIEWER’s plan and an apply, whatever its YAML type; the same bundle as JSON plans; nothing changes', async () => {
  const { bundle, text } = bundleOfSize(yamlBundleLimits.bytes, true);
  expect(Buffer.byteLength(text)).toBeGreaterThan(yamlBundleLimits.bytes);
  const before = await exportEtag();

  const refusals = [
    await viewer.post(bundleUrl('/plan'), text, yaml()),
    await viewer.post(bundleUrl('/plan'), text, yaml('application/x-yaml')),
    await admin.post(bundleUrl('/apply'), text, yaml('text/yaml')),
  ];
  const asJson = await viewer.post<{ changes: { action: string }[] }>(bundleUrl('/plan'), bundle);

  for (const refused of refusals) {
    const body = expectError(refused, 413, 'BODY_TOO_LARGE');
    expect(body.message).toBe(
      `The YAML bundle is ${Buffer.byteLength(text).toLocaleString('en-US')} bytes; a YAML body takes at most 1,048,576 bytes (1 MiB): ` +
        'send it as JSON (Content-Type: application/json, what GET …/bundle answers without Accept: application/yaml), which takes up to 6 MB',
    );
  }
  expect(asJson.status).toBe(200);
  expect(asJson.body.changes.filter((change) => change.action === 'create')).toHaveLength(bundle.agents.length);
  expect(await exportEtag()).toBe(before);
});

test('a YAML bundle just within 1 MiB is read and planned as its JSON is', async () => {
  const { bundle, text } = bundleOfSize(yamlBundleLimits.bytes);
  expect(Buffer.byteLength(text)).toBeGreaterThan(yamlBundleLimits.bytes - 25_000);

  const planned = await viewer.post<{ changes: { role: string; action: string }[] }>(bundleUrl('/plan'), text, yaml());
  const asJson = await viewer.post<{ changes: { role: string; action: string }[] }>(bundleUrl('/plan'), bundle);

  expect(planned.status).toBe(200);
  expect(planned.body.changes).toEqual(asJson.body.changes);
});

test('more keys and values than any bundle of 1 MiB holds is a 413, before the whole text is read', async () => {
  const keys = Array.from({ length: yamlBundleLimits.scalars / 2 + 1 }, (_, i) => `k${i.toString(36)}: 1`);
  const text = `formatVersion: 1\nx: {${keys.join(', ')}}\n`;
  expect(Buffer.byteLength(text)).toBeLessThan(yamlBundleLimits.bytes);

  const body = expectError(await viewer.post(bundleUrl('/plan'), text, yaml()), 413, 'BODY_TOO_LARGE');

  expect(body.message).toMatch(/^The YAML bundle holds more than 200,000 keys and values, more than any bundle of 1,048,576 bytes: send it as JSON/);
});

test.each([
  ['collections nested deeper than any bundle', `formatVersion: 1\nagents: ${'['.repeat(40)}${']'.repeat(40)}\n`, /^The YAML bundle nests collections more than 32 deep \(line 2, column \d+\)/],
  ['sequences nested on one line', `formatVersion: 1\nagents:\n  ${'- '.repeat(40)}x\n`, /^The YAML bundle nests collections more than 32 deep \(line 3, column \d+\)/],
  ['more aliases than any bundle', `formatVersion: 1\nanchor: &a x\nagents: [${Array(101).fill('*a').join(', ')}]\n`, /^The YAML bundle has more than 100 aliases \(line 3, column \d+\)/],
  ['a key given twice', 'formatVersion: 1\nagents: []\nsupervisors: []\nagents: []\n', /^The YAML bundle gives the key "agents" twice \(line 4, column 1\)/],
  ['text that is not YAML', 'formatVersion: 1\nagents: [unclosed', /^The bundle is not valid YAML \(line 2, column 18\)/],
])('%s is a 400 MALFORMED_BUNDLE naming where', async (_label, text, message) => {
  const body = expectError(await viewer.post(bundleUrl('/plan'), text, yaml()), 400, 'MALFORMED_BUNDLE');

  expect(body.message).toMatch(message);
  expect(body.message).toMatch(/: send what GET …\/bundle answers, with its Content-Type$/);
});

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { skipBundling, synthesize } from './synth';

/**
 * One Node major from laptop to Lambda: the tests run on the Node the functions deploy on, so a
 * language or library feature that passes here is one Lambda has.
 */
const projectRoot = path.join(__dirname, '..', '..');
const runtimes: { id: string; runtime: string }[] = [];
beforeAll(() => {
  const functions = synthesize(skipBundling).template.findResources('AWS::Lambda::Function');
  for (const [id, resource] of Object.entries(functions)) runtimes.push({ id, runtime: String(resource.Properties.Runtime) });
});

const testsMajor = process.versions.node.split('.')[0]!;
const nodeRuntimes = () => runtimes.filter(({ runtime }) => runtime.startsWith('nodejs'));

test('every Node.js function of the template runs the major of the Node running these tests', () => {
  const expected = `nodejs${testsMajor}.x`;
  const others = nodeRuntimes().filter(({ runtime }) => runtime !== expected);
  if (others.length > 0) {
    throw new Error(
      `The tests run on Node ${process.versions.node} and ${others.length} functions on ${[...new Set(others.map(({ runtime }) => runtime))].join(', ')}: ` +
        'run them through npm (npm test, npm run jest -- <files>), which switches to the Node of .nvmrc, ' +
        'or move .nvmrc, engines, the node-* optional dependencies and the runtime in infra/cloud/service-function.ts together.',
    );
  }
  expect(nodeRuntimes().length).toBeGreaterThan(0);
});

test("the only other runtime is CDK's own bucket-notifications handler, in Python", () => {
  const others = runtimes.filter(({ runtime }) => !runtime.startsWith('nodejs'));
  expect(others).toEqual([{ id: expect.stringMatching(/^BucketNotificationsHandler/), runtime: expect.stringMatching(/^python3\.\d+$/) }]);
});

test('.nvmrc and package.json engines name the major the functions deploy on', () => {
  const deployed = new Set(nodeRuntimes().map(({ runtime }) => runtime));
  const nvmrc = readFileSync(path.join(projectRoot, '.nvmrc'), 'utf8').trim();
  const engines = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  expect([...deployed]).toEqual([`nodejs${nvmrc}.x`]);
  expect(engines).toBe(`>=${nvmrc} <${Number(nvmrc) + 1}`);
});

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { skipBundling, synthesize } from './synth';

/**
 * cfn-lint (the synthesized template passes with no errors) on the templates of the
 * default context and of the context values that add, drop or swap resources. Bundling is skipped:
 * it changes only asset hashes, which cfn-lint does not look at. The templates are written to a
 * directory of our own (CDK deletes its temporary assembly directory when the process exits).
 */
const variants: Record<string, Record<string, unknown>> = {
  default: {},
  'imported domain identity, alarm e-mail, no reserved worker concurrency, reserved bulk concurrency, token lifetimes': {
    deploy: 'true',
    stackName: 'ManagementApiStaging',
    senderEmail: 'no-reply@mail.example.net',
    importSenderIdentity: 'mail.example.net',
    alarmEmail: 'oncall@example.net',
    workerConcurrency: 'none',
    bulkConcurrency: '3',
    accessTokenSeconds: '120',
    refreshTokenSeconds: '900',
    sessionMaxSeconds: '7200',
  },
  'existing alarm topic, custom subpaths, issuer, sign-in address and throttling': {
    alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
    generativeSubpath: 'gen-ai',
    userSubpath: 'admin',
    tokenIssuer: 'urn:example:issuer',
    signInUrl: 'https://console.example.org/{realm}/sign-in',
    throttleTokenRate: '3',
    throttleUsersBurst: '7',
    logLevel: 'DEBUG',
  },
};

/**
 * Rules left out, each with the reason. Nothing else may be reported, not even a warning.
 * W3005 "dependency already enforced by a GetAtt": CDK itself gives every Lambda function a
 * `DependsOn` its role (and the role's default policy), so that the policy exists before the first
 * invocation; the redundant role entry is CDK's, harmless, and not ours to strip by escape hatch.
 */
const ignoredChecks = ['W3005'];

/** Lint regions: cfn-lint's default and one more, for region-specific resource availability. */
const regions = ['us-east-1', 'eu-west-1'];

interface Run {
  status: number;
  output: string;
}

function cfnLint(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile('cfn-lint', args, { cwd, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new Error('cfn-lint is not on PATH: install it (`pip install cfn-lint`) to run the infrastructure tests'));
      } else if (error && error.killed) {
        reject(new Error(`cfn-lint did not finish within 90 s (${error.signal ?? 'killed'}):\n${output}`));
      } else {
        resolve({ status: typeof error?.code === 'number' ? error.code : 0, output });
      }
    });
  });
}

// 90 s: three templates take about 10 s of CPU, but these machines are shared; jest allows a hook 120 s.
let dir: string;
const files: Record<string, string> = {};
let run: Run;
/** One cfn-lint run over every template: its start-up (about 2 s of CPU) is most of the cost of each. */
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cfn-lint-'));
  Object.keys(variants).forEach((name, index) => {
    files[name] = path.join(dir, `template-${index}.json`);
    writeFileSync(files[name], JSON.stringify(synthesize({ ...skipBundling, ...variants[name] }).template.toJSON(), null, 1));
  });
  // Run in the temporary directory: no stray .cfnlintrc can add templates or drop rules.
  run = await cfnLint(['--format', 'parseable', '--ignore-checks', ...ignoredChecks, '--regions', ...regions, '--', ...Object.values(files)], dir);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Parseable format: `<file>:<line>:<column>:<end line>:<end column>:<rule>:<message>`, one a line. */
const findings = () => run.output.split('\n').filter(Boolean);

test.each(Object.keys(variants))('cfn-lint reports nothing on the template (%s)', (name) => {
  expect(findings().filter((line) => line.startsWith(`${files[name]}:`))).toEqual([]);
});

test('cfn-lint exits 0 and reports nothing at all', () => {
  // Exit status: bit 2 errors, 4 warnings, 8 informational (a failure of its own, 1, also shows here).
  expect({ status: run.status, findings: findings() }).toEqual({ status: 0, findings: [] });
});

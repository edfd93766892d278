import { Template } from 'aws-cdk-lib/assertions';
import type { CfnElement } from 'aws-cdk-lib';
import { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { buildApp } from '../../infra/cloud/build-app';
import type { ManagementApiStack } from '../../infra/cloud/management-api-stack';
import { bundledAssembly, cliContext } from '../support/bundled-assembly';

/** Context that skips esbuild bundling, for tests that only look at wiring. */
export const skipBundling = { 'aws:cdk:bundling-stacks': [] };

export interface Violation {
  ruleName: string;
  severity: string;
  violatingConstructs: { constructPath: string }[];
}

export interface Synthesized {
  stack: ManagementApiStack;
  template: Template;
  assemblyDir: string;
  /** Every finding of every validation plugin (cdk-nag, CloudFormation validate) left unacknowledged. */
  violations: Violation[];
  /** Warnings and errors CDK itself attached to constructs (deprecated APIs, invalid settings). */
  cdkMessages: { level: string; id: string; entry: { data?: unknown } }[];
  logicalId: (element: CfnElement) => string;
}

/**
 * Builds and synthesizes the app as `cdk synth` does (cdk-nag included: synth throws on any
 * unacknowledged finding) and reads the template from the cloud assembly.
 */
export function synthesize(context: Record<string, unknown> = {}): Synthesized {
  const { app, stack } = buildApp(context);
  return read(stack, app.synth());
}

/**
 * The stack as `cdk synth` makes it, esbuild bundles included, read from the run's bundled assembly
 * (`bundledAssembly`: synthesized once per run); the construct tree, for logical ids, built anew
 * without bundling, which names every construct as the synthesized one does. `remove` removes an
 * assembly the run does not share.
 */
export async function synthesizeBundled(): Promise<{ synthesized: Synthesized; remove: () => void }> {
  const { dir, shared } = await bundledAssembly();
  const { stack } = buildApp({ ...skipBundling, ...cliContext });
  const remove = () => {
    if (!shared) rmSync(dir, { recursive: true, force: true });
  };
  return { synthesized: read(stack, new CloudAssembly(dir)), remove };
}

function read(stack: ManagementApiStack, assembly: CloudAssembly): Synthesized {
  const report = JSON.parse(readFileSync(path.join(assembly.directory, 'validation-report.json'), 'utf8')) as {
    pluginReports: { violations: Violation[] }[];
  };
  const artifact = assembly.getStackArtifact(stack.artifactId);
  return {
    stack,
    template: Template.fromJSON(artifact.template as Record<string, unknown>),
    assemblyDir: assembly.directory,
    violations: report.pluginReports.flatMap((plugin) => plugin.violations),
    cdkMessages: artifact.messages.filter((message) => message.level !== 'info'),
    logicalId: (element) => stack.resolve(stack.getLogicalId(element)) as string,
  };
}

type Intrinsic = string | { Ref: string } | { 'Fn::GetAtt': [string, string] } | { 'Fn::Join': [string, unknown[]] };

/**
 * Turns a CloudFormation value into a plausible deployed string (`Ref` → `<id>`, `GetAtt` →
 * `<id>.<attr>`), so environment variables can be fed to the code that reads them.
 */
export function resolveIntrinsic(value: unknown): string {
  const v = value as Intrinsic;
  if (typeof v === 'string') return v;
  if ('Ref' in v) return `<${v.Ref}>`;
  if ('Fn::GetAtt' in v) return `<${v['Fn::GetAtt'][0]}.${v['Fn::GetAtt'][1]}>`;
  if ('Fn::Join' in v) return v['Fn::Join'][1].map(resolveIntrinsic).join(v['Fn::Join'][0]);
  throw new Error(`Unexpected CloudFormation value ${JSON.stringify(value)}`);
}

export interface PolicyStatementJson {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** The statements of every IAM policy attached to the given role logical id. */
export function statementsOfRole(template: Template, roleId: string): PolicyStatementJson[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatementJson[]);
}

export const actionsOf = (statement: PolicyStatementJson): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

export const resourcesOf = (statement: PolicyStatementJson): unknown[] =>
  Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];

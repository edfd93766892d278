import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ManagementApiStack } from './management-api-stack';
import { projectRoot } from './project-root';
import { readSettings } from './settings';

/**
 * Builds the CDK app with its one stack and cdk-nag's AwsSolutions checks. cdk.json's context (the
 * feature flags) comes first, so tests that call this without the CLI synthesize the same template.
 */
export function buildApp(context: Record<string, unknown> = {}): { app: App; stack: ManagementApiStack } {
  const cdkJson = JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as { context?: object };
  const app = new App({ context: { ...cdkJson.context, ...context } });
  // cdk-nag 3 is a policy-validation plugin: findings fail synth (errors) or are reported (warnings).
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  const settings = readSettings(app.node);
  const stack = new ManagementApiStack(app, settings.stackName, {
    settings,
    description: 'Agent platform management API: HTTP API, functions, table, user pool, mail, signing key',
  });
  return { app, stack };
}

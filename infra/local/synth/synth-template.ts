import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { buildApp } from '../../cloud/build-app';
import { templateDeployment } from '../template/template-deployment';
import { templatePolicies } from '../template/template-policies';
import type { CfnTemplate } from '../template/cfn';
import type { TemplateExtract } from './template-source';

/** Child process of `template-source.ts`: synthesizes the CDK app as `cdk synth` does, minus bundling, and writes the extract to its argument. */
const out = process.argv[2];
if (!out) throw new Error('usage: synth-template.ts <output file>');
// Each resource's construct path (`aws:cdk:path`, which the CLI asks for too) names the local queues.
const { app, stack } = buildApp({ 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true });
const assembly = app.synth();
const template = assembly.getStackArtifact(stack.artifactId).template as CfnTemplate;
rmSync(assembly.directory, { recursive: true, force: true });
const extract: TemplateExtract = { policies: templatePolicies(template, stack.stackName), deployment: templateDeployment(template, stack.stackName) };
const temporary = `${out}.${process.pid}.tmp`;
writeFileSync(temporary, JSON.stringify(extract));
renameSync(temporary, out);

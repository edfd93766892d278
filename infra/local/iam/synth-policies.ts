import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { buildApp } from '../../cloud/build-app';
import { templatePolicies, type CfnTemplate } from './template-policies';

/**
 * Child process of `policy-source.ts`: synthesizes the CDK app as `cdk synth` does, minus esbuild
 * bundling, and writes each function's role statements to the file named by its argument.
 */
const out = process.argv[2];
if (!out) throw new Error('usage: synth-policies.ts <output file>');
const { app, stack } = buildApp({ 'aws:cdk:bundling-stacks': [] });
const assembly = app.synth();
const template = assembly.getStackArtifact(stack.artifactId).template as CfnTemplate;
rmSync(assembly.directory, { recursive: true, force: true });
const temporary = `${out}.${process.pid}.tmp`;
writeFileSync(temporary, JSON.stringify(templatePolicies(template, stack.stackName)));
renameSync(temporary, out);

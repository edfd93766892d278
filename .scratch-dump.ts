import { writeFileSync } from 'node:fs';
import { buildApp } from './infra/cloud/build-app';
const { app, stack } = buildApp(JSON.parse(process.argv[2] ?? '{}'));
const asm = app.synth();
const art = asm.getStackArtifact(stack.artifactId);
writeFileSync('/tmp/scratch/template.json', JSON.stringify(art.template, null, 1));
console.log('messages', JSON.stringify(art.messages, null, 1));

import { Validations } from 'aws-cdk-lib';
const original = Validations.prototype.acknowledge;
const acks: string[] = [];
(Validations.prototype as any).acknowledge = function (this: any, ...rules: any[]) {
  for (const r of rules) acks.push(`${this.scope.node.path}  ${r.id}`);
};
import { buildApp } from './infra/cloud/build-app';
const { app } = buildApp(JSON.parse(process.argv[2] ?? '{}'));
try { app.synth(); console.log('no findings'); } catch (e) { console.log('ERR', (e as Error).message.split('\n').filter(l => /AwsSolutions|ERROR|WARN|^\s+\S+\/\S+ aws-cdk/.test(l)).join('\n')); }
console.log(acks.join('\n'));
void original;

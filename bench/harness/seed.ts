/**
 * A benchmark's data: organizations and bots of realistic agents made through the product's services,
 * and the product's own items written straight into the table where its API would write them one by
 * one, and slowly.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { documentClient } from '../../shared/adapters/clients/dynamodb';
import { config } from '../../shared/kernel/config';
import { agentCreateSchema } from '../../shared/domain/agents/agent.schemas';
import { createAgent } from '../../shared/domain/agents/agent-write.service';
import { operatorScope } from '../../shared/domain/agents/bot-scope';
import { eachLimited } from '../../shared/kernel/retry';
import { addBot, addCollection, addEnvironment, addFunction, addPersona, addSupervisor, createOrganization } from '../../shared/app/operator/operator.service';
import { accessToken, type RunningStack } from './stack';

type Item = Record<string, unknown>;
const BATCH = 25;

/** Puts every item (no two with the same key) with `inFlight` BatchWriteItem requests at a time; returns the requests sent. */
export async function putAll(items: Item[], inFlight = 16): Promise<number> {
  const TableName = config().tableName;
  let next = 0;
  let requests = 0;
  const lane = async () => {
    while (next < items.length) {
      let pending = items.slice(next, (next += BATCH)).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
        requests++;
        const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [TableName]: pending } }));
        pending = (out.UnprocessedItems?.[TableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return requests;
}

/** An organization made as an operator makes one (its ADMIN in Cognito), with one environment and one bot. */
export async function seedOrganization(name: string) {
  const admin = { email: `admin@${name}.example`, password: 'Bench-Admin-1' };
  const { organization, admin: user } = await createOrganization({ name, adminEmail: admin.email, adminName: 'Bea Bench', adminPassword: admin.password });
  const environment = await addEnvironment(organization.uuid, 'Production');
  const bot = await addBot(organization.uuid, environment.uuid, 'Support bot');
  return { uuid: organization.uuid, name, admin: { ...admin, uuid: user.uuid }, environment, bot, permission: { environmentUuid: environment.uuid, botUuid: bot.uuid } };
}
export type SeededOrganization = Awaited<ReturnType<typeof seedOrganization>>;

export const TOPICS = ['billing', 'shipping', 'returns', 'warranty claims', 'account security', 'product advice', 'loyalty points', 'gift cards', 'subscriptions'];
const TAGS = ['#billing', '#orders', '#returns', '#support', '#sales', '#vip', '#b2b', '#faq', '#escalation', '#loyalty', '#stores', '#tech'];
export const instructions = (topic: string) =>
  `You handle every question about ${topic}. Greet the customer by name when it is known, then restate the question in one sentence. ` +
  `Look up the facts with the functions you have before answering, and quote order numbers, dates and amounts exactly. Keep answers ` +
  `to three sentences, then offer one follow-up. When the customer is upset, acknowledge it once and move on to a next step. If a ` +
  `question about ${topic} needs a decision you cannot make, explain why and hand over to a person with a summary of the conversation.`;

/**
 * In the stack's first organization, a new environment and bot with 2 personas, 4 functions, 2
 * collections, a default supervisor and `count` agents (`createAgent`, 8 at a time; `seedMs`), every
 * bot's resources of the same names; with the ADMIN's token and the bot's API address.
 */
export async function seedBot({ info }: RunningStack, count: number, environmentName = 'Benchmark') {
  const [org, started] = [info.orgs[0]!, performance.now()];
  const environment = await addEnvironment(org.uuid, environmentName);
  const bot = await addBot(org.uuid, environment.uuid, `Benchmark bot (${count} agents)`);
  const styles = ['EMPATHETIC_AND_HELPFUL', 'CONCISE_AND_PROFESSIONAL'] as const;
  const personas = await Promise.all(styles.map((style, i) => addPersona(bot.uuid, { name: `Persona ${i}`, backstory: 'Years of care.', personality: 'Warm', communicationStyle: style })));
  const functions = await Promise.all(['lookupOrder', 'createTicket', 'checkStock', 'refundPayment'].map((name) => addFunction(bot.uuid, name)));
  const collections = await Promise.all(['Product manuals', 'Policies'].map((name, i) => addCollection(bot.uuid, { name, description: name, documentCount: 7 + 35 * i })));
  await addSupervisor(bot.uuid, { role: 'Supervisor', goal: 'Route each conversation to the right agent', personaUuid: personas[0]!.uuid, isDefault: true });
  const agentUuids = new Array<string>(count);
  await eachLimited([...agentUuids.keys()], 8, async (i) => {
    const topic = TOPICS[i % TOPICS.length]!;
    const body = agentCreateSchema.parse({
      role: `Agent ${String(i + 1).padStart(4, '0')}: ${topic} specialist`,
      goal: `Answer customer questions about ${topic} accurately and hand over to a person when asked.`,
      instructions: instructions(topic),
      guardrails: 'Never share personal data of other customers. Never promise refunds the functions did not confirm.',
      persona: { uuid: personas[i % 2]!.uuid },
      inheritFromSupervisor: i % 3 !== 0,
      constraints: [{ value: `Confirm the customer's identity before discussing ${topic}` }, { value: 'Answer in the language of the customer' }],
      tags: [{ name: TAGS[i % TAGS.length]! }, { name: TAGS[(i + 5) % TAGS.length]! }],
      parameters: { maximumTokens: 1024, requestTimeout: 30_000, temperature: 0.2 + (i % 5) / 10, topP: 0.9, presencePenalty: 0, frequencyPenalty: 0.1 },
      functions: [{ uuid: functions[i % 4]!.uuid }, { uuid: functions[(i + 1) % 4]!.uuid }],
      knowledge: [{ uuid: collections[i % 2]!.uuid }],
    });
    agentUuids[i] = (await createAgent(operatorScope(bot), body)).record.uuid;
  });
  const base = `${info.apiUrl}/${info.generativeSubpath}/org/${org.uuid}/env/${environment.uuid}/bot/${bot.uuid}`;
  return { org, seedMs: performance.now() - started, environment, bot, agentUuids, base, token: await accessToken(info, org) };
}

/** Organizations and bots made through the product's services, and users written straight into the table as the product stores them (texts: bench/*.json). */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { documentClient } from '../../shared/adapters/clients/dynamodb';
import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { addBot, addCollection, addEnvironment, addFunction, addPersona, addSupervisor, createOrganization } from '../../shared/app/operator/operator.service';
import { agentSchemas } from '../../shared/domain/agents/agent.schemas';
import { createAgent } from '../../shared/app/agents/agent-write.service';
import { operatorScope } from '../../shared/domain/agents/bot-scope';
import { indexWrites, readUserCount } from '../../shared/domain/users/user-index.repository';
import type { Permission, UserRecord } from '../../shared/domain/users/user.entities';
import { config } from '../../shared/kernel/config';
import { eachLimited } from '../../shared/kernel/retry';
import { fold } from '../../shared/kernel/text/matching';
import agentTexts from '../agents.data.json';
import names from '../users.names.json';
import { check, timed } from './series';
import { accessToken, type RunningStack } from './stack';

const { agentCreateSchema } = agentSchemas();

/** Puts every item (no two with the same key), 16 BatchWriteItem requests in flight; returns the requests sent. */
export async function putAll(items: Record<string, unknown>[]): Promise<number> {
  const TableName = config().tableName;
  let [next, requests] = [0, 0];
  const lane = async () => {
    while (next < items.length) {
      let pending = items.slice(next, (next += 25)).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
        requests++;
        const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [TableName]: pending } }));
        pending = (out.UnprocessedItems?.[TableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
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
const { topics: TOPICS, tags: TAGS } = agentTexts;
const about = (text: string, topic: string) => text.replaceAll('{topic}', topic);
export const instructionsLength = about(agentTexts.instructions, TOPICS[0]!).length;

/** In the first organization, a new environment and bot (2 personas, 4 functions, 2 collections, a default supervisor) and `count` agents, 8 at a time; with the ADMIN's token and the bot's API address. */
export async function seedBot({ info }: RunningStack, count: number, environmentName = 'Benchmark') {
  const [org, started] = [info.orgs[0]!, performance.now()];
  const environment = await addEnvironment(org.uuid, environmentName);
  const bot = await addBot(org.uuid, environment.uuid, `Benchmark bot (${count} agents)`);
  const styles = ['EMPATHETIC_AND_HELPFUL', 'CONCISE_AND_PROFESSIONAL'] as const;
  const personas = await Promise.all(styles.map((style, i) => addPersona(bot.uuid, { name: `Persona ${i}`, backstory: 'Years of care.', personality: 'Warm', communicationStyle: style })));
  const functions = await Promise.all(agentTexts.functions.map((name) => addFunction(bot.uuid, name)));
  const collections = await Promise.all(agentTexts.collections.map((name, i) => addCollection(bot.uuid, { name, description: name, documentCount: 7 + 35 * i })));
  await addSupervisor(bot.uuid, { role: 'Supervisor', goal: 'Route each conversation to the right agent', personaUuid: personas[0]!.uuid, isDefault: true });
  const agentUuids = new Array<string>(count);
  await eachLimited([...agentUuids.keys()], 8, async (i) => {
    const topic = TOPICS[i % TOPICS.length]!;
    const body = agentCreateSchema.parse({
      role: `Agent ${String(i + 1).padStart(4, '0')}: ${topic} specialist`, goal: about(agentTexts.goal, topic), instructions: about(agentTexts.instructions, topic),
      guardrails: agentTexts.guardrails, persona: { uuid: personas[i % 2]!.uuid }, inheritFromSupervisor: i % 3 !== 0,
      constraints: agentTexts.constraints.map((value) => ({ value: about(value, topic) })),
      tags: [{ name: TAGS[i % TAGS.length]! }, { name: TAGS[(i + 5) % TAGS.length]! }],
      parameters: { maximumTokens: 1024, requestTimeout: 30_000, temperature: 0.2 + (i % 5) / 10, topP: 0.9, presencePenalty: 0, frequencyPenalty: 0.1 },
      functions: [{ uuid: functions[i % 4]!.uuid }, { uuid: functions[(i + 1) % 4]!.uuid }], knowledge: [{ uuid: collections[i % 2]!.uuid }],
    });
    agentUuids[i] = (await createAgent(operatorScope(bot), body)).record.uuid;
  });
  const base = `${info.apiUrl}/${info.generativeSubpath}/org/${org.uuid}/env/${environment.uuid}/bot/${bot.uuid}`;
  return { org, seedMs: performance.now() - started, environment, bot, agentUuids, base, token: await accessToken(info, org) };
}

const YEAR_MS = 365 * 24 * 3600_000;
/** The ASCII a mailbox name is made of: folded, a few letters spelt out, everything else dropped. */
const mailbox = (text: string) => fold(text).replace(/[łøæßıđ]/g, (char) => ({ ł: 'l', ø: 'o', æ: 'ae', ß: 'ss', ı: 'i', đ: 'd' })[char]!).replace(/[^a-z0-9]+/g, '');

/** `count` VIEWERs drawn alike every run from `seed` (only uuids differ): a few double surnames, 30 companies (skewed; 8 % none), four years of dates, 5 % DELETED. */
function generateUsers(orgUuid: string, permission: Permission, count: number, seed: number) {
  let state = seed;
  // A linear congruential generator (Numerical Recipes' constants): the same draws every run.
  const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const pick = <T>(from: readonly T[], skew = 1) => from[Math.floor(from.length * random() ** skew)]!;
  const [end, taken] = [Date.now() - YEAR_MS / 365, new Set<string>()];
  return Array.from({ length: count }, () => {
    const [first, last, double, company] = [pick(names.firstNames), pick(names.lastNames), random() < 0.08 ? `-${pick(names.lastNames)}` : '', random() < 0.08 ? undefined : pick(names.companies, 1.6)];
    const [local, domain] = [`${mailbox(first)}.${mailbox(last)}`, company?.domain ?? pick(['mail.example', 'post.example', 'inbox.example'])];
    let email = `${local}@${domain}`;
    for (let n = 2; taken.has(email); n++) email = `${local}${n}@${domain}`;
    taken.add(email);
    const created = end - random() * 4 * YEAR_MS;
    const [createdAt, updatedAt] = [created, created + random() ** 3 * (end - created)].map((ms) => new Date(ms).toISOString()) as [string, string];
    const status = random() < 0.05 ? 'DELETED' : 'ACTIVE';
    const user: UserRecord = { uuid: randomUUID(), orgUuid, name: `${first} ${last}${double}`, email, role: 'VIEWER', permissions: [permission], status, createdAt, updatedAt };
    return company ? { ...user, company: company.name } : user;
  });
}

/** Two words as someone types them (lower case, no accents), an accented first name and a company's first word, written most nearly 8 times. */
export function searchTermsFor(users: UserRecord[]): string {
  const counts = new Map<string, number>();
  for (const { name, status, company } of users) {
    const first = name.split(' ')[0]!;
    if (status !== 'ACTIVE' || !company || fold(first) === first.toLowerCase()) continue;
    const pair = `${fold(first)} ${fold(company.split(' ')[0]!)}`;
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return [...counts].sort(([a, x], [b, y]) => Math.abs(x - 8) - Math.abs(y - 8) || (a < b ? -1 : 1))[0]![0];
}

/** What the product holds for a user it registered: the user item, its users-index items (less the count) and its e-mail claim, done. */
function storedItemsOf(user: UserRecord): Record<string, unknown>[] {
  const stored = { ...user, countedStatus: user.status };
  const index = indexWrites(stored, undefined).flatMap((write) => (write.Put ? [write.Put.Item as Record<string, unknown>] : []));
  const claim = { ...keys.emailClaim(user.orgUuid, user.email), type: 'EMAIL', userUuid: user.uuid, state: 'DONE', claimedAt: user.createdAt };
  return [{ ...keys.user(user.orgUuid, user.uuid, user.createdAt), type: 'USER', ...stored }, ...index, claim];
}

/** `count` users of `org` (which holds its ADMIN) written straight to the store, 2,000 users at a time; the count set once at the end, and checked. */
export async function seedUsers(org: { uuid: string; permission: Permission }, count: number, seed: number, progress: (message: string) => void) {
  const [users, written] = [generateUsers(org.uuid, org.permission, count, seed), { items: 0, requests: 0 }];
  const [ms] = await timed(async () => {
    for (let from = 0; from < count; from += 2_000) {
      const items = users.slice(from, from + 2_000).flatMap(storedItemsOf);
      [written.items, written.requests] = [written.items + items.length, written.requests + (await putAll(items))];
      if (from % 20_000 === 0) progress(`  ${from} users written`);
    }
  });
  const active = users.filter((u) => u.status === 'ACTIVE').length;
  await updateItem({ Key: keys.userCount(org.uuid), UpdateExpression: 'ADD ACTIVE :a, DELETED :d, version :v', ExpressionAttributeValues: { ':a': active, ':d': count - active, ':v': 1 } });
  const stored = await readUserCount(org.uuid, { consistent: true });
  check(stored.ACTIVE === active + 1 && stored.DELETED === count - active, `The count says ${stored.ACTIVE} ACTIVE and ${stored.DELETED} DELETED, not ${active + 1} and ${count - active}: another writer changed the organization; run the bench alone`);
  return { users, active, ms, ...written };
}

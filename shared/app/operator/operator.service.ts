import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError } from '../../kernel/errors';
import type { IdentityProvider } from '../users/identity-provider.port';
import { passwordPolicy } from '../../domain/users/password-policy.port';
import type { UserRecord } from '../../domain/users/user.entities';
import { registerUser } from '../users/user-registration';
import { indexUsers as buildUsersIndex, type IndexReport } from '../users/user-index-migration';
import { addAdmin, listUsersOf } from '../../domain/users/user.repository';
import type { AgentRecord } from '../../domain/agents/agent.repository';
import { insertWithHistory } from '../agents/agent-write.service';
import { REALM_NAME, type Bot, type BotFunction, type Collection, type CommunicationStyle, type Environment, type Organization, type Persona } from '../../domain/org/org.entities';
import {
  claimRealm,
  findBot,
  findRealm,
  getEnvironment,
  getOrganization,
  putBot,
  putBotFunction,
  putCollection,
  putEnvironment,
  putOrganization,
  putPersona,
} from '../../domain/org/org.repository';

/**
 * Operator actions: how a deployment gets its organizations, their first ADMIN and their bots' content.
 * The operator CLI and the local seed both call these, against the local stack or AWS alike.
 */

const nowIso = () => new Date().toISOString();

function invalid(fieldName: string, message: string): ValidationError {
  return new ValidationError({ details: [{ fieldName, message, errorCode: 'FIELD_INVALID' }] });
}

export async function createOrganization(
  input: { name: string; adminEmail: string; adminName: string; adminPassword: string },
  identityProvider?: IdentityProvider,
): Promise<{ organization: Organization; admin: UserRecord }> {
  if (!REALM_NAME.test(input.name)) {
    throw invalid('name', 'Use 2 to 63 lower-case letters, digits or hyphens, starting with a letter or digit');
  }
  const problem = passwordPolicy.problem(input.adminPassword);
  if (problem) throw invalid('adminPassword', problem);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.adminEmail)) throw invalid('adminEmail', 'Must be an e-mail address');

  let orgUuid: string = randomUUID();
  if (!(await claimRealm(input.name, orgUuid))) {
    // The realm may belong to an earlier attempt that stopped before writing the organization.
    const claimedBy = (await findRealm(input.name))!;
    if (await getOrganization(claimedBy)) throw new ConflictError({ code: 'REALM_TAKEN' });
    orgUuid = claimedBy;
  }
  const organization: Organization = { uuid: orgUuid, name: input.name, createdAt: nowIso() };
  await putOrganization(organization);
  const admin = await registerUser(
    {
      orgUuid,
      name: input.adminName,
      email: input.adminEmail,
      password: input.adminPassword,
      role: 'ADMIN',
      permissions: [],
    },
    identityProvider,
  );
  return { organization, admin };
}

async function requireOrganization(orgUuid: string): Promise<Organization> {
  const organization = await getOrganization(orgUuid);
  if (!organization) throw new NotFoundError(`Organization ${orgUuid} was not found`);
  return organization;
}

export async function addEnvironment(orgUuid: string, name: string): Promise<Environment> {
  await requireOrganization(orgUuid);
  const environment: Environment = { uuid: randomUUID(), orgUuid, name, active: true, createdAt: nowIso() };
  await putEnvironment(environment);
  return environment;
}

export async function addBot(orgUuid: string, envUuid: string, name: string): Promise<Bot> {
  if (!(await getEnvironment(orgUuid, envUuid))) throw new NotFoundError(`Environment ${envUuid} was not found`);
  const bot: Bot = { uuid: randomUUID(), orgUuid, envUuid, name, active: true, createdAt: nowIso() };
  await putBot(bot);
  return bot;
}

async function requireBot(botUuid: string): Promise<Bot> {
  const bot = await findBot(botUuid);
  if (!bot) throw new NotFoundError(`Bot ${botUuid} was not found`);
  return bot;
}

export async function addPersona(
  botUuid: string,
  input: Omit<Persona, 'uuid' | 'botUuid' | 'communicationStyle'> & { communicationStyle?: CommunicationStyle },
): Promise<Persona> {
  await requireBot(botUuid);
  const persona: Persona = { communicationStyle: 'FRIENDLY_AND_APPROACHABLE', ...input, uuid: randomUUID(), botUuid };
  await putPersona(persona);
  return persona;
}

export async function addFunction(botUuid: string, name: string): Promise<BotFunction> {
  await requireBot(botUuid);
  const fn: BotFunction = { uuid: randomUUID(), botUuid, name };
  await putBotFunction(fn);
  return fn;
}

export async function addCollection(
  botUuid: string,
  input: Partial<Omit<Collection, 'uuid' | 'botUuid'>> & { name: string },
): Promise<Collection> {
  await requireBot(botUuid);
  const collection: Collection = {
    description: '',
    documentCount: 0,
    searchType: { type: 'HYBRID', semanticWeight: 70, fullTextWeight: 30 },
    previousUserInput: 3,
    threshold: 0.5,
    topK: 5,
    ...input,
    uuid: randomUUID(),
    botUuid,
  };
  await putCollection(collection);
  return collection;
}

/** Adds a supervisor to a bot; it becomes the bot's default supervisor unless `isDefault` is false. */
export async function addSupervisor(
  botUuid: string,
  input: { role: string; goal: string; personaUuid: string; instructions?: string; guardrails?: string; isDefault?: boolean },
): Promise<AgentRecord> {
  const bot = await requireBot(botUuid);
  const { record } = await insertWithHistory(
    bot,
    {
      botUuid,
      kind: 'SUPERVISOR',
      role: input.role,
      goal: input.goal,
      ...(input.instructions ? { instructions: input.instructions } : {}),
      ...(input.guardrails ? { guardrails: input.guardrails } : {}),
      personaUuid: input.personaUuid,
      inheritFromSupervisor: false,
      constraints: [],
      tags: [],
      functionUuids: [],
      collectionUuids: [],
    },
    { asDefault: input.isDefault ?? true },
  );
  return record;
}

/**
 * Builds (or repairs) what is derived from an organization's user items: the users index (listing
 * entries, search postings, the count) and the set of active ADMINs the last-ADMIN rule guards. Safe
 * while the organization is live (see `user-index-migration.ts`).
 */
export async function indexUsers(orgUuid: string): Promise<IndexReport & { admins: number }> {
  await requireOrganization(orgUuid);
  const report = await buildUsersIndex(orgUuid);
  const admins = (await listUsersOf(orgUuid)).filter((user) => user.role === 'ADMIN' && user.status === 'ACTIVE');
  for (const user of admins) await addAdmin(orgUuid, user.uuid);
  return { ...report, admins: admins.length };
}

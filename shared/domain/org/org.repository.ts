import { ConflictError } from '../../kernel/errors';
import { keys } from '../../adapters/store/keys';
import { getItem, putItem, queryIndex } from '../../adapters/store/table';
import type { Bot, BotFunction, Collection, Environment, Organization, Persona } from './org.entities';

const mustNotExist = { ConditionExpression: 'attribute_not_exists(PK)' };

/** Claims a realm name for an organization; false when another organization holds it. */
export async function claimRealm(name: string, orgUuid: string): Promise<boolean> {
  return putItem({ ...keys.realm(name), type: 'REALM', orgUuid }, mustNotExist);
}

export async function findRealm(name: string): Promise<string | undefined> {
  return (await getItem<{ orgUuid: string }>(keys.realm(name)))?.orgUuid;
}

export async function putOrganization(org: Organization): Promise<void> {
  await putItem({ ...keys.organization(org.uuid), type: 'ORG', ...org });
}

export async function getOrganization(orgUuid: string): Promise<Organization | undefined> {
  return getItem<Organization>(keys.organization(orgUuid));
}

export async function putEnvironment(env: Environment): Promise<void> {
  if (!(await putItem({ ...keys.environment(env.orgUuid, env.uuid), type: 'ENV', ...env }, mustNotExist))) {
    throw new ConflictError('The environment already exists');
  }
}

export async function getEnvironment(orgUuid: string, envUuid: string): Promise<Environment | undefined> {
  return getItem<Environment>(keys.environment(orgUuid, envUuid));
}

export async function putBot(bot: Bot): Promise<void> {
  if (!(await putItem({ ...keys.bot(bot.orgUuid, bot.envUuid, bot.uuid), type: 'BOT', ...bot }, mustNotExist))) {
    throw new ConflictError('The bot already exists');
  }
}

export async function getBot(orgUuid: string, envUuid: string, botUuid: string): Promise<Bot | undefined> {
  return getItem<Bot>(keys.bot(orgUuid, envUuid, botUuid));
}

export async function findBot(botUuid: string): Promise<Bot | undefined> {
  const { GSI1PK, GSI1SK } = keys.botByUuid(botUuid);
  return (await queryIndex<Bot>(GSI1PK, GSI1SK))[0];
}

export async function putPersona(persona: Persona): Promise<void> {
  await putItem({ ...keys.persona(persona.botUuid, persona.uuid), type: 'PERSONA', ...persona });
}

export async function putBotFunction(fn: BotFunction): Promise<void> {
  await putItem({ ...keys.botFunction(fn.botUuid, fn.uuid), type: 'FUNCTION', ...fn });
}

export async function putCollection(collection: Collection): Promise<void> {
  await putItem({ ...keys.collection(collection.botUuid, collection.uuid), type: 'COLLECTION', ...collection });
}

/**
 * A benchmark's data: organizations made through the operator services, and items written straight
 * into the table (BatchWriteItem of 25 items, many requests in flight, unprocessed items sent again
 * after a short wait) for data the product would write item by item, and slowly, through its API: the
 * items are the product's own (its key module, its index writes).
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { documentClient } from '../../shared/clients/dynamodb';
import { config } from '../../shared/config';
import { addBot, addEnvironment, createOrganization } from '../../shared/operator/operator.service';

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
export async function seedOrganization(name: string, made: { adminEmail: string; adminName: string; environment: string; bot: string }) {
  const admin = { email: made.adminEmail, password: 'Bench-Admin-1' };
  const { organization } = await createOrganization({ name, adminEmail: admin.email, adminName: made.adminName, adminPassword: admin.password });
  const environment = await addEnvironment(organization.uuid, made.environment);
  const bot = await addBot(organization.uuid, environment.uuid, made.bot);
  return { uuid: organization.uuid, name, admin, environment, bot, permission: { environmentUuid: environment.uuid, botUuid: bot.uuid } };
}
export type SeededOrganization = Awaited<ReturnType<typeof seedOrganization>>;

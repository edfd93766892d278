/**
 * A benchmark's data: organizations made through the operator services, and the product's own items
 * written straight into the table where its API would write them one by one, and slowly.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { documentClient } from '../../shared/adapters/clients/dynamodb';
import { config } from '../../shared/kernel/config';
import { addBot, addEnvironment, createOrganization } from '../../shared/app/operator/operator.service';

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

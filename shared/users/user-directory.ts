import { keys } from '../store/keys';
import { getItems, putItem, queryIndex, updateItem, type TableWrite } from '../store/table';
import type { UserRecord, UserStatus } from './user.entities';

/**
 * An organization's user directory: what listings, searches and quicksearches need of every user
 * (name, e-mail, company, creation time, status), kept in a few items instead of one item per user.
 *
 * Users are spread over `DIRECTORY_SHARDS` items by the first byte of their uuid; each item holds a
 * map `entries` from user uuid to a compact JSON array. A write sets or removes one map key, which
 * DynamoDB applies atomically, so concurrent writers of different users never lose each other's
 * entries and no read-modify-write is needed. A read is one BatchGetItem of every shard.
 *
 * At about 130 bytes per entry a shard (at most 400 KB) holds about 3,000 users, so an organization
 * holds about 90,000: the README's "Limits" says so.
 */
export const DIRECTORY_SHARDS = 32;

export interface DirectoryEntry {
  uuid: string;
  name: string;
  email: string;
  company: string;
  createdAt: string;
  status: UserStatus;
}

type Encoded = [name: string, email: string, company: string, createdAt: string, status: UserStatus];

export function shardOf(userUuid: string): number {
  return Number.parseInt(userUuid.slice(0, 2), 16) % DIRECTORY_SHARDS;
}

const encode = (user: UserRecord): string =>
  JSON.stringify([user.name, user.email, user.company ?? '', user.createdAt, user.status] satisfies Encoded);

function decode(uuid: string, value: string): DirectoryEntry {
  const [name, email, company, createdAt, status] = JSON.parse(value) as Encoded;
  return { uuid, name, email, company, createdAt, status };
}

/**
 * The write that sets a user's entry, for a transaction that writes the user too. It fails its
 * condition when the user's shard does not exist yet: `ensureDirectoryShard`, then write again.
 */
export function directoryEntryWrite(user: UserRecord): TableWrite {
  return {
    Update: {
      Key: keys.userDirectoryShard(user.orgUuid, shardOf(user.uuid)),
      UpdateExpression: 'SET entries.#user = :entry',
      ConditionExpression: 'attribute_exists(entries)',
      ExpressionAttributeNames: { '#user': user.uuid },
      ExpressionAttributeValues: { ':entry': encode(user) },
    },
  };
}

/** Creates the shard a user's entry goes to, once per shard (a concurrent first writer may win). */
export async function ensureDirectoryShard(orgUuid: string, userUuid: string): Promise<void> {
  const key = keys.userDirectoryShard(orgUuid, shardOf(userUuid));
  await putItem({ ...key, type: 'USERDIR', entries: {} }, { ConditionExpression: 'attribute_not_exists(PK)' });
}

/** Writes (or rewrites) a user's entry alone. Idempotent: repeating it after a crash repairs the directory. */
export async function putDirectoryEntry(user: UserRecord): Promise<void> {
  const write = directoryEntryWrite(user).Update!;
  if (await updateItem(write)) return;
  await ensureDirectoryShard(user.orgUuid, user.uuid);
  if (!(await updateItem(write))) throw new Error('The user directory shard could not be written');
}

/** Every entry of an organization's directory, in no particular order. */
export async function readDirectory(orgUuid: string): Promise<DirectoryEntry[]> {
  const shardKeys = Array.from({ length: DIRECTORY_SHARDS }, (_, shard) => keys.userDirectoryShard(orgUuid, shard));
  const shards = await getItems<{ entries?: Record<string, string> }>(shardKeys);
  const entries: DirectoryEntry[] = [];
  for (const shard of shards) {
    for (const [uuid, value] of Object.entries(shard.entries ?? {})) entries.push(decode(uuid, value));
  }
  return entries;
}

/**
 * Rebuilds an organization's directory from its user items (GSI1 lists them): writes every user's
 * entry again and removes entries no user item backs. An operator's repair (`npm run org --
 * reindex-users`), never on a request path. Returns what it found and fixed.
 */
export async function rebuildDirectory(orgUuid: string): Promise<{ users: number; rewritten: number; removed: number }> {
  const users = await queryIndex<UserRecord>(keys.usersOf(orgUuid));
  const entries = new Map((await readDirectory(orgUuid)).map((entry) => [entry.uuid, entry]));
  let rewritten = 0;
  for (const user of users) {
    const entry = entries.get(user.uuid);
    entries.delete(user.uuid);
    if (entry && entry.name === user.name && entry.email === user.email && entry.company === (user.company ?? '') && entry.status === user.status) {
      continue;
    }
    await putDirectoryEntry(user);
    rewritten += 1;
  }
  for (const uuid of entries.keys()) {
    await updateItem({
      Key: keys.userDirectoryShard(orgUuid, shardOf(uuid)),
      UpdateExpression: 'REMOVE entries.#user',
      ExpressionAttributeNames: { '#user': uuid },
    });
  }
  return { users: users.length, rewritten, removed: entries.size };
}

/**
 * The users bench:users writes: realistic and reproducible (a fixed seed draws the same names,
 * companies, statuses and dates every run; only the uuids differ), stored as the product stores them,
 * and checked.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { keys } from '../shared/store/keys';
import { updateItem } from '../shared/store/table';
import { fold } from '../shared/text/matching';
import { indexWrites, type ListingOrder } from '../shared/users/user-index';
import { readUserCount } from '../shared/users/user-queries';
import type { Permission, UserRecord } from '../shared/users/user.entities';
import type { StoredUser } from '../shared/users/user.repository';
import { check, fmt, projection, putAll, query } from './harness';
import names from './users.names.json';

/** Names of many languages, and companies (name and mail domain; the first ones are the big customers). */
const { firstNames: FIRST_NAMES, lastNames: LAST_NAMES, companies: COMPANIES } = names;

/** mulberry32: a small seeded generator. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPELT: Record<string, string> = { ł: 'l', ø: 'o', æ: 'ae', ß: 'ss', ı: 'i', đ: 'd' };
/** The ASCII a mailbox name is made of: folded, a few letters spelt out, everything else dropped. */
const mailbox = (text: string) => fold(text).replace(/[łøæßıđ]/g, (char) => SPELT[char]!).replace(/[^a-z0-9]+/g, '');

/**
 * `count` users: accented names (some with two first names or a double surname), company e-mails, one
 * of 30 companies (skewed; about 8 % without), a third with an image, created over four years, about
 * 5 % DELETED; every one a VIEWER with `permission`. Also each user's first name, to pick search terms.
 */
export function generateUsers(orgUuid: string, permission: Permission, count: number, seed = 20_261_121) {
  const random = seeded(seed);
  const pick = <T>(from: readonly T[]) => from[Math.floor(random() * from.length)]!;
  const end = Date.now() - 24 * 3600_000;
  const start = end - 4 * 365 * 24 * 3600_000;
  const taken = new Set<string>();
  const users: UserRecord[] = [];
  const firstNames: string[] = [];
  for (let i = 0; i < count; i++) {
    const [first, second, last, double] = [pick(FIRST_NAMES), random() < 0.1 ? pick(FIRST_NAMES) : '', pick(LAST_NAMES), random() < 0.08 ? pick(LAST_NAMES) : ''];
    const company = random() < 0.08 ? undefined : COMPANIES[Math.floor(COMPANIES.length * random() ** 1.6)]!;
    const local = `${mailbox(first)}.${mailbox(last)}`;
    const domain = company?.domain ?? pick(['mail.example', 'post.example', 'inbox.example']);
    let email = `${local}@${domain}`;
    for (let n = 2; taken.has(email); n++) email = `${local}${n}@${domain}`;
    taken.add(email);
    const [created, deleted] = [start + random() * (end - start), random() < 0.05];
    const updated = created + random() ** 3 * (end - created);
    const uuid = randomUUID();
    users.push({
      uuid,
      orgUuid,
      name: [first, second, double ? `${last}-${double}` : last].filter(Boolean).join(' '),
      email,
      ...(random() < 0.35 ? { image: `https://images.example/avatars/${uuid}.png` } : {}),
      ...(company ? { company: company.name } : {}),
      role: 'VIEWER',
      permissions: [permission],
      status: deleted ? 'DELETED' : 'ACTIVE',
      createdAt: new Date(created).toISOString(),
      updatedAt: new Date(updated).toISOString(),
    });
    firstNames.push(first);
  }
  return { users, firstNames };
}

/** Two words as someone types them (lower case, no accents), an accented first name and a company's first word, written most nearly 8 times. */
export function searchTermsFor(users: UserRecord[], firstNames: string[]): string {
  const counts = new Map<string, number>();
  users.forEach((user, i) => {
    const first = firstNames[i]!;
    if (user.status !== 'ACTIVE' || !user.company || fold(first) === first.toLowerCase()) return;
    const pair = `${fold(first)} ${fold(user.company.split(' ')[0]!)}`;
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  });
  return [...counts].sort(([a, x], [b, y]) => Math.abs(x - 8) - Math.abs(y - 8) || (a < b ? -1 : 1))[0]![0];
}

/**
 * The items the product holds for a user it registered: the user item as `writeUser` stores it
 * (counted under its status), its users-index items (`indexWrites` of a new user, less the count
 * update: the seeder sets the count once), and its e-mail claim, done.
 */
export function storedItemsOf(user: UserRecord): Record<string, unknown>[] {
  const stored: StoredUser = { ...user, countedStatus: user.status };
  const index = indexWrites(stored, undefined).flatMap((write) => (write.Put ? [write.Put.Item as Record<string, unknown>] : []));
  const claim = { ...keys.emailClaim(user.orgUuid, user.email), type: 'EMAIL', userUuid: user.uuid, state: 'DONE', claimedAt: user.createdAt };
  return [{ ...keys.user(user.orgUuid, user.uuid, user.createdAt), type: 'USER', ...stored }, ...index, claim];
}

/**
 * `count` users of `org` written straight to the store as the product stores them (user item, users-index
 * items, e-mail claim; 2,000 users at a time, 16 requests in flight), the count set once at the end.
 */
export async function seedUsers(org: { uuid: string; permission: Permission }, count: number, progress: (message: string) => void, seedNumber?: number) {
  const { users, firstNames } = generateUsers(org.uuid, org.permission, count, seedNumber);
  const started = performance.now();
  let [items, requests] = [0, 0];
  for (let from = 0; from < users.length; from += 2_000) {
    const chunk = users.slice(from, from + 2_000).flatMap(storedItemsOf);
    items += chunk.length;
    requests += await putAll(chunk, 16);
    if (from % 10_000 === 0 && from > 0) progress(`  ${fmt.int(from)} users, ${fmt.int(items)} items, ${fmt.s(performance.now() - started)}`);
  }
  const active = users.filter((u) => u.status === 'ACTIVE').length;
  await updateItem({
    Key: keys.userCount(org.uuid),
    UpdateExpression: 'ADD ACTIVE :a, DELETED :d, version :v',
    ExpressionAttributeValues: { ':a': active, ':d': users.length - active, ':v': 1 },
  });
  return { users, firstNames, ms: performance.now() - started, items, requests, active };
}

/** Nothing lost: the count holds every user once (the ADMIN too), and each listing partition every user of its status. */
export async function checkIndex(orgUuid: string, seeded: { users: UserRecord[]; active: number }) {
  const started = performance.now();
  const count = await readUserCount(orgUuid, { consistent: true });
  const [expectedActive, expectedDeleted] = [seeded.active + 1, seeded.users.length - seeded.active];
  check(count.ACTIVE === expectedActive && count.DELETED === expectedDeleted, `The count says ${count.ACTIVE} ACTIVE / ${count.DELETED} DELETED, not ${expectedActive} / ${expectedDeleted}`);
  const partitionSizes: string[] = [];
  for (const status of ['ACTIVE', 'DELETED'] as const) {
    for (const order of ['createdAt', 'name', 'email', 'company'] as ListingOrder[]) {
      const pk = keys.userListing(orgUuid, status, order);
      const found = await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ...projection(['uuid']) });
      const uuids = new Set(found.items.map((item) => item.uuid as string));
      const want = seeded.users.filter((u) => u.status === status);
      check(uuids.size === (status === 'ACTIVE' ? expectedActive : expectedDeleted) && want.every((u) => uuids.has(u.uuid)), `${pk} holds ${uuids.size} users`);
      partitionSizes.push(`${status} by ${order}: ${fmt.int(uuids.size)} (${found.pages} page${found.pages === 1 ? '' : 's'})`);
    }
  }
  return { count, expectedActive, expectedDeleted, partitionSizes, checkMs: performance.now() - started };
}

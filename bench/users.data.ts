/**
 * The users bench:users writes: reproducible (a fixed seed draws the same names, companies, statuses and
 * dates every run; only the uuids differ) and stored as the product stores them.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../shared/adapters/store/keys';
import { updateItem } from '../shared/adapters/store/table';
import { fold } from '../shared/kernel/text/matching';
import { indexWrites } from '../shared/domain/users/user-index';
import { readUserCount } from '../shared/domain/users/user-queries';
import type { Permission, UserRecord } from '../shared/domain/users/user.entities';
import type { StoredUser } from '../shared/domain/users/user.repository';
import { putAll } from './harness/seed';
import { check, timed } from './harness/series';
import names from './users.names.json';

/** Names of many languages, and companies (name and mail domain; the first ones are the big customers). */
const { firstNames: FIRST_NAMES, lastNames: LAST_NAMES, companies: COMPANIES } = names;
const YEAR_MS = 365 * 24 * 3600_000;
/** The ASCII a mailbox name is made of: folded, a few letters spelt out, everything else dropped. */
const mailbox = (text: string) =>
  fold(text)
    .replace(/[łøæßıđ]/g, (char) => ({ ł: 'l', ø: 'o', æ: 'ae', ß: 'ss', ı: 'i', đ: 'd' })[char]!)
    .replace(/[^a-z0-9]+/g, '');

/**
 * `count` users: accented names, some with a double surname; e-mails at one of 30 companies (skewed;
 * about 8 % without a company), created over four years, about 5 % DELETED; every one a VIEWER with
 * `permission`.
 */
function generateUsers(orgUuid: string, permission: Permission, count: number, seed: number) {
  let state = seed;
  // A linear congruential generator (Numerical Recipes' constants): the same draws every run.
  const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const pick = <T>(from: readonly T[], skew = 1) => from[Math.floor(from.length * random() ** skew)]!;
  const [end, taken] = [Date.now() - YEAR_MS / 365, new Set<string>()];
  return Array.from({ length: count }, () => {
    const [first, last, double, company] = [pick(FIRST_NAMES), pick(LAST_NAMES), random() < 0.08 ? `-${pick(LAST_NAMES)}` : '', random() < 0.08 ? undefined : pick(COMPANIES, 1.6)];
    const local = `${mailbox(first)}.${mailbox(last)}`;
    const domain = company?.domain ?? pick(['mail.example', 'post.example', 'inbox.example']);
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
  for (const user of users) {
    const first = user.name.split(' ')[0]!;
    if (user.status !== 'ACTIVE' || !user.company || fold(first) === first.toLowerCase()) continue;
    const pair = `${fold(first)} ${fold(user.company.split(' ')[0]!)}`;
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return [...counts].sort(([a, x], [b, y]) => Math.abs(x - 8) - Math.abs(y - 8) || (a < b ? -1 : 1))[0]![0];
}

/** What the product holds for a user it registered: the user item, its users-index items (less the count) and its e-mail claim, done. */
function storedItemsOf(user: UserRecord): Record<string, unknown>[] {
  const stored: StoredUser = { ...user, countedStatus: user.status };
  const index = indexWrites(stored, undefined).flatMap((write) => (write.Put ? [write.Put.Item as Record<string, unknown>] : []));
  const claim = { ...keys.emailClaim(user.orgUuid, user.email), type: 'EMAIL', userUuid: user.uuid, state: 'DONE', claimedAt: user.createdAt };
  return [{ ...keys.user(user.orgUuid, user.uuid, user.createdAt), type: 'USER', ...stored }, ...index, claim];
}

/**
 * `count` users of `org` (which holds its ADMIN) written straight to the store, 2,000 users at a time
 * with 16 requests in flight; the count set once at the end, and checked.
 */
export async function seedUsers(org: { uuid: string; permission: Permission }, count: number, seed: number, progress: (message: string) => void) {
  const users = generateUsers(org.uuid, org.permission, count, seed);
  const written = { items: 0, requests: 0 };
  const [ms] = await timed(async () => {
    for (let from = 0; from < count; from += 2_000) {
      const items = users.slice(from, from + 2_000).flatMap(storedItemsOf);
      [written.items, written.requests] = [written.items + items.length, written.requests + (await putAll(items, 16))];
      if (from % 20_000 === 0) progress(`  ${from} users written`);
    }
  });
  const active = users.filter((u) => u.status === 'ACTIVE').length;
  const values = { ':a': active, ':d': count - active, ':v': 1 };
  await updateItem({ Key: keys.userCount(org.uuid), UpdateExpression: 'ADD ACTIVE :a, DELETED :d, version :v', ExpressionAttributeValues: values });
  const stored = await readUserCount(org.uuid, { consistent: true });
  check(stored.ACTIVE === active + 1 && stored.DELETED === count - active, `The count says ${stored.ACTIVE} ACTIVE and ${stored.DELETED} DELETED, not ${active + 1} and ${count - active}: another writer changed the organization; run the bench alone`);
  return { users, active, ms, ...written };
}

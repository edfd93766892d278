import type { ItemError, Revocation } from '../../shared/app/bulk/bulk-users.service';
import type { Permission } from '../../shared/domain/users/user.entities';
import { TEST_PASSWORD } from './auth-helpers';
import { agentsUrl } from './bot-helpers';
import { authOf, csvOf } from './bulk-helpers';
import { send } from './http-client';
import { stack } from './stack';
import { deleteViaApi, member, readUser, signIn, type Member, type TestOrg } from './user-helpers';

/** Helpers for bulk delete and the bulk permission routes: users granted places, requests, permission files, bot access. */

/** One entry of these routes' error lists as the API answers it. */
export type ItemErrorDto = ItemError;
export type RevocationDto = Revocation;

export interface BulkCall {
  /** The bearer token; the organization's ADMIN unless given (`null`: none). */
  token?: string | null;
  dryRun?: boolean | string;
}

const withDryRun = (url: string, dryRun: BulkCall['dryRun']) => (dryRun === undefined ? url : `${url}?dryRun=${dryRun}`);
export const bulkDeleteUrl = (org: TestOrg, dryRun?: BulkCall['dryRun']) => withDryRun(org.url('/bulk-delete'), dryRun);
export const bulkPermissionsUrl = (org: TestOrg, dryRun?: BulkCall['dryRun']) => withDryRun(org.url('/bulk-permissions'), dryRun);

/** A JSON request to a bulk route, for bodies the OpenAPI document refuses; a string body is sent as it is (for malformed JSON). */
export function sendJson<T = ItemErrorDto[]>(org: TestOrg, method: string, url: string, body: unknown, call: BulkCall = {}) {
  return send<T>(url, {
    method,
    headers: { ...authOf(org, call.token), 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** `DELETE /users/bulk-delete` with any body, sent raw (`bulkRoutes(org).delete` sends a list of e-mails through the typed client). */
export const deleteRequest = (org: TestOrg, emails: unknown, call: BulkCall = {}) =>
  sendJson(org, 'DELETE', bulkDeleteUrl(org, call.dryRun), emails, call);

/** `DELETE /users/bulk-permissions` with any body, sent raw (`bulkRoutes(org).revoke` sends a list of revocations through the typed client). */
export const revokeRequest = (org: TestOrg, items: unknown, call: BulkCall = {}) =>
  sendJson(org, 'DELETE', bulkPermissionsUrl(org, call.dryRun), items, call);

/** `POST /users/bulk-permissions` with a CSV file in the multipart part `file` (or `part`). */
export function grantRequest(org: TestOrg, csv: string | Buffer, call: BulkCall & { part?: string } = {}) {
  const form = new FormData();
  form.append(call.part ?? 'file', new Blob([csv], { type: 'text/csv' }), 'permissions.csv');
  return send<ItemErrorDto[]>(bulkPermissionsUrl(org, call.dryRun), { method: 'POST', headers: authOf(org, call.token), body: form });
}

export const PERMISSION_COLUMNS = ['Email', 'EnvironmentUuid', 'EnvironmentName', 'Bot'] as const;
export type PermissionRow = Partial<Record<(typeof PERMISSION_COLUMNS)[number], string>>;

/** A permissions CSV from rows (header on line 1, so the n-th row is on line n + 1). */
export const permissionsCsv = (rows: PermissionRow[], columns: readonly string[] = PERMISSION_COLUMNS) => csvOf(rows, { columns });

export type GrantPlace = 'A1' | 'A2' | 'B1' | 'envA' | 'envB';

/** The row granting a bot, or (no bot) a whole environment, of a test organization to an e-mail. */
export function grantRow(org: TestOrg, email: string, where: GrantPlace): PermissionRow {
  const inB = where === 'B1' || where === 'envB';
  const bot = { A1: org.botA1, A2: org.botA2, B1: org.botB1, envA: '', envB: '' }[where];
  return { Email: email, EnvironmentUuid: inB ? org.envB : org.envA, EnvironmentName: inB ? 'Env B' : 'Env A', Bot: bot };
}

/** The errors without their messages (each message is checked to say something), for comparing what failed and why. */
export function codesOf<E extends { message: string }>(errors: E[]): Omit<E, 'message'>[] {
  return errors.map(({ message, ...rest }) => {
    expect(message).toEqual(expect.stringMatching(/\S/));
    return rest;
  });
}

/** The status a user's token gets on `GET` of a bot's agents: 200 when it reaches the bot, 403 when not. */
export async function botReadStatus(org: TestOrg, who: Pick<Member, 'token'>, bot: 'A1' | 'A2' | 'B1'): Promise<number> {
  const address = {
    orgUuid: org.orgUuid,
    envUuid: bot === 'B1' ? org.envB : org.envA,
    botUuid: { A1: org.botA1, A2: org.botA2, B1: org.botB1 }[bot],
  };
  const response = await fetch(agentsUrl(address), { headers: { authorization: `Bearer ${who.token}` } });
  await response.arrayBuffer();
  return response.status;
}

/** The statuses a user's token gets on bots A1, A2 and B1 of a test organization. */
export async function botReach(org: TestOrg, who: Pick<Member, 'token'>): Promise<Record<'A1' | 'A2' | 'B1', number>> {
  const [A1, A2, B1] = await Promise.all([botReadStatus(org, who, 'A1'), botReadStatus(org, who, 'A2'), botReadStatus(org, who, 'B1')]);
  return { A1, A2, B1 };
}

/** The permission of a test organization's bot (A1, A2, B1) or whole environment (envA, envB). */
export function grantOf(org: TestOrg, where: GrantPlace): Permission {
  const row = grantRow(org, '', where);
  return row.Bot ? { environmentUuid: row.EnvironmentUuid!, botUuid: row.Bot } : { environmentUuid: row.EnvironmentUuid! };
}

const grantKey = (p: Permission) => `${p.environmentUuid}/${p.botUuid ?? '*'}`;

/** Permissions in one order, for comparing sets of grants. */
export const sortedGrants = (permissions: Permission[]) => [...permissions].sort((a, b) => grantKey(a).localeCompare(grantKey(b)));

/** A user's permissions as the ADMIN reads them, in `sortedGrants` order. */
export const grantsOfUser = async (org: TestOrg, userUuid: string) => sortedGrants((await readUser(org, userUuid)).permissions);

/** A signed-in user with a role, granted `places` (or the role's usual grant: bot A1, or environment A for a SUPERVISOR). */
export const someone = (org: TestOrg, role: Member['role'], places?: GrantPlace[]) =>
  member(org, role, places ? { permissions: places.map((p) => grantOf(org, p)) } : {});

/** A VIEWER of the organization deleted through the single delete. */
export async function deletedMember(org: TestOrg): Promise<Member> {
  const user = await someone(org, 'VIEWER');
  await deleteViaApi(org, user.uuid);
  return user;
}

/** The status of a password grant with the member's password: 200 while it may sign in. */
export const signInStatus = async (org: TestOrg, who: Member) => (await signIn(org.realm, who.email, TEST_PASSWORD)).status;

/** The first seeded organization: another organization than the tests' own. */
export const seededOrg = () => stack().orgs[0]!;

import { AdminGetUserCommand } from '@aws-sdk/client-cognito-identity-provider';
import { authenticate, type Caller } from '../../shared/app/auth/caller';
import { cognitoClient } from '../../shared/adapters/clients/cognito';
import { config } from '../../shared/kernel/config';
import { cognitoIdentityProvider, type IdentityProvider } from '../../shared/adapters/identity/identity-provider';
import type { MailMessage, Mailer } from '../../shared/adapters/mail/mailer';
import { addBot, addEnvironment, createOrganization } from '../../shared/app/operator/operator.service';
import { keys } from '../../shared/adapters/store/keys';
import { getItem } from '../../shared/adapters/store/table';
import type { MailContext } from '../../shared/app/users/user-mail';
import type { UserResponse } from '../../shared/domain/users/user.mapper';
import type { Permission, Role } from '../../shared/domain/users/user.entities';
import { registerUser } from '../../shared/app/users/user-registration';
import { answer, stackApiClient, type ApiClient } from './api-client';
import { TEST_PASSWORD, type TokenBody } from './auth-helpers';
import { deactivateBot, deactivateEnvironment, type PageDto } from './bot-helpers';
import type { operations } from '../../clients/typescript/src/generated/api-types';
import { httpClient, type TokenSource } from './http-client';
import { requestToken, stack, unique, userArea } from './stack';

/** Helpers for the users routes: organizations of one's own, the routes through the typed client, the mailbox. */

/** The User a client reads (docs/api/users.md#the-user). */
export type UserDto = UserResponse;
export type UserPage = PageDto<UserDto>;

/** An e-mail address unique to the run; `tag` makes it readable in a failure. */
export const uniqueEmail = (tag = 'user') => `${tag}-${unique()}@example.test`;

/** A client of the users routes with a bearer token (or none); bodies default to the User. */
export const usersApi = (token: TokenSource) => httpClient<UserDto>(token);
export type UsersApi = ReturnType<typeof usersApi>;

/** The URL of the users collection of an organization, or of a path under it (`/quicksearch`, `/{id}`). */
export const usersUrl = (orgUuid: string, path = '') => userArea(orgUuid, `/users${path}`);

/** Posts a password grant; answers the raw response (200 or an OAuth error). */
export function signIn(realm: string, email: string, password: string): Promise<Response> {
  return requestToken(realm, { grant_type: 'password', client_id: stack().clientId, username: email, password });
}

/** Posts a refresh grant; answers the raw response. */
export function refresh(realm: string, refreshToken: string): Promise<Response> {
  return requestToken(realm, { grant_type: 'refresh_token', client_id: stack().clientId, refresh_token: refreshToken });
}

/** A password-grant token; fails the test when the grant is refused. */
export async function tokenOf(realm: string, email: string, password: string): Promise<TokenBody> {
  const response = await signIn(realm, email, password);
  if (response.status !== 200) throw new Error(`Token request for ${email} failed with ${response.status}: ${await response.text()}`);
  return (await response.json()) as TokenBody;
}

/** The token endpoint's description for a user whose password is still temporary: Keycloak's words, and where to set one. */
export const notFullySetUpFor = (realm: string) =>
  `Account is not fully set up: choose your own password on the account page, ${stack().authUrl}/auth/realms/${realm}/account, then sign in again`;

/**
 * A generated password is temporary: the grant with it answers that the account is not fully set up,
 * which also proves it is the user's password (a wrong one is "Invalid user credentials").
 */
export async function expectTemporaryPassword(realm: string, email: string, password: string): Promise<void> {
  const response = await signIn(realm, email, password);
  expect({ status: response.status, body: await response.json() }).toEqual({
    status: 400,
    body: { error: 'invalid_grant', error_description: notFullySetUpFor(realm) },
  });
}

/** A member of a test organization: its record as created, its credentials and signed-in clients. */
export interface Member {
  uuid: string;
  name: string;
  email: string;
  password: string;
  role: Role;
  token: string;
  refreshToken: string;
  /** Raw requests, for what the OpenAPI document refuses. */
  api: UsersApi;
  /** The typed, contract-checked client. */
  client: ApiClient;
}

type Json<Operation> = Operation extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;
type Header<Operation> = Operation extends { parameters: { header?: infer H } } ? NonNullable<H> : never;

// Bodies and queries of the users routes as the OpenAPI document types them.
export type NewUserBody = Json<operations['users.create']>;
export type UserUpdateBody = Json<operations['users.update']>;
export type ActivateBody = Json<operations['users.activate']>;
export type UsersQuery = NonNullable<operations['users.list']['parameters']['query']>;
export type QuicksearchQuery = operations['users.quicksearch']['parameters']['query'];

/**
 * The users routes of an organization through the typed client, named by their operation ids, as
 * `who` (a member, or an access token): what the OpenAPI document allows, answered as the HTTP test
 * client answers.
 */
export function usersRoutes(org: Pick<TestOrg, 'orgUuid'>, who: Pick<Member, 'client'> | string) {
  const client = typeof who === 'string' ? stackApiClient(who) : who.client;
  const orgUUID = org.orgUuid;
  return {
    list: (query: UsersQuery = {}) => answer(client.GET('/user-management/org/{orgUUID}/users', { params: { path: { orgUUID }, query } })),
    quicksearch: (query: QuicksearchQuery) => answer(client.GET('/user-management/org/{orgUUID}/users/quicksearch', { params: { path: { orgUUID }, query } })),
    create: (body: NewUserBody, header: Header<operations['users.create']> = {}) =>
      answer(client.POST('/user-management/org/{orgUUID}/users', { params: { path: { orgUUID }, header }, body })),
    get: (userId: string) => answer(client.GET('/user-management/org/{orgUUID}/users/{userId}', { params: { path: { orgUUID, userId } } })),
    update: (userId: string, body: UserUpdateBody) =>
      answer(client.PUT('/user-management/org/{orgUUID}/users/{userId}', { params: { path: { orgUUID, userId } }, body })),
    delete: (userId: string) => answer(client.DELETE('/user-management/org/{orgUUID}/users/{userId}', { params: { path: { orgUUID, userId } } })),
    activate: (body: ActivateBody, header: Header<operations['users.activate']> = {}) =>
      answer(client.PUT('/user-management/org/{orgUUID}/users/activate', { params: { path: { orgUUID }, header }, body })),
  };
}
export type UsersRoutes = ReturnType<typeof usersRoutes>;

/**
 * An organization of one's own with its ADMIN signed in, an environment with two bots, a second
 * environment with one bot, an inactive environment and an inactive bot: listings, counts and the
 * ADMIN set are then the test's alone.
 */
export interface TestOrg {
  orgUuid: string;
  realm: string;
  admin: Member;
  envA: string;
  botA1: string;
  botA2: string;
  envB: string;
  botB1: string;
  inactiveEnv: string;
  inactiveBot: string;
  /** `usersUrl` of this organization, for raw requests. */
  url: (path?: string) => string;
  /** The users routes as its ADMIN (`usersRoutes`). */
  users: UsersRoutes;
}

export async function freshOrganization(options: { adminName?: string; adminEmail?: string } = {}): Promise<TestOrg> {
  const realm = `users-${unique()}`;
  const adminEmail = options.adminEmail ?? uniqueEmail('admin');
  const adminName = options.adminName ?? 'Org Admin';
  const { organization, admin } = await createOrganization({ name: realm, adminEmail, adminName, adminPassword: TEST_PASSWORD });
  const orgUuid = organization.uuid;
  const [envA, envB, inactiveEnv] = await Promise.all([
    addEnvironment(orgUuid, 'Env A'),
    addEnvironment(orgUuid, 'Env B'),
    addEnvironment(orgUuid, 'Env inactive'),
  ]);
  const [botA1, botA2, botB1, inactiveBot] = await Promise.all([
    addBot(orgUuid, envA.uuid, 'Bot A1'),
    addBot(orgUuid, envA.uuid, 'Bot A2'),
    addBot(orgUuid, envB.uuid, 'Bot B1'),
    addBot(orgUuid, envA.uuid, 'Bot inactive'),
  ]);
  await Promise.all([
    deactivateEnvironment(orgUuid, inactiveEnv.uuid),
    deactivateBot({ orgUuid, envUuid: envA.uuid, botUuid: inactiveBot.uuid }),
  ]);
  const adminMember = await signedIn({ uuid: admin.uuid, name: adminName, email: adminEmail, role: 'ADMIN' }, realm);
  return {
    orgUuid,
    realm,
    admin: adminMember,
    envA: envA.uuid,
    botA1: botA1.uuid,
    botA2: botA2.uuid,
    envB: envB.uuid,
    botB1: botB1.uuid,
    inactiveEnv: inactiveEnv.uuid,
    inactiveBot: inactiveBot.uuid,
    url: (path = '') => usersUrl(orgUuid, path),
    users: usersRoutes({ orgUuid }, adminMember),
  };
}

/**
 * An organization of the test file's own (`freshOrganization`), made in a `beforeAll` of the file: its
 * fields are there for the file's tests and hooks, not while the file declares them.
 */
export function ownOrganization(options: Parameters<typeof freshOrganization>[0] = {}): TestOrg {
  const org = {} as TestOrg;
  beforeAll(async () => {
    Object.assign(org, await freshOrganization(options));
  });
  return org;
}

/** A user with the test password, signed in to its organization's realm. */
async function signedIn(user: Pick<Member, 'uuid' | 'name' | 'email' | 'role'>, realm: string): Promise<Member> {
  const token = await tokenOf(realm, user.email, TEST_PASSWORD);
  return {
    ...user,
    password: TEST_PASSWORD,
    token: token.access_token,
    refreshToken: token.refresh_token,
    api: usersApi(token.access_token),
    client: stackApiClient(token.access_token),
  };
}

/** The permissions a role needs to be valid in a test organization (none for an ADMIN). */
export function grantsFor(org: TestOrg, role: Role): Permission[] {
  if (role === 'ADMIN') return [];
  if (role === 'SUPERVISOR') return [{ environmentUuid: org.envA }];
  return [{ environmentUuid: org.envA, botUuid: org.botA1 }];
}

/** A valid create body for a VIEWER of bot A1 unless `overrides` say otherwise. */
export function newUser(org: TestOrg, overrides: Partial<NewUserBody> = {}): NewUserBody {
  return {
    name: 'New User',
    email: uniqueEmail('new'),
    role: 'VIEWER',
    permissions: grantsFor(org, 'VIEWER'),
    password: TEST_PASSWORD,
    confirmPassword: TEST_PASSWORD,
    ...overrides,
  };
}

/** `newUser` with overrides the document may refuse (unknown fields, wrong types, fields left out), for raw requests. */
export function createBody(org: TestOrg, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...newUser(org), ...overrides };
}

/** Creates a user through the API as the organization's ADMIN; fails the test unless it answers 200. */
export async function createViaApi(
  org: TestOrg,
  overrides: Record<string, unknown> = {},
  headers?: Record<string, string>,
): Promise<UserDto> {
  const response = await org.admin.api.post(org.url(), createBody(org, overrides), headers);
  if (response.status !== 200) throw new Error(`Create failed with ${response.status}: ${response.text}`);
  return response.body;
}

/** A user of a test organization with a role (valid grants unless given), registered directly and signed in. */
export async function member(
  org: TestOrg,
  role: Role,
  options: { name?: string; email?: string; permissions?: Permission[] } = {},
): Promise<Member> {
  const email = options.email ?? uniqueEmail(role.toLowerCase());
  const name = options.name ?? `${role} member`;
  const user = await registerUser({
    orgUuid: org.orgUuid,
    name,
    email,
    password: TEST_PASSWORD,
    role,
    permissions: options.permissions ?? grantsFor(org, role),
  });
  return signedIn({ uuid: user.uuid, name, email, role }, org.realm);
}

/** A user as the organization's ADMIN reads it; fails the test unless it answers 200. */
export async function readUser(org: TestOrg, userUuid: string): Promise<UserDto> {
  const response = await org.users.get(userUuid);
  if (response.status !== 200) throw new Error(`Read failed with ${response.status}: ${response.text}`);
  return response.body;
}

/** The status `who` gets reading itself: 200 while it is an active user with a live token. */
export async function selfReadStatus(org: TestOrg, who: Pick<Member, 'uuid' | 'client'>): Promise<number> {
  return (await usersRoutes(org, who).get(who.uuid)).status;
}

/** Deletes a user through the API as the organization's ADMIN; fails the test unless it answers 204. */
export async function deleteViaApi(org: TestOrg, userUuid: string): Promise<void> {
  const response = await org.users.delete(userUuid);
  if (response.status !== 204) throw new Error(`Delete failed with ${response.status}: ${response.text}`);
}

/** Every user of a listing query (all pages at the largest size), as the given client. */
export async function listAllUsers(client: UsersApi, org: TestOrg, query = ''): Promise<UserDto[]> {
  const users: UserDto[] = [];
  for (let page = 0; ; page++) {
    const response = await client.get<UserPage>(org.url(`?linesPerPage=100&page=${page}${query}`));
    if (response.status !== 200) throw new Error(`Listing failed with ${response.status}: ${response.text}`);
    users.push(...response.body.content);
    if (response.body.last) return users;
  }
}

/** The users of the organization with this e-mail (any case, any status), from the whole listing. */
export async function usersWithEmail(org: TestOrg, email: string): Promise<UserDto[]> {
  const all = await listAllUsers(org.admin.api, org, '&status=ALL');
  return all.filter((user) => user.email.toLowerCase() === email.toLowerCase());
}

/** The one user with this e-mail (as written), read back with `GET /users/{userId}`. */
export async function userWithEmail(org: TestOrg, email: string): Promise<UserDto> {
  const found = await usersWithEmail(org, email);
  expect(found.map((user) => user.email)).toEqual([email]);
  const response = await org.users.get(found[0]!.uuid);
  expect(response.status).toBe(200);
  return response.body;
}

/** The uuids in the organization's ADMIN set (what guards the last ADMIN). */
export async function adminSet(orgUuid: string): Promise<string[]> {
  const item = await getItem<{ admins?: Set<string> }>(keys.orgAdmins(orgUuid));
  return [...(item?.admins ?? [])].sort();
}

/** What the SES emulator keeps of each e-mail. */
export interface ReceivedMail {
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
  at: number;
}

/**
 * Waits until the `mail` function has settled every e-mail queued before the call (sent, refused or
 * dead-lettered): e-mails to users leave through the mail queue, after the request that caused them.
 */
export async function mailQueueSettled(timeoutMs = 60_000): Promise<void> {
  const { origin } = new URL(stack().mailQueueUrl);
  const response = await fetch(`${origin}/_local/queues/mail/settled?timeoutMs=${timeoutMs}`);
  const body = (await response.json()) as { settled: boolean; counts: unknown };
  if (!body.settled) throw new Error(`The mail queue did not catch up within ${timeoutMs} ms: ${JSON.stringify(body.counts)}`);
}

/** The e-mails the local SES emulator received for one address, oldest first, once the mail queue caught up. */
export async function mailsTo(address: string): Promise<ReceivedMail[]> {
  await mailQueueSettled();
  const response = await fetch(stack().mailboxUrl);
  if (response.status !== 200) throw new Error(`Mailbox read failed with ${response.status}`);
  const { emails } = (await response.json()) as { emails: ReceivedMail[] };
  return emails.filter((mail) => mail.destination.to.some((to) => to.toLowerCase() === address.toLowerCase()));
}

/** The one e-mail an address received; fails the test when there is not exactly one. */
export async function onlyMailTo(address: string): Promise<ReceivedMail> {
  const mails = await mailsTo(address);
  expect(mails.map((mail) => mail.subject)).toHaveLength(1);
  return mails[0]!;
}

/** The caller a service function receives, from a real access token (as the HTTP layer builds it). */
export const callerOf = (token: string): Promise<Caller> => authenticate(`Bearer ${token}`);

/** A mail context for direct service calls. */
export const mailContext = (language: MailContext['language'] = 'en'): MailContext => ({
  language,
  signInUrl: (realm) => `https://console.example.test/${realm}`,
});

/** A mailer that keeps what it is asked to send, for direct service calls. */
export function recordingMailer(): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  return { sent, send: async (message) => void sent.push(message) };
}

/** The Cognito adapter with one operation failing as an unavailable identity provider would. */
export function failingIdentityProvider(operation: Exclude<keyof IdentityProvider, 'verifyPassword'>): IdentityProvider {
  return {
    ...cognitoIdentityProvider,
    [operation]: async () => {
      throw new Error(`identity provider unavailable (${operation})`);
    },
  };
}

/** What the identity provider (the Cognito emulator) holds for a user: its e-mail and whether it is enabled. */
export async function identityOf(userUuid: string): Promise<{ email: string | undefined; enabled: boolean | undefined }> {
  const user = await cognitoClient().send(new AdminGetUserCommand({ UserPoolId: config().userPoolId, Username: userUuid }));
  return { email: user.UserAttributes?.find((attribute) => attribute.Name === 'email')?.Value, enabled: user.Enabled };
}

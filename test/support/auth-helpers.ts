import { generateKeyPairSync, sign } from 'node:crypto';
import { fileSigner } from '../../shared/adapters/signing/token-signer';
import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import type { Role, UserRecord } from '../../shared/domain/users/user.entities';
import { registerUser } from '../../shared/app/users/user-registration';
import { answer, stackApiClient } from './api-client';
import { send, type ApiResponse } from './http-client';
import { requestToken, stack, unique, userArea } from './stack';

/** A password that meets the default policy; every test user gets it. */
export const TEST_PASSWORD = 'Test-Passw0rd';

export interface TestUser {
  user: UserRecord;
  email: string;
  password: string;
  realm: string;
  orgUuid: string;
}

/** Registers a user with an e-mail unique to the run in a seeded organization (real store and Cognito emulator). */
export async function createTestUser(
  options: { orgIndex?: number; role?: Role; email?: string; name?: string; company?: string } = {},
): Promise<TestUser> {
  const org = stack().orgs[options.orgIndex ?? 0]!;
  const email = options.email ?? `user-${unique()}@example.test`;
  const user = await registerUser({
    orgUuid: org.uuid,
    name: options.name ?? 'Test User',
    email,
    password: TEST_PASSWORD,
    role: options.role ?? 'VIEWER',
    permissions: [],
    ...(options.company ? { company: options.company } : {}),
  });
  return { user, email, password: TEST_PASSWORD, realm: org.name, orgUuid: org.uuid };
}

/** Marks a user DELETED in the store (there is no delete API yet). */
export async function markDeleted(orgUuid: string, userUuid: string): Promise<void> {
  const updated = await updateItem({
    Key: keys.userKey(orgUuid, userUuid),
    UpdateExpression: 'SET #status = :deleted',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':deleted': 'DELETED' },
  });
  if (!updated) throw new Error(`No user ${userUuid} in organization ${orgUuid}`);
}

export interface TokenBody {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token: string;
  token_type: string;
  'not-before-policy': number;
  session_state: string;
  scope: string;
}

/** A password-grant token for a test user; fails the test when the grant is refused. */
export async function passwordToken(user: Pick<TestUser, 'realm' | 'email' | 'password'>): Promise<TokenBody> {
  const response = await requestToken(user.realm, {
    grant_type: 'password',
    client_id: stack().clientId,
    username: user.email,
    password: user.password,
  });
  if (response.status !== 200) throw new Error(`Token request failed with ${response.status}: ${await response.text()}`);
  return (await response.json()) as TokenBody;
}

/** The caller's User (`GET …/users/identity-provider`) through the typed client, with a bearer token and, if given, a request id. */
export function currentUser(orgUUID: string, token: string, options: { requestId?: string } = {}) {
  return answer(stackApiClient(token, options).GET('/user-management/org/{orgUUID}/users/identity-provider', { params: { path: { orgUUID } } }));
}

/** Calls the current-user route of an organization with the given headers, as they are (none, another scheme, odd request ids). */
export function getCurrentUser(orgUuid: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return send(userArea(orgUuid, '/users/identity-provider'), { headers });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The header and payload of a compact JWT, decoded without any verification. */
export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signature: string } {
  const [header, payload, signature] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>,
    signature: signature!,
  };
}

/** Replaces a token's payload and keeps its original signature (a tampered token). */
export function withPayload(token: string, payload: Record<string, unknown>): string {
  const [header, , signature] = token.split('.');
  return `${header}.${b64url(payload)}.${signature}`;
}

/** The path of the stack's private signing JWK (SIGNING_KEY=file:<path>, inherited from globalSetup). */
function signingKeyPath(): string {
  const value = process.env.SIGNING_KEY ?? '';
  if (!value.startsWith('file:')) throw new Error('SIGNING_KEY is not a file key: run integration tests through jest');
  return value.slice('file:'.length);
}

/** Signs arbitrary header and claims with the stack's real signing key, defaulting the header to ours. */
export async function signWithStackKey(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const signer = fileSigner(signingKeyPath());
  const { kid } = await signer.publicJwk();
  const input = `${b64url({ alg: 'ES256', typ: 'JWT', kid, ...header })}.${b64url(claims)}`;
  return `${input}.${(await signer.sign(Buffer.from(input))).toString('base64url')}`;
}

/** Signs with a freshly generated P-256 key that is not the stack's, under the given key id. */
export function signWithForeignKey(claims: Record<string, unknown>, kid: string): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = `${b64url({ alg: 'ES256', typ: 'JWT', kid })}.${b64url(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

import { bearer } from './auth-helpers';
import { send } from './http-client';
import { userArea } from './stack';
import type { TestOrg } from './user-helpers';

/** A SCIM client as Okta's and Entra ID's provisioning clients are: a SCIM token, `application/scim+json` both ways. */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ACCESS_EXTENSION = 'urn:ietf:params:scim:schemas:extension:agentplatform:2.0:User';
export const ENTERPRISE_EXTENSION = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export interface ScimAnswer {
  status: number;
  headers: Headers;
  // A SCIM answer read as the tests' own expectations say; ajv checks nothing of SCIM's bodies here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any>;
}

export const scimUrl = (orgUuid: string, path: string) => userArea(orgUuid, `/scim/v2${path}`);

/** Sends one SCIM request to `orgUuid`'s service provider with `token`. */
export async function scimRequest(orgUuid: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ScimAnswer> {
  const response = await fetch(scimUrl(orgUuid, path), {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** Issues a SCIM token as `admin` (the organization's ADMIN unless given); fails the test unless it answers 201. */
export async function issueScimToken(org: TestOrg, body: Record<string, unknown> = {}, adminToken = org.admin.token): Promise<{ id: string; token: string; headers: Headers }> {
  const issued = await send<{ id: string; token: string }>(userArea(org.orgUuid, '/scim-tokens'), {
    method: 'POST',
    headers: { ...bearer(adminToken), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (issued.status !== 201) throw new Error(`Issuing a SCIM token answered ${issued.status}: ${issued.text}`);
  return { ...issued.body, headers: issued.headers };
}

/** A user as Okta first provisions one. */
export const oktaUser = (email: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA],
  userName: email,
  name: { givenName: 'Grace', familyName: 'Hopper' },
  emails: [{ primary: true, value: email, type: 'work' }],
  displayName: 'Grace Hopper',
  externalId: `00u${Math.random().toString(36).slice(2, 10)}`,
  active: true,
  ...extra,
});

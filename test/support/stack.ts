import { readFileSync } from 'node:fs';
import type { StackInfo } from '../../infra/local/stack';

/** The local stack that globalSetup started for this run (its description and data directory). */
export function stack(): StackInfo {
  const path = process.env.TEST_STACK_JSON;
  if (!path) throw new Error('TEST_STACK_JSON is not set: run integration tests through jest (globalSetup)');
  return JSON.parse(readFileSync(path, 'utf8')) as StackInfo;
}

export const tokenUrl = (realm: string) => `${stack().authUrl}/auth/realms/${realm}/protocol/openid-connect/token`;

export const userArea = (orgUuid: string, path: string) => `${stack().apiUrl}/${stack().userSubpath}/org/${orgUuid}${path}`;

/** Posts an OAuth form to a realm's token endpoint. */
export async function requestToken(realm: string, form: Record<string, string>): Promise<Response> {
  return fetch(tokenUrl(realm), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

/** A password-grant token for a seeded organization's ADMIN. */
export async function adminToken(orgIndex = 0): Promise<{ accessToken: string; refreshToken: string; orgUuid: string }> {
  const org = stack().orgs[orgIndex]!;
  const response = await requestToken(org.name, {
    grant_type: 'password',
    client_id: stack().clientId,
    username: org.admin.email,
    password: org.admin.password,
  });
  if (response.status !== 200) throw new Error(`Token request failed with ${response.status}`);
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  return { accessToken: body.access_token, refreshToken: body.refresh_token, orgUuid: org.uuid };
}

/** A unique suffix, so tests never collide with each other or with a previous run. */
export const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

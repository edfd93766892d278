import { percentDecodes } from '../../shared/edge/http/path-decoding';
import type { FuzzRequest } from './fuzz-generators';
import { oauthRoutes, type Sent } from './fuzz-requests';
import type { World } from './fuzz-world';
import { UUID } from './http-client';
import { stack } from './stack';

/** What the fuzz test (test/integration/fuzz.test.ts) checks of each answer, and how it reads back the target of a write. */

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// ---------------------------------------------------------------------------------------------------
// Targets of writes: what must read back the same after a refused write.

async function read(url: string, token: string): Promise<string> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return `${response.status} ${await response.text()}`;
}

/** How to read back what a write aims at, for the routes whose target is known. */
export function targetOf(world: World, fuzz: FuzzRequest): (() => Promise<string>) | undefined {
  const { org, known } = world;
  const admin = org.admin.token;
  const botBase = `${stack().apiUrl}/${stack().generativeSubpath}/org/${org.orgUuid}/env/${org.envA}/bot/${known.botUUID}`;
  const users = () => read(org.url('?status=ALL&linesPerPage=100&orderBy=email&direction=ASC'), admin);
  switch (fuzz.route.id) {
    case 'users.create':
    case 'users.activate':
    case 'bulk.create':
    case 'bulk.delete':
    case 'bulk.grant':
    case 'bulk.revoke':
      return users;
    case 'users.update':
    case 'users.delete':
      return async () => `${await read(org.url(`/${known.userId}`), admin)}\n${await users()}`;
    case 'agents.create':
      return () => read(`${botBase}/agents?size=100&orderBy=createdAt`, admin);
    case 'agents.update':
      return () => read(`${botBase}/agents/${known.agentUUID}`, admin);
    case 'supervisors.update':
      return () => read(`${botBase}/supervisors/${known.supervisorUUID}`, admin);
    case 'configurations.save': {
      const token = fuzz.auth === 'viewer' ? world.viewer.token : org.admin.token;
      return () => read(org.url('').replace(/\/users$/, '/configurations'), token);
    }
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------
// The checks.

export interface Answer {
  status: number;
  contentType: string | null;
  requestId: string | null;
  text: string;
}

export function describeRequest(sent: Sent, answer: Answer): string {
  const body = sent.body === undefined ? '(none)' : `${sent.body.length} bytes: ${JSON.stringify(sent.body.subarray(0, 300).toString('latin1'))}`;
  return [
    `${sent.method} ${sent.url.length > 400 ? `${sent.url.slice(0, 400)}…` : sent.url}`,
    `headers ${JSON.stringify({ ...sent.headers, authorization: sent.headers.authorization?.slice(0, 20) })}`,
    `body ${body}`,
    `answer ${answer.status} ${answer.contentType ?? ''} x-request-id=${answer.requestId ?? '(none)'} ${answer.text.slice(0, 500)}`,
  ].join('\n  ');
}

/** What is wrong with an answer: a 5xx, the request id, the error body, a path that does not percent-decode. */
export function problemsWith(fuzz: FuzzRequest, sent: Sent, answer: Answer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`a ${answer.status}`);
  const given = sent.headers['x-request-id'];
  if (given !== undefined && SAFE_REQUEST_ID.test(given)) {
    if (answer.requestId !== given) problems.push(`x-request-id ${answer.requestId} instead of the one sent`);
  } else if (!answer.requestId || !UUID.test(answer.requestId)) {
    problems.push(`x-request-id ${answer.requestId}: a generated uuid was expected`);
  }
  if (answer.status >= 400) problems.push(...errorBodyProblems(fuzz, sent, answer));
  if (!percentDecodes(new URL(sent.url).pathname) && !(answer.status === 404 && answer.text.includes('"errorCode":"NOT_FOUND"'))) {
    problems.push('a path that does not percent-decode answered other than 404 NOT_FOUND');
  }
  return problems;
}

/** The SCIM endpoints answer SCIM's error schema (RFC 7644 §3.12) with a `scimType`, as `application/scim+json`. */
function scimErrorProblems(answer: Answer): string[] {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return ['a SCIM error body that is not JSON'];
  }
  const problems: string[] = [];
  const expected = {
    schemas: JSON.stringify(body.schemas) === JSON.stringify(['urn:ietf:params:scim:api:messages:2.0:Error']),
    status: body.status === String(answer.status),
    scimType: typeof body.scimType === 'string' && /^[a-zA-Z]+$/.test(body.scimType),
    detail: typeof body.detail === 'string' && body.detail.length > 0,
  };
  for (const [field, fine] of Object.entries(expected)) if (!fine) problems.push(`SCIM error body field ${field} is ${JSON.stringify(body[field])?.slice(0, 100)}`);
  const extra = Object.keys(body).filter((key) => !(key in expected));
  if (extra.length > 0) problems.push(`SCIM error body has ${extra.join(', ')}`);
  if (/\w+Exception\b|\bstack\b|\n\s+at |\.[jt]s:\d+/.test(answer.text)) problems.push('the error body leaks internals');
  return problems;
}

function errorBodyProblems(fuzz: FuzzRequest, sent: Sent, answer: Answer): string[] {
  if (fuzz.route.errors?.scim && answer.contentType?.startsWith('application/scim+json')) return scimErrorProblems(answer);
  // The authorization flow's error pages: HTML the route declares for this status, for a person to read.
  const page = fuzz.route.responses.some((outcome) => outcome.status === answer.status && outcome.text?.mediaType === 'text/html');
  if (page && answer.contentType?.startsWith('text/html')) {
    return /\w+Exception\b|\n\s+at |\.[jt]s:\d+/.test(answer.text) ? ['the error page leaks internals'] : [];
  }
  if (!answer.contentType?.startsWith('application/json')) return [`content type ${answer.contentType} on an error`];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return ['an error body that is not JSON'];
  }
  const oauth = oauthRoutes.has(fuzz.route.id) && typeof body.error === 'string' && typeof body.error_description === 'string';
  if (oauth) return [];
  const problems: string[] = [];
  const expected = {
    timestamp: typeof body.timestamp === 'number' && Math.abs(body.timestamp - Date.now()) < 60_000,
    errorCode: typeof body.errorCode === 'string' && /^[A-Z_]+$/.test(body.errorCode),
    errorType: body.errorType === 'USER_ERROR',
    message: typeof body.message === 'string' && body.message.length > 0,
    path: body.path === new URL(sent.url).pathname,
  };
  for (const [field, fine] of Object.entries(expected)) if (!fine) problems.push(`error body field ${field} is ${JSON.stringify(body[field])?.slice(0, 100)}`);
  const allowed = new Set(['timestamp', 'errorCode', 'errorType', 'message', 'path', 'details']);
  const extra = Object.keys(body).filter((key) => !allowed.has(key));
  if (extra.length > 0) problems.push(`error body has ${extra.join(', ')}`);
  if (body.details !== undefined) {
    const details = body.details;
    const wellFormed =
      Array.isArray(details) &&
      details.every(
        (d: Record<string, unknown>) => typeof d.fieldName === 'string' && typeof d.message === 'string' && typeof d.errorCode === 'string',
      );
    if (!wellFormed) problems.push('details are not a list of { fieldName, message, errorCode }');
  }
  if (/\w+Exception\b|\bstack\b|\n\s+at |\.[jt]s:\d+/.test(answer.text)) problems.push('the error body leaks internals');
  return problems;
}

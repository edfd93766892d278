import { contractOf, contractViolation, type ObservedResponse } from '../support/contract';
import { defaultSubpaths } from '../../shared/edge/api/routes';
import { openApiDocument } from '../../shared/edge/openapi/document';

const server = 'https://management.agents.test';
const against = contractOf(openApiDocument(defaultSubpaths, server), [server]);
const org = '6f1c2a43-5b7e-4d8f-9a0b-1c2d3e4f5a6b';
const userUrl = `${server}/user-management/org/${org}/users/${org}`;

const user = {
  uuid: org,
  orgUUID: org,
  name: 'Ada',
  email: 'ada@example.org',
  image: null,
  company: null,
  admin: true,
  role: 'ADMIN',
  permissions: [],
  status: 'ACTIVE',
  createdAt: '2026-01-02T03:04:05.000Z',
};
const json = (method: string, url: string, status: number, body: unknown): ObservedResponse => ({
  method,
  url,
  status,
  contentType: 'application/json',
  body,
  text: JSON.stringify(body),
});
const errorBody = { timestamp: 1, errorCode: 'NOT_FOUND', errorType: 'USER_ERROR', message: 'Not found', path: '/x' };

describe('the OpenAPI document on responses', () => {
  it('accepts a documented status whose body matches its schema', () => {
    expect(contractViolation(json('GET', userUrl, 200, user), against)).toBeUndefined();
    expect(contractViolation(json('PUT', userUrl, 404, errorBody), against)).toBeUndefined();
  });

  it('refuses a field the mapper should not let out, naming the operation, the status and the field', () => {
    const violation = contractViolation(json('GET', userUrl, 200, { ...user, passwordHash: 'x' }), against);
    expect(violation).toContain('users.get (GET /user-management/org/{orgUUID}/users/{userId}) answered 200');
    expect(violation).toContain('passwordHash');
  });

  it('refuses a status the operation does not document', () => {
    expect(contractViolation(json('GET', userUrl, 418, errorBody), against)).toMatch(/status 418 is not documented/);
  });

  it('picks the literal path over the parameter and checks text bodies by media type', () => {
    const quicksearch = json('GET', `${server}/user-management/org/${org}/users/quicksearch?name=a`, 200, ['Ada']);
    expect(contractViolation(quicksearch, against)).toBeUndefined();
    const csv = { method: 'GET', url: `${userUrl.replace(/users\/.*$/, '')}users/bulk-jobs/${org}/failed-rows`, status: 200, contentType: 'text/csv; charset=utf-8', body: undefined, text: 'Email\n' };
    expect(contractViolation(csv, against)).toBeUndefined();
    expect(contractViolation({ ...csv, contentType: 'text/html' }, against)).toMatch(/content type text\/html is not documented/);
  });

  it('holds a request no operation serves to the standard error body, and ignores other servers', () => {
    expect(contractViolation(json('GET', `${server}/nowhere`, 404, errorBody), against)).toBeUndefined();
    expect(contractViolation(json('GET', `${server}/nowhere`, 404, { oops: true }), against)).toMatch(/no operation/);
    expect(contractViolation(json('GET', 'http://mailbox.test/messages', 200, { oops: true }), against)).toBeUndefined();
  });
});

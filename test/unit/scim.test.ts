import { BadRequestError, ConflictError, type DomainError, NotFoundError, RateLimitedError, UnauthenticatedError, ValidationError } from '../../shared/kernel/errors';
import { filterableOf, matching, MAX_EMAIL_LOOKUPS, parseFilter } from '../../shared/app/scim/scim-filter';
import { internalScimError, scimErrorOf } from '../../shared/app/scim/scim-errors';
import { SCIMMY } from '../../shared/app/scim/scim-schema';
import { desiredOf, toScimUser } from '../../shared/app/scim/scim-user.mapper';
import type { UserRecord } from '../../shared/domain/users/user.entities';

/** The SCIM service provider's pure parts: how a filter is served and matched, the mapping, and the errors' scimType. */

const user = (overrides: Partial<UserRecord> = {}): UserRecord => ({
  uuid: 'u-1',
  orgUuid: 'o-1',
  name: 'Ana Maria Lima',
  email: 'Ana.Lima@Example.test',
  role: 'VIEWER',
  permissions: [{ environmentUuid: 'e-1', botUuid: 'b-1' }],
  status: 'ACTIVE',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-02-01T00:00:00.000Z',
  ...overrides,
});
const filterable = (record: UserRecord) => filterableOf({ ...record, company: record.company ?? '' });

describe('filters', () => {
  test('a filter naming one e-mail per branch with eq is served by the e-mails, folded', () => {
    expect(parseFilter('userName eq "A@X.test"').emails).toEqual(['a@x.test']);
    expect(parseFilter('userName eq "a@x.test" or emails[type eq "work"].value eq "B@x.test"').emails).toEqual(['a@x.test', 'b@x.test']);
    expect(parseFilter('userName eq "a@x.test" and active eq true').emails).toEqual(['a@x.test']);
  });

  test('any other filter is not (it reads the listing entries)', () => {
    for (const filter of ['userName sw "a"', 'userName eq "a@x.test" or active eq false', 'not (userName eq "a@x.test")', 'externalId eq "1"']) {
      expect(parseFilter(filter).emails).toBeUndefined();
    }
    const many = Array.from({ length: MAX_EMAIL_LOOKUPS + 1 }, (_, i) => `userName eq "u${i}@x.test"`).join(' or ');
    expect(parseFilter(many).emails).toBeUndefined();
  });

  test.each(['userName eq', 'userName zz "a"', 'title pr', 'name.middleName eq "x"', '(userName eq "a"', ''])('%j is an invalid filter', (filter) => {
    expect(() => parseFilter(filter)).toThrow(expect.objectContaining({ code: 'INVALID_FILTER' }));
  });

  test('matches without regard to case except externalId, with not, ne, pr and dates', () => {
    const ana = filterable(user({ externalId: 'Ext-1' }));
    const bo = filterable(user({ uuid: 'u-2', name: 'Bo', email: 'bo@example.test', status: 'DELETED', updatedAt: '2025-12-31T00:00:00.000Z' }));
    const ids = (filter: string) => matching(parseFilter(filter), [ana, bo]).map((value) => value.id);
    expect(ids('userName eq "ANA.LIMA@example.TEST"')).toEqual(['u-1']);
    expect(ids('name.familyName eq "maria lima"')).toEqual(['u-1']);
    expect(ids('externalId eq "ext-1"')).toEqual([]);
    expect(ids('externalId eq "Ext-1"')).toEqual(['u-1']);
    expect(ids('externalId pr')).toEqual(['u-1']);
    expect(ids('not (active eq true)')).toEqual(['u-2']);
    expect(ids('userName ne "bo@example.test"')).toEqual(['u-1']);
    expect(ids('meta.lastModified lt "2026-01-01T00:00:00Z"')).toEqual(['u-2']);
    expect(ids('(name.givenName sw "a" or name.givenName ew "O") and emails.value co "example"')).toEqual(['u-1', 'u-2']);
  });
});

describe('mapping', () => {
  test('a user is a SCIM User: userName and the work e-mail, name parts, active, the access extension, meta', () => {
    const resource = toScimUser(user({ externalId: 'x-1', status: 'DELETED' }), 'https://api.example.com/um/org/o-1/scim/v2');
    expect(resource).toMatchObject({
      id: 'u-1',
      externalId: 'x-1',
      userName: 'Ana.Lima@Example.test',
      name: { formatted: 'Ana Maria Lima', givenName: 'Ana', familyName: 'Maria Lima' },
      emails: [{ value: 'Ana.Lima@Example.test', type: 'work', primary: true }],
      active: false,
      'urn:ietf:params:scim:schemas:extension:agentplatform:2.0:User': { role: 'VIEWER', permissions: [{ environmentUuid: 'e-1', botUuid: 'b-1' }] },
      meta: { resourceType: 'User', created: '2026-01-01T00:00:00.000Z', lastModified: '2026-02-01T00:00:00.000Z', location: 'https://api.example.com/um/org/o-1/scim/v2/Users/u-1' },
    });
    // scimmy's schema accepts what the mapper answers.
    expect(() => new SCIMMY.Schemas.User(resource, 'out')).not.toThrow();
  });

  test('the name comes from formatted, else the parts, else displayName; the e-mail that changed wins', () => {
    expect(desiredOf({ userName: 'a@x.test', name: { givenName: 'Ada', familyName: 'Lovelace' } }).name).toBe('Ada Lovelace');
    expect(desiredOf({ userName: 'a@x.test', displayName: 'Ada L.' }).name).toBe('Ada L.');
    expect(desiredOf({ userName: 'a@x.test' }).name).toBe('a@x.test');
    const current = user();
    expect(desiredOf({ userName: current.email, emails: [{ value: 'new@x.test', type: 'work' }] }, current).email).toBe('new@x.test');
    expect(desiredOf({ userName: 'renamed@x.test', emails: [{ value: current.email, primary: true }] }, current).email).toBe('renamed@x.test');
    expect(desiredOf({ userName: 'a@x.test' }, current)).toMatchObject({ name: 'Ana Maria Lima', externalId: null, active: true });
    expect(desiredOf({ userName: 'a@x.test' }).access).toBeUndefined();
  });
});

describe('errors', () => {
  const cases: [DomainError | Error, number, string][] = [
    [new BadRequestError({ code: 'INVALID_FILTER' }), 400, 'invalidFilter'],
    [new BadRequestError({ code: 'FILTER_TOO_BROAD' }), 400, 'tooMany'],
    [new ValidationError({ details: [{ fieldName: 'role', message: 'Give a role', errorCode: 'FIELD_REQUIRED' }] }), 400, 'invalidValue'],
    [new UnauthenticatedError(), 401, 'invalidValue'],
    [new NotFoundError(), 404, 'noTarget'],
    [new ConflictError({ code: 'EMAIL_TAKEN' }), 409, 'uniqueness'],
    [new ConflictError({ code: 'LAST_ADMIN' }), 409, 'mutability'],
    [new ConflictError({ code: 'VERSION_CONFLICT' }), 412, 'invalidVers'],
    [new RateLimitedError({ retryAfterSeconds: 1 }), 429, 'tooMany'],
    [new SCIMMY.Types.Error(400, 'invalidPath', 'no such path'), 400, 'invalidPath'],
  ];
  test.each(cases)('%s is %i %s in SCIM\u2019s error schema', (error, status, scimType) => {
    expect(scimErrorOf(error)).toMatchObject({ status, body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: String(status), scimType } });
  });

  test('429 says when to retry; validation names its fields; anything else is a generic 500', () => {
    expect(scimErrorOf(new RateLimitedError({ retryAfterSeconds: 1 }))!.headers).toEqual({ 'retry-after': '1' });
    expect(scimErrorOf(new ValidationError({ details: [{ fieldName: 'role', message: 'Give a role', errorCode: 'FIELD_REQUIRED' }] }))!.body.detail).toContain('role: Give a role');
    expect(scimErrorOf(new TypeError('boom'))).toBeUndefined();
    const timedOut = Object.assign(new Error('[AbortError]: The operation was aborted.', { cause: { package: '@middy/core' } }), { name: 'TimeoutError' });
    expect(scimErrorOf(timedOut)).toEqual({
      status: 503,
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '503', detail: expect.stringMatching(/partly applied: read the resource back/) },
      headers: { 'retry-after': '1' },
    });
    expect(internalScimError()).toMatchObject({ status: 500, body: { detail: expect.not.stringContaining('boom') } });
  });
});

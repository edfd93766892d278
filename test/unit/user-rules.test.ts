import { randomUUID } from 'node:crypto';
import { resolveAccess, sameAccess, type Access } from '../../shared/domain/users/access-template';
import { generatePassword, passwordProblem } from '../../shared/adapters/identity/password-policy';
import { userSchemas } from '../../shared/domain/users/user.schemas';

const { activateUserSchema, createUserSchema, quicksearchQuerySchema, updateUserSchema, userListQuerySchema } = userSchemas();

const env = randomUUID();
const bot = randomUUID();
const fieldsOf = (result: Access | { fieldName: string }[]) => (Array.isArray(result) ? result.map((i) => i.fieldName) : result);

describe('access template (bulk-create rules 4 to 6)', () => {
  test('role is required unless admin is true', () => {
    expect(fieldsOf(resolveAccess({}))).toEqual(['role']);
    expect(fieldsOf(resolveAccess({ admin: false }))).toEqual(['role']);
    expect(resolveAccess({ admin: true })).toEqual({ role: 'ADMIN', permissions: [] });
  });

  test('admin must agree with role', () => {
    expect(fieldsOf(resolveAccess({ role: 'VIEWER', admin: true, permissions: [{ environmentUuid: env, botUuid: bot }] }))).toEqual(['admin']);
    expect(fieldsOf(resolveAccess({ role: 'ADMIN', admin: false }))).toEqual(['admin']);
    expect(resolveAccess({ role: 'ADMIN', admin: true })).toEqual({ role: 'ADMIN', permissions: [] });
  });

  test('an ADMIN has no permissions', () => {
    expect(fieldsOf(resolveAccess({ role: 'ADMIN', permissions: [{ environmentUuid: env }] }))).toEqual(['permissions']);
  });

  test('VIEWER and EDITOR need bots, SUPERVISOR an environment', () => {
    for (const role of ['VIEWER', 'EDITOR'] as const) {
      expect(fieldsOf(resolveAccess({ role }))).toEqual(['permissions']);
      expect(fieldsOf(resolveAccess({ role, permissions: [{ environmentUuid: env }] }))).toEqual(['permissions.0.botUuid']);
      expect(resolveAccess({ role, permissions: [{ environmentUuid: env, botUuid: bot }] })).toEqual({
        role,
        permissions: [{ environmentUuid: env, botUuid: bot }],
      });
    }
    expect(fieldsOf(resolveAccess({ role: 'SUPERVISOR', permissions: [] }))).toEqual(['permissions']);
    expect(resolveAccess({ role: 'SUPERVISOR', permissions: [{ environmentUuid: env }] })).toEqual({
      role: 'SUPERVISOR',
      permissions: [{ environmentUuid: env }],
    });
  });

  test('repeated grants are kept once', () => {
    const grant = { environmentUuid: env, botUuid: bot };
    expect(resolveAccess({ role: 'EDITOR', permissions: [grant, { ...grant }] })).toEqual({ role: 'EDITOR', permissions: [grant] });
  });

  test('fields left out keep the current access; admin false takes an ADMIN nowhere without a role', () => {
    const viewer: Access = { role: 'VIEWER', permissions: [{ environmentUuid: env, botUuid: bot }] };
    expect(resolveAccess({}, viewer)).toEqual(viewer);
    expect(resolveAccess({ role: 'EDITOR' }, viewer)).toEqual({ ...viewer, role: 'EDITOR' });
    expect(resolveAccess({ admin: true }, viewer)).toEqual({ role: 'ADMIN', permissions: [] });
    expect(fieldsOf(resolveAccess({ admin: false }, { role: 'ADMIN', permissions: [] }))).toEqual(['role']);
    expect(fieldsOf(resolveAccess({ role: 'VIEWER' }, { role: 'ADMIN', permissions: [] }))).toEqual(['permissions']);
    expect(fieldsOf(resolveAccess({ role: 'VIEWER' }, { role: 'SUPERVISOR', permissions: [{ environmentUuid: env }] }))).toEqual([
      'permissions.0.botUuid',
    ]);
  });

  test('sameAccess ignores the order of grants', () => {
    const a = { environmentUuid: env, botUuid: bot };
    const b = { environmentUuid: env };
    expect(sameAccess({ role: 'SUPERVISOR', permissions: [a, b] }, { role: 'SUPERVISOR', permissions: [b, a] })).toBe(true);
    expect(sameAccess({ role: 'SUPERVISOR', permissions: [a] }, { role: 'SUPERVISOR', permissions: [b] })).toBe(false);
    expect(sameAccess({ role: 'EDITOR', permissions: [a] }, { role: 'VIEWER', permissions: [a] })).toBe(false);
  });
});

describe('user request schemas', () => {
  const issues = (schema: { safeParse: (v: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[] }[] } } }, value: unknown) => {
    const result = schema.safeParse(value);
    return result.success ? [] : result.error!.issues.map((issue) => issue.path.join('.'));
  };

  test('create needs a name and an e-mail; trims them', () => {
    expect(issues(createUserSchema, {})).toEqual(['name', 'email']);
    expect(createUserSchema.parse({ name: '  Ann  ', email: ' ann@example.com ' })).toEqual({ name: 'Ann', email: 'ann@example.com' });
    expect(issues(createUserSchema, { name: ' ', email: 'not-an-email' })).toEqual(['name', 'email']);
    expect(issues(createUserSchema, { name: 'Line\nbreak', email: 'a@b.co' })).toEqual(['name']);
    expect(issues(createUserSchema, { name: 'x'.repeat(201), email: 'a@b.co' })).toEqual(['name']);
  });

  test('password follows the policy and needs an equal confirmPassword', () => {
    const base = { name: 'Ann', email: 'ann@example.com' };
    expect(issues(createUserSchema, { ...base, password: 'weak' })).toEqual(['password', 'confirmPassword']);
    expect(issues(createUserSchema, { ...base, password: 'Strong-1' })).toEqual(['confirmPassword']);
    expect(issues(createUserSchema, { ...base, password: 'Strong-1', confirmPassword: 'Strong-2' })).toEqual(['confirmPassword']);
    expect(issues(createUserSchema, { ...base, confirmPassword: 'Strong-1' })).toEqual(['password']);
    expect(issues(updateUserSchema, { ...base, password: 'Strong-1', confirmPassword: 'Strong-1' })).toEqual([]);
  });

  test('unknown fields are refused; a read sent back unchanged is accepted on update', () => {
    expect(issues(createUserSchema, { name: 'Ann', email: 'ann@example.com', uuid: randomUUID() })).toEqual(['']);
    expect(
      issues(updateUserSchema, {
        name: 'Ann',
        email: 'ann@example.com',
        uuid: randomUUID(),
        orgUUID: randomUUID(),
        createdAt: new Date().toISOString(),
        status: 'ACTIVE',
        admin: false,
        role: 'VIEWER',
        permissions: [{ environmentUuid: env, botUuid: bot }],
        image: null,
        company: null,
      }),
    ).toEqual([]);
    expect(issues(updateUserSchema, { name: 'Ann', email: 'ann@example.com', secret: 1 })).toEqual(['']);
  });

  test('role is one of the four; grants are UUIDs', () => {
    expect(issues(createUserSchema, { name: 'A', email: 'a@b.co', role: 'OWNER' })).toEqual(['role']);
    expect(issues(createUserSchema, { name: 'A', email: 'a@b.co', permissions: [{ environmentUuid: 'x' }] })).toEqual([
      'permissions.0.environmentUuid',
    ]);
  });

  test('activate names the user by e-mail; the name is optional', () => {
    expect(issues(activateUserSchema, { email: 'a@b.co' })).toEqual([]);
    expect(issues(activateUserSchema, {})).toEqual(['email']);
  });

  test('listing query: defaults, ranges and whitelists', () => {
    expect(userListQuerySchema.parse({})).toEqual({ page: 0, linesPerPage: 5, orderBy: 'createdAt', direction: 'DESC', status: 'ACTIVE' });
    expect(userListQuerySchema.parse({ direction: 'asc', status: 'all', orderBy: 'name' })).toMatchObject({
      direction: 'ASC',
      status: 'ALL',
      orderBy: 'name',
    });
    expect(issues(userListQuerySchema, { page: '-1', linesPerPage: '101', orderBy: 'password', direction: 'UP', status: 'GONE' })).toEqual([
      'page',
      'linesPerPage',
      'orderBy',
      'direction',
      'status',
    ]);
    expect(issues(userListQuerySchema, { linesPerPage: '0' })).toEqual(['linesPerPage']);
  });

  test('quicksearch query: name required, limit 1 to 50, default 6', () => {
    expect(quicksearchQuerySchema.parse({ name: 'jdo' })).toEqual({ name: 'jdo', limit: 6 });
    expect(issues(quicksearchQuerySchema, {})).toEqual(['name']);
    expect(issues(quicksearchQuerySchema, { name: 'x', limit: '51' })).toEqual(['limit']);
    expect(issues(quicksearchQuerySchema, { name: 'x', limit: '0' })).toEqual(['limit']);
  });
});

test('generated passwords meet the policy and differ', () => {
  const passwords = Array.from({ length: 200 }, generatePassword);
  for (const password of passwords) {
    expect(password).toHaveLength(16);
    expect(passwordProblem(password)).toBeUndefined();
  }
  expect(new Set(passwords).size).toBe(passwords.length);
});


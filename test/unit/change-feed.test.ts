import { randomUUID } from 'node:crypto';
import { decodeFeedCursor, encodeFeedCursor, selectTypes, typePatternsOf } from '../../shared/domain/audit/change-feed';
import { changeEventTypes } from '../../shared/domain/audit/event-types';
import { BadRequestError, ValidationError } from '../../shared/kernel/errors';

const prefix = 'com.agentplatform';

describe('the feed cursor', () => {
  const org = randomUUID();

  it('reads back the position it was made at, for its own organization', () => {
    for (const seq of [0, 1, 49, 123_456_789, 999_999_999_999_999]) expect(decodeFeedCursor(encodeFeedCursor(org, seq), org)).toBe(seq);
  });

  it('is opaque base64url', () => {
    expect(encodeFeedCursor(org, 7)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("refuses another organization's cursor, saying whose it is", () => {
    const cursor = encodeFeedCursor(randomUUID(), 5);
    expect(() => decodeFeedCursor(cursor, org)).toThrow(BadRequestError);
    expect(() => decodeFeedCursor(cursor, org)).toThrow(/another organization/);
  });

  it('refuses a cursor whose position was altered', () => {
    const [version, owner, , check] = Buffer.from(encodeFeedCursor(org, 5), 'base64url').toString().split('.');
    const altered = Buffer.from([version, owner, '6', check].join('.')).toString('base64url');
    expect(() => decodeFeedCursor(altered, org)).toThrow(expect.objectContaining({ code: 'FEED_CURSOR_INVALID' }));
  });

  it.each(['', 'not a cursor', '!!!!', Buffer.from('f1.x.1.y').toString('base64url'), encodeFeedCursor(org, 5).slice(0, -2), 'a'.repeat(201)])('refuses %p', (cursor) => {
    expect(() => decodeFeedCursor(cursor, org)).toThrow(expect.objectContaining({ code: 'FEED_CURSOR_INVALID' }));
  });
});

describe('the types filter', () => {
  it('selects every type with no types or *', () => {
    expect(selectTypes([], prefix)).toBeUndefined();
    expect(selectTypes(['*'], prefix)).toBeUndefined();
    expect(selectTypes([`${prefix}.*`], prefix)).toBeUndefined();
  });

  it('selects full types and their aliases as the same type', () => {
    expect([...selectTypes([`${prefix}.agent.updated`, 'agent.updated'], prefix)!]).toEqual([`${prefix}.agent.updated`]);
  });

  it('expands a trailing * to every known type starting with what precedes it', () => {
    const users = selectTypes([`${prefix}.user.*`], prefix)!;
    expect([...users].sort()).toEqual(changeEventTypes.filter((type) => type.startsWith('user.')).map((type) => `${prefix}.${type}`).sort());
    expect(users.has(`${prefix}.user.identity-provider.linked`)).toBe(true);
    expect(users.has(`${prefix}.agent.updated`)).toBe(false);
  });

  it('refuses an unknown type, a pattern matching none, a type under another prefix and a * inside, naming each with the stack prefix', () => {
    const refusal = (() => {
      try {
        selectTypes(['user.created', 'user.exploded', 'nothing.*', 'org.other.user.created', 'user.*.linked'], prefix);
      } catch (error) {
        return error as ValidationError;
      }
    })();
    expect(refusal).toBeInstanceOf(ValidationError);
    expect(refusal!.details.map((detail) => detail.fieldName)).toEqual(['types[1]', 'types[2]', 'types[3]', 'types[4]']);
    expect(refusal!.details[0]!.message).toContain(`${prefix}.user.*`);
  });

  it('reads repeated and comma-separated values alike', () => {
    expect(typePatternsOf('a.b, c.*,,')).toEqual(['a.b', 'c.*']);
    expect(typePatternsOf(undefined)).toEqual([]);
  });
});

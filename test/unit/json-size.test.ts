import { jsonBytesAtMost, jsonBytesOver } from '../../infra/local/kernel/json-size';

const exact = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("the local gateway's bound on a payload's JSON", () => {
  test('is never below the JSON it stands for', () => {
    const values: unknown[] = [
      'plain',
      '',
      '\u0000\u0001\u001f"\\\n',
      'é€😀',
      '\ud800 lone surrogate',
      0,
      -1.2345678901234567e-308,
      Number.NaN,
      true,
      false,
      null,
      [],
      [undefined, () => 1, Symbol('s'), null],
      { a: undefined, b: () => 1, c: 'x' },
      Object.assign(Object.create(null) as object, { key: 'value' }),
      { version: '2.0', headers: { authorization: `Bearer ${'x'.repeat(900)}`, 'user-agent': 'node' }, requestContext: { http: { method: 'GET' }, timeEpoch: Date.now() }, isBase64Encoded: false },
      { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ré\u0007a', nested: [1, 2, { deep: '😀' }] }) },
    ];
    for (const value of values) expect(jsonBytesAtMost(value)).toBeGreaterThanOrEqual(exact(value));
  });

  test('gives up where JSON may read a value otherwise, so that the JSON is built', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    let deep: unknown = 'end';
    for (let i = 0; i < 100; i++) deep = { deep };
    for (const value of [{ when: new Date() }, { toJSON: () => 'x' }, new (class Thing {})(), { n: BigInt(1) }, cyclic, deep, { list: new (class extends Array {})() }]) {
      expect(jsonBytesAtMost(value)).toBe(Infinity);
    }
  });

  test('tells the exact size only past the limit, and builds the JSON only where the bound passes it', () => {
    const body = 'a'.repeat(1000);
    expect(jsonBytesOver({ body }, 10_000)).toBeUndefined();
    // The bound (6 bytes a character) passes 2,000; the JSON (1,011 bytes) does not.
    expect(jsonBytesAtMost({ body }, 2_000)).toBe(Infinity);
    expect(jsonBytesOver({ body }, 2_000)).toBeUndefined();
    expect(jsonBytesOver({ body }, 1_000)).toBe(exact({ body }));
    // Escapes count as JSON writes them.
    const controls = '\u0001'.repeat(1000);
    expect(jsonBytesOver({ controls }, 5_000)).toBe(exact({ controls }));
    // A value JSON refuses fails as JSON.stringify does.
    expect(() => jsonBytesOver({ n: BigInt(1) }, 10)).toThrow(TypeError);
  });
});

import { randomUUID } from 'node:crypto';
import type * as z from 'zod/mini';
import { agentSchemas } from '../../shared/domain/agents/agent.schemas';
import { toFieldIssues } from '../../shared/edge/http/validation';
import { MANUALS_COLLECTION } from '../support/bot-fixtures';

const { agentCreateSchema, agentPathSchema, agentUpdateSchema, listQuerySchema, parametersSchema, quicksearchQuerySchema, supervisorUpdateSchema, tagSchema } = agentSchemas();

const uuid = () => randomUUID();
const parameters = { requestTimeout: 30000, temperature: 1, topP: 0.5, presencePenalty: 0, frequencyPenalty: 0 };
const agent = (overrides: Record<string, unknown> = {}) => ({
  role: 'Order assistant',
  goal: 'Tell customers where their order is',
  persona: { uuid: uuid() },
  inheritFromSupervisor: true,
  ...overrides,
});
const supervisor = (overrides: Record<string, unknown> = {}) => ({ persona: { uuid: uuid() }, ...overrides });

/** An Agent as `GET /agents/{uuid}` answers it, every field populated. */
const agentAsRead = (overrides: Record<string, unknown> = {}) => ({
  uuid: uuid(),
  role: 'Order assistant',
  flowUUID: uuid(),
  goal: 'Tell customers where their order is',
  instructions: 'Be brief',
  guardrails: 'No refunds',
  persona: {
    uuid: uuid(),
    name: 'Guide',
    image: 'https://images.example.test/guide.png',
    backstory: 'Guides customers.',
    personality: 'Calm',
    communicationStyle: 'WITTY_AND_CASUAL',
  },
  inheritFromSupervisor: true,
  constraints: [{ uuid: uuid(), value: 'Confirm the number' }],
  tags: [{ uuid: uuid(), name: '#orders' }],
  parameters: { ...parameters, maximumTokens: 100 },
  functions: [{ uuid: uuid(), name: 'trackOrder' }],
  knowledge: [{ uuid: uuid(), ...MANUALS_COLLECTION }],
  heirs: [],
  ...overrides,
});

/** The 422 details of missing fields, as `problems` reads them, in the order given. */
const required = (...fields: string[]) => fields.map((field) => `${field} FIELD_REQUIRED`);

/** The 422 details a schema's failure turns into, as `fieldName errorCode`. */
function problems(schema: z.ZodMiniType, input: unknown): string[] {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return [];
  return toFieldIssues(result.error).map((issue) => `${issue.fieldName} ${issue.errorCode}`);
}

describe('agentCreateSchema', () => {
  test('accepts the required fields alone and trims text', () => {
    const result = agentCreateSchema.safeParse(agent({ role: '  Order assistant  ', goal: '\tA goal\n' }));

    expect(result.success).toBe(true);
    expect(result.data).toMatchObject({ role: 'Order assistant', goal: 'A goal' });
  });

  test('accepts every optional field', () => {
    const body = agent({
      instructions: 'Be brief',
      guardrails: 'No refunds',
      constraints: [{ value: 'Confirm the number' }],
      tags: [{ name: '#orders' }, { uuid: uuid(), name: '#ñandú_2-b' }],
      parameters: { ...parameters, maximumTokens: 100 },
      functions: [{ uuid: uuid() }],
      knowledge: [{ uuid: uuid() }],
    });

    expect(problems(agentCreateSchema, body)).toEqual([]);
  });

  test.each(['role', 'goal', 'persona', 'inheritFromSupervisor'])('requires %s', (field) => {
    const body: Record<string, unknown> = agent();
    delete body[field];

    expect(problems(agentCreateSchema, body)).toEqual([`${field} FIELD_REQUIRED`]);
  });

  test.each([
    ['role', 200],
    ['goal', 2000],
    ['instructions', 20000],
    ['guardrails', 10000],
  ])('%s takes at most %d characters', (field, max) => {
    expect(problems(agentCreateSchema, agent({ [field]: 'x'.repeat(max) }))).toEqual([]);
    expect(problems(agentCreateSchema, agent({ [field]: 'x'.repeat(max + 1) }))).toEqual([`${field} FIELD_INVALID`]);
  });

  test.each(['role', 'goal', 'instructions', 'guardrails'])('%s may not be blank', (field) => {
    expect(problems(agentCreateSchema, agent({ [field]: '' }))).toEqual([`${field} FIELD_INVALID`]);
    expect(problems(agentCreateSchema, agent({ [field]: ' \t\n ' }))).toEqual([`${field} FIELD_INVALID`]);
  });

  test.each(['Two\nlines', 'Two\r\nlines', 'Carriage\rreturn'])('role %j must be one line', (role) => {
    expect(problems(agentCreateSchema, agent({ role }))).toEqual(['role FIELD_INVALID']);
  });

  test('a goal may span several lines', () => {
    expect(problems(agentCreateSchema, agent({ goal: 'First\nSecond' }))).toEqual([]);
  });

  test('refuses wrong types, each named', () => {
    const body = agent({ role: 7, inheritFromSupervisor: 'yes', persona: 'abc', tags: {}, constraints: 'none' });

    expect(problems(agentCreateSchema, body).sort()).toEqual([
      'constraints FIELD_INVALID',
      'inheritFromSupervisor FIELD_INVALID',
      'persona FIELD_INVALID',
      'role FIELD_INVALID',
      'tags FIELD_INVALID',
    ]);
  });

  test('refuses unknown fields at every level', () => {
    const body = agent({ color: 'blue', persona: { uuid: uuid(), name: 'x' }, tags: [{ name: '#a', color: 'red' }] });

    expect(problems(agentCreateSchema, body).sort()).toEqual(['color FIELD_UNKNOWN', 'persona.name FIELD_UNKNOWN', 'tags.0.color FIELD_UNKNOWN']);
    // Unlike updates, create takes none of a read's read-only fields: nothing exists yet for them to agree with.
    expect(problems(agentCreateSchema, agent({ uuid: uuid(), flowUUID: uuid(), heirs: [], functions: [{ uuid: uuid(), name: 'f' }] })).sort()).toEqual([
      'flowUUID FIELD_UNKNOWN',
      'functions.0.name FIELD_UNKNOWN',
      'heirs FIELD_UNKNOWN',
      'uuid FIELD_UNKNOWN',
    ]);
  });

  test('takes null for every optional field, as absent, but not for a required one', () => {
    const body = agent({
      instructions: null,
      guardrails: null,
      constraints: null,
      tags: [{ uuid: null, name: '#orders' }],
      parameters: { ...parameters, maximumTokens: null },
      functions: null,
      knowledge: null,
    });

    const result = agentCreateSchema.safeParse(body);

    expect(result.error?.issues).toBeUndefined();
    const { instructions, guardrails, constraints, tags, parameters: model, functions, knowledge } = result.data!;
    expect({ instructions, guardrails, constraints, functions, knowledge }).toEqual({});
    expect(tags![0]!.uuid).toBeUndefined();
    expect(model!.maximumTokens).toBeUndefined();
    // Null is no value for a required field.
    expect(problems(agentCreateSchema, agent({ role: null, goal: null, persona: null, inheritFromSupervisor: null })).sort()).toEqual([
      'goal FIELD_INVALID',
      'inheritFromSupervisor FIELD_INVALID',
      'persona FIELD_INVALID',
      'role FIELD_INVALID',
    ]);
    expect(problems(parametersSchema, { ...parameters, topP: null })).toEqual(['topP FIELD_INVALID']);
  });

  test('create constraints carry only a value: a uuid is an unknown field', () => {
    expect(problems(agentCreateSchema, agent({ constraints: [{ value: 'ok' }, { uuid: uuid(), value: 'x' }] }))).toEqual([
      'constraints.1.uuid FIELD_UNKNOWN',
    ]);
  });

  test('a rule takes at most 2000 characters and may not be blank', () => {
    expect(problems(agentCreateSchema, agent({ constraints: [{ value: 'x'.repeat(2000) }] }))).toEqual([]);
    expect(problems(agentCreateSchema, agent({ constraints: [{ value: 'x'.repeat(2001) }, { value: ' ' }, {}] }))).toEqual([
      'constraints.0.value FIELD_INVALID',
      'constraints.1.value FIELD_INVALID',
      'constraints.2.value FIELD_REQUIRED',
    ]);
  });

  test('references must be UUIDs', () => {
    const body = agent({ persona: { uuid: 'nope' }, functions: [{ uuid: uuid() }, { uuid: '123' }], knowledge: [{}] });

    expect(problems(agentCreateSchema, body)).toEqual(['persona.uuid FIELD_INVALID', 'functions.1.uuid FIELD_INVALID', 'knowledge.0.uuid FIELD_REQUIRED']);
  });

  test.each(['functions', 'knowledge'])('a resource listed twice in %s is refused at the repeat', (field) => {
    const same = uuid();

    expect(problems(agentCreateSchema, agent({ [field]: [{ uuid: same }, { uuid: uuid() }, { uuid: same }] }))).toEqual([
      `${field}.2.uuid FIELD_INVALID`,
    ]);
  });

  test.each(['constraints', 'tags', 'functions', 'knowledge'])('%s hold at most 50 items', (field) => {
    const item = (i: number) =>
      field === 'constraints' ? { value: `rule ${i}` } : field === 'tags' ? { name: `#tag${i}` } : { uuid: uuid() };
    const items = (count: number) => Array.from({ length: count }, (_, i) => item(i));

    expect(problems(agentCreateSchema, agent({ [field]: items(50) }))).toEqual([]);
    expect(problems(agentCreateSchema, agent({ [field]: items(51) }))).toEqual([`${field} FIELD_INVALID`]);
  });

  test('reports every problem at once', () => {
    const body = {
      role: ' ',
      goal: 'x'.repeat(2001),
      persona: { uuid: 'nope' },
      inheritFromSupervisor: 'yes',
      parameters: { ...parameters, temperature: 3 },
      extra: 1,
    };

    expect(problems(agentCreateSchema, body).sort()).toEqual([
      'extra FIELD_UNKNOWN',
      'goal FIELD_INVALID',
      'inheritFromSupervisor FIELD_INVALID',
      'parameters.temperature FIELD_INVALID',
      'persona.uuid FIELD_INVALID',
      'role FIELD_INVALID',
    ]);
  });

  test('a body that is not an object is refused as a whole', () => {
    expect(problems(agentCreateSchema, [agent()])).toEqual(['(body) FIELD_INVALID']);
    expect(problems(agentCreateSchema, undefined)).toEqual(['(body) FIELD_REQUIRED']);
  });
});

describe('tagSchema (#term)', () => {
  test.each(['#orders', '#a', '#Órdenes', '#snake_case', '#kebab-case', '#v2', `#${'x'.repeat(50)}`])('accepts %j', (name) => {
    expect(tagSchema.safeParse({ name }).success).toBe(true);
  });

  test.each(['orders', '#', '##orders', '#two words', '#dot.ted', `#${'x'.repeat(51)}`, '', '#emoji🙂'])('refuses %j', (name) => {
    expect(tagSchema.safeParse({ name }).success).toBe(false);
  });

  test('trims the name and takes an optional uuid, which must be a UUID', () => {
    expect(tagSchema.parse({ name: '  #orders ' })).toEqual({ name: '#orders' });
    expect(tagSchema.safeParse({ uuid: 'x', name: '#orders' }).success).toBe(false);
  });
});

describe('parametersSchema (documented ranges)', () => {
  test.each([
    ['temperature', 0],
    ['temperature', 2],
    ['topP', 0],
    ['topP', 1],
    ['presencePenalty', -2],
    ['presencePenalty', 2],
    ['frequencyPenalty', -2],
    ['frequencyPenalty', 2],
    ['requestTimeout', 1],
    ['requestTimeout', 600000],
    ['maximumTokens', 1],
    ['maximumTokens', 1000000],
  ])('accepts %s = %d', (field, value) => {
    expect(problems(parametersSchema, { ...parameters, [field]: value })).toEqual([]);
  });

  test.each([
    ['temperature', -0.01],
    ['temperature', 2.01],
    ['topP', -0.1],
    ['topP', 1.01],
    ['presencePenalty', -2.01],
    ['presencePenalty', 2.01],
    ['frequencyPenalty', -2.5],
    ['frequencyPenalty', 2.5],
    ['requestTimeout', 0],
    ['requestTimeout', 600001],
    ['requestTimeout', 1.5],
    ['maximumTokens', 0],
    ['maximumTokens', 1000001],
    ['maximumTokens', 2.5],
    ['temperature', '1'],
  ])('refuses %s = %j', (field, value) => {
    expect(problems(parametersSchema, { ...parameters, [field]: value })).toEqual([`${field} FIELD_INVALID`]);
  });

  test('requires every field but maximumTokens', () => {
    expect(problems(parametersSchema, {}).sort()).toEqual(required('frequencyPenalty', 'presencePenalty', 'requestTimeout', 'temperature', 'topP'));
  });

  test('is strict', () => {
    expect(problems(parametersSchema, { ...parameters, seed: 1 })).toEqual(['seed FIELD_UNKNOWN']);
  });
});

describe('agentUpdateSchema', () => {
  test('constraints may carry the uuid of an existing rule, or none for a new one', () => {
    const body = agent({ constraints: [{ uuid: uuid(), value: 'kept' }, { value: 'new' }] });

    expect(problems(agentUpdateSchema, body)).toEqual([]);
  });

  test('a constraint uuid must be a UUID', () => {
    expect(problems(agentUpdateSchema, agent({ constraints: [{ uuid: 'r1', value: 'x' }] }))).toEqual(['constraints.0.uuid FIELD_INVALID']);
  });

  test('takes the same required fields as create', () => {
    expect(problems(agentUpdateSchema, {}).sort()).toEqual(required('goal', 'inheritFromSupervisor', 'persona', 'role'));
  });

  test('takes an Agent as a read shows it, every field populated, and keeps the references', () => {
    const read = agentAsRead();

    const result = agentUpdateSchema.safeParse(read);

    expect(result.error?.issues).toBeUndefined();
    expect(result.data).toMatchObject({ uuid: read.uuid, flowUUID: read.flowUUID, persona: { uuid: read.persona.uuid }, constraints: read.constraints });
    expect(result.data!.functions!.map((f) => f.uuid)).toEqual([read.functions[0]!.uuid]);
    expect(result.data!.knowledge!.map((k) => k.uuid)).toEqual([read.knowledge[0]!.uuid]);
  });

  test('takes an Agent whose optional fields are absent, read as null', () => {
    const read = agentAsRead({
      instructions: null,
      guardrails: null,
      parameters: null,
      persona: { uuid: uuid(), name: 'Plain', image: null, backstory: null, personality: null, communicationStyle: 'FRIENDLY_AND_APPROACHABLE' },
      constraints: [],
      tags: [],
      functions: [],
      knowledge: [],
    });

    expect(problems(agentUpdateSchema, read)).toEqual([]);
  });

  test('read-only fields keep their types, and unknown fields stay unknown at every level', () => {
    const read = agentAsRead();
    const body = {
      ...read,
      uuid: 'u1',
      heirs: [{ role: 1 }],
      createdAt: 'x',
      persona: { ...read.persona, communicationStyle: 'LOUD', mood: 'happy' },
      knowledge: [{ ...read.knowledge[0]!, documentCount: 'many' }],
      functions: [{ ...read.functions[0]!, kind: 'http' }],
    };

    expect(problems(agentUpdateSchema, body).sort()).toEqual([
      'createdAt FIELD_UNKNOWN',
      'functions.0.kind FIELD_UNKNOWN',
      'heirs.0.role FIELD_INVALID',
      'knowledge.0.documentCount FIELD_INVALID',
      'persona.communicationStyle FIELD_INVALID',
      'persona.mood FIELD_UNKNOWN',
      'uuid FIELD_INVALID',
    ]);
  });

  test('a persona read as null must be named again, and the message says how', () => {
    const result = agentUpdateSchema.safeParse(agentAsRead({ persona: null }), { reportInput: true });

    expect(toFieldIssues(result.error!)).toEqual([
      { fieldName: 'persona', errorCode: 'FIELD_INVALID', message: expect.stringContaining('uuid names one of the bot’s personas') },
    ]);
  });
});

describe('supervisorUpdateSchema', () => {
  test('requires only the persona', () => {
    expect(problems(supervisorUpdateSchema, supervisor())).toEqual([]);
    expect(problems(supervisorUpdateSchema, {})).toEqual(['persona FIELD_REQUIRED']);
  });

  test('accepts instructions, guardrails, constraints with or without uuid, tags and parameters', () => {
    const body = supervisor({
      instructions: 'Route',
      guardrails: 'Polite',
      constraints: [{ uuid: uuid(), value: 'a' }, { value: 'b' }],
      tags: [{ name: '#routing' }],
      parameters,
    });

    expect(problems(supervisorUpdateSchema, body)).toEqual([]);
  });

  test('takes a supervisor as a read shows it, with the fields it does not change (the service compares them)', () => {
    const read = agentAsRead({ inheritFromSupervisor: false, heirs: [{ role: 'Order assistant' }] });

    const result = supervisorUpdateSchema.safeParse(read);

    expect(result.error?.issues).toBeUndefined();
    expect(result.data).toMatchObject({ role: read.role, goal: read.goal, inheritFromSupervisor: false, uuid: read.uuid });
    // What is neither in a read nor in the update body stays unknown.
    expect(problems(supervisorUpdateSchema, { ...read, updatedAt: 'x', kind: 'SUPERVISOR' }).sort()).toEqual([
      'kind FIELD_UNKNOWN',
      'updatedAt FIELD_UNKNOWN',
    ]);
  });

  test('takes a supervisor read with its optional fields null', () => {
    const body = agentAsRead({ instructions: null, guardrails: null, parameters: null, constraints: [], tags: [], functions: [], knowledge: [] });

    expect(problems(supervisorUpdateSchema, body)).toEqual([]);
  });

  test('applies the same limits as agents', () => {
    const body = supervisor({
      instructions: 'x'.repeat(20001),
      guardrails: '',
      parameters: { ...parameters, topP: 2 },
      tags: [{ name: 'routing' }],
    });

    expect(problems(supervisorUpdateSchema, body).sort()).toEqual([
      'guardrails FIELD_INVALID',
      'instructions FIELD_INVALID',
      'parameters.topP FIELD_INVALID',
      'tags.0.name FIELD_INVALID',
    ]);
  });
});

describe('listQuerySchema', () => {
  test('defaults to page 1 of 5, updatedAt DESC', () => {
    expect(listQuerySchema.parse({})).toEqual({ page: 1, size: 5, orderBy: 'updatedAt', direction: 'DESC' });
  });

  test('reads every parameter', () => {
    expect(listQuerySchema.parse({ page: '3', size: '100', orderBy: 'role', direction: 'asc', searchTerm: 'réservations' })).toEqual({
      page: 3,
      size: 100,
      orderBy: 'role',
      direction: 'ASC',
      searchTerm: 'réservations',
    });
  });

  test.each(['updatedAt', 'createdAt', 'role'])('may be ordered by %s', (orderBy) => {
    expect(listQuerySchema.parse({ orderBy }).orderBy).toBe(orderBy);
  });

  test('names every bad parameter', () => {
    const query = { page: '0', size: '101', orderBy: 'goal', direction: 'sideways', searchTerm: 'x'.repeat(201) };

    expect(problems(listQuerySchema, query).sort()).toEqual([
      'direction FIELD_INVALID',
      'orderBy FIELD_INVALID',
      'page FIELD_INVALID',
      'searchTerm FIELD_INVALID',
      'size FIELD_INVALID',
    ]);
  });

  test.each([
    ['page', '-1'],
    ['page', 'x'],
    ['size', '0'],
    ['orderBy', 'ROLE'],
  ])('refuses %s=%j', (name, value) => {
    expect(problems(listQuerySchema, { [name]: value })).toEqual([`${name} FIELD_INVALID`]);
  });

  test('ignores parameters it does not know', () => {
    expect(listQuerySchema.safeParse({ utm: 'x' }).success).toBe(true);
  });
});

describe('quicksearchQuerySchema', () => {
  test('requires name and defaults limit to 6', () => {
    expect(quicksearchQuerySchema.parse({ name: 'oas' })).toEqual({ name: 'oas', limit: 6 });
    expect(problems(quicksearchQuerySchema, {})).toEqual(['name FIELD_REQUIRED']);
  });

  test('limit is 1 to 50', () => {
    expect(quicksearchQuerySchema.parse({ name: 'a', limit: '50' }).limit).toBe(50);
    expect(problems(quicksearchQuerySchema, { name: 'a', limit: '51' })).toEqual(['limit FIELD_INVALID']);
    expect(problems(quicksearchQuerySchema, { name: 'a', limit: '0' })).toEqual(['limit FIELD_INVALID']);
  });
});

describe('path schemas', () => {
  test('every path variable must be a UUID, each named', () => {
    const path = { orgUUID: uuid(), envUUID: 'env', botUUID: uuid(), agentUUID: 'nope' };

    expect(problems(agentPathSchema, path).sort()).toEqual(['agentUUID FIELD_INVALID', 'envUUID FIELD_INVALID']);
  });
});

import { randomUUID } from 'node:crypto';
import type { Permission, Role } from '../../shared/domain/users/user.entities';
import {
  adminApi,
  api,
  botUrl,
  deactivateBot,
  deactivateEnvironment,
  freshBot,
  freshEnvironment,
  minimalAgentBody,
  seededBot,
  userWithGrants,
  type Api,
  type BotAddress,
  type FreshBot,
  type PageDto,
} from '../support/bot-helpers';
import { expectError } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';

/**
 * Scope and role checks of the agent-configuration area. The world: a fresh environment A with bots A1
 * and A2, a fresh environment B with bot B1, all in the first organization.
 */
interface World {
  envA: string;
  envB: string;
  bots: Record<'A1' | 'A2' | 'B1', FreshBot>;
}
let world: World;

beforeAll(async () => {
  const [{ envUuid: envA }, { envUuid: envB }] = await Promise.all([freshEnvironment(), freshEnvironment()]);
  const [A1, A2, B1] = await Promise.all([freshBot({ envUuid: envA }), freshBot({ envUuid: envA }), freshBot({ envUuid: envB })]);
  world = { envA, envB, bots: { A1, A2, B1 } };
});

const READ_OK = { listAgents: 200, defaultSupervisor: 200, quicksearch: 200 };
const WRITE_OK = { createAgent: 201, updateSupervisor: 200 };
const READ_FORBIDDEN = { listAgents: 403, defaultSupervisor: 403, quicksearch: 403 };
const WRITE_FORBIDDEN = { createAgent: 403, updateSupervisor: 403 };
const ACCESS = {
  'read+write': { ...READ_OK, ...WRITE_OK },
  read: { ...READ_OK, ...WRITE_FORBIDDEN },
  none: { ...READ_FORBIDDEN, ...WRITE_FORBIDDEN },
};
type Access = keyof typeof ACCESS;

/** Calls the three reads and two writes on a bot; every 403 must carry the standard error body. */
async function exercise(client: Api, bot: FreshBot): Promise<Record<string, number>> {
  const responses: Record<string, ApiResponse<unknown>> = {
    listAgents: await client.get(botUrl(bot, '/agents')),
    defaultSupervisor: await client.get(botUrl(bot, '/supervisors/default')),
    quicksearch: await client.get(botUrl(bot, '/agents/quicksearch?name=a')),
    createAgent: await client.post(botUrl(bot, '/agents'), minimalAgentBody(bot)),
    updateSupervisor: await client.put(botUrl(bot, `/supervisors/${bot.supervisor!.uuid}`), { persona: { uuid: bot.personas[0]!.uuid } }),
  };
  for (const response of Object.values(responses)) {
    if (response.status === 403) expectError(response, 403, 'FORBIDDEN');
  }
  return Object.fromEntries(Object.entries(responses).map(([name, response]) => [name, response.status]));
}

const matrix: [string, Role, (w: World) => Permission[], Record<keyof World['bots'], Access>][] = [
  ['ADMIN without grants', 'ADMIN', () => [], { A1: 'read+write', A2: 'read+write', B1: 'read+write' }],
  ['SUPERVISOR of environment A', 'SUPERVISOR', (w) => [{ environmentUuid: w.envA }], { A1: 'read+write', A2: 'read+write', B1: 'none' }],
  ['SUPERVISOR with a bot grant for A1', 'SUPERVISOR', (w) => [{ environmentUuid: w.envA, botUuid: w.bots.A1.botUuid }], { A1: 'read+write', A2: 'none', B1: 'none' }],
  ['EDITOR of bot A1', 'EDITOR', (w) => [{ environmentUuid: w.envA, botUuid: w.bots.A1.botUuid }], { A1: 'read+write', A2: 'none', B1: 'none' }],
  ['VIEWER of bot A1', 'VIEWER', (w) => [{ environmentUuid: w.envA, botUuid: w.bots.A1.botUuid }], { A1: 'read', A2: 'none', B1: 'none' }],
  ['SUPERVISOR without grants', 'SUPERVISOR', () => [], { A1: 'none', A2: 'none', B1: 'none' }],
  ['EDITOR without grants', 'EDITOR', () => [], { A1: 'none', A2: 'none', B1: 'none' }],
  ['VIEWER without grants', 'VIEWER', () => [], { A1: 'none', A2: 'none', B1: 'none' }],
  ['EDITOR with an environment-wide grant only', 'EDITOR', (w) => [{ environmentUuid: w.envA }], { A1: 'none', A2: 'none', B1: 'none' }],
  ['VIEWER with an environment-wide grant only', 'VIEWER', (w) => [{ environmentUuid: w.envA }], { A1: 'none', A2: 'none', B1: 'none' }],
  [
    'EDITOR granted A1 under the wrong environment',
    'EDITOR',
    (w) => [{ environmentUuid: w.envB, botUuid: w.bots.A1.botUuid }],
    { A1: 'none', A2: 'none', B1: 'none' },
  ],
];

describe('role matrix (bot A1 and A2 in environment A, B1 in environment B)', () => {
  test.each(matrix)('%s', async (_label, role, grants, expected) => {
    const user = await userWithGrants(role, grants(world));

    const seen: Record<string, Record<string, number>> = {};
    for (const name of ['A1', 'A2', 'B1'] as const) seen[name] = await exercise(user.api, world.bots[name]);

    expect(seen).toEqual({ A1: ACCESS[expected.A1], A2: ACCESS[expected.A2], B1: ACCESS[expected.B1] });
  });

  test('a VIEWER’s refused writes change nothing', async () => {
    const viewer = await userWithGrants('VIEWER', [{ environmentUuid: world.envA, botUuid: world.bots.A1.botUuid }]);
    const admin = adminApi();
    const bot = world.bots.A1;
    const countBefore = (await admin.get<PageDto>(botUrl(bot, '/agents'))).body.totalElements;
    const supervisorBefore = await admin.get(botUrl(bot, '/supervisors/default'));

    await viewer.api.post(botUrl(bot, '/agents'), minimalAgentBody(bot));
    await viewer.api.put(botUrl(bot, `/supervisors/${bot.supervisor!.uuid}`), { persona: { uuid: bot.personas[1]!.uuid } });

    expect((await admin.get<PageDto>(botUrl(bot, '/agents'))).body.totalElements).toBe(countBefore);
    const supervisorAfter = await admin.get(botUrl(bot, '/supervisors/default'));
    expect(supervisorAfter.headers.get('etag')).toBe(supervisorBefore.headers.get('etag'));
    expect(supervisorAfter.body.persona).toEqual(supervisorBefore.body.persona);
  });

  test('a VIEWER may read a single agent and a supervisor by uuid of its bot, and not update an agent', async () => {
    const viewer = await userWithGrants('VIEWER', [{ environmentUuid: world.envA, botUuid: world.bots.A1.botUuid }]);
    const bot = world.bots.A1;
    const agent = (await adminApi().post(botUrl(bot, '/agents'), minimalAgentBody(bot))).body;

    const readAgent = await viewer.api.get(botUrl(bot, `/agents/${agent.uuid}`));
    const readSupervisor = await viewer.api.get(botUrl(bot, `/supervisors/${bot.supervisor!.uuid}`));
    const listSupervisors = await viewer.api.get(botUrl(bot, '/supervisors'));
    const updateAgent = await viewer.api.put(botUrl(bot, `/agents/${agent.uuid}`), minimalAgentBody(bot, { role: agent.role }));

    expect([readAgent.status, readSupervisor.status, listSupervisors.status]).toEqual([200, 200, 200]);
    expect(readAgent.body).toEqual(agent);
    expectError(updateAgent, 403, 'FORBIDDEN');
  });
});

describe('scope', () => {
  /** Statuses of one read and one write at an address, each 404 checked for the standard body. */
  async function statusesAt(client: Api, address: BotAddress, supervisorUuid: string, personaUuid: string) {
    const read = await client.get(botUrl(address, '/agents'));
    const write = await client.put(botUrl(address, `/supervisors/${supervisorUuid}`), { persona: { uuid: personaUuid } });
    for (const response of [read, write]) if (response.status === 404) expectError(response, 404, 'NOT_FOUND');
    return [read.status, write.status];
  }

  test("a path organization that is not the token's is a 404, even for an ADMIN", async () => {
    const globex = seededBot(1, 0, 0);
    const supervisor = (await adminApi(1).get(botUrl(globex, '/supervisors/default'))).body;

    expect(await statusesAt(adminApi(0), globex, supervisor.uuid, globex.seeded.personas[0]!.uuid)).toEqual([404, 404]);
  });

  test('an organization that does not exist is a 404', async () => {
    const bot = world.bots.A1;

    expect(await statusesAt(adminApi(), { ...bot, orgUuid: randomUUID() }, bot.supervisor!.uuid, bot.personas[0]!.uuid)).toEqual([404, 404]);
  });

  test('an environment of another organization is a 404', async () => {
    const bot = world.bots.A1;
    const globex = seededBot(1, 0, 0);

    const address = { orgUuid: bot.orgUuid, envUuid: globex.envUuid, botUuid: globex.botUuid };

    expect(await statusesAt(adminApi(), address, bot.supervisor!.uuid, bot.personas[0]!.uuid)).toEqual([404, 404]);
  });

  test('a bot addressed under the wrong environment of its organization is a 404', async () => {
    const bot = world.bots.A1;

    expect(await statusesAt(adminApi(), { ...bot, envUuid: world.envB }, bot.supervisor!.uuid, bot.personas[0]!.uuid)).toEqual([404, 404]);
  });

  test('an unknown environment or bot is a 404', async () => {
    const bot = world.bots.A1;
    const admin = adminApi();

    expect(await statusesAt(admin, { ...bot, envUuid: randomUUID() }, bot.supervisor!.uuid, bot.personas[0]!.uuid)).toEqual([404, 404]);
    expect(await statusesAt(admin, { ...bot, botUuid: randomUUID() }, bot.supervisor!.uuid, bot.personas[0]!.uuid)).toEqual([404, 404]);
  });

  test('an inactive environment is a 404 for its bots, for an ADMIN and a SUPERVISOR granted it', async () => {
    const { envUuid } = await freshEnvironment();
    const bot = await freshBot({ envUuid });
    const supervisor = await userWithGrants('SUPERVISOR', [{ environmentUuid: envUuid }]);
    const before = await statusesAt(supervisor.api, bot, bot.supervisor!.uuid, bot.personas[0]!.uuid);

    await deactivateEnvironment(bot.orgUuid, envUuid);

    expect(before).toEqual([200, 200]);
    expect(await statusesAt(adminApi(), bot, bot.supervisor!.uuid, bot.personas[0]!.uuid)).toEqual([404, 404]);
    expect(await statusesAt(supervisor.api, bot, bot.supervisor!.uuid, bot.personas[0]!.uuid)).toEqual([404, 404]);
  });

  test('an inactive bot is a 404, for an ADMIN and an EDITOR granted it; its neighbour still answers', async () => {
    const { envUuid } = await freshEnvironment();
    const [bot, neighbour] = await Promise.all([freshBot({ envUuid }), freshBot({ envUuid })]);
    const editor = await userWithGrants('EDITOR', [{ environmentUuid: envUuid, botUuid: bot.botUuid }]);
    const before = await statusesAt(editor.api, bot, bot.supervisor!.uuid, bot.personas[0]!.uuid);

    await deactivateBot(bot);

    expect(before).toEqual([200, 200]);
    expect(await statusesAt(adminApi(), bot, bot.supervisor!.uuid, bot.personas[0]!.uuid)).toEqual([404, 404]);
    expect(await statusesAt(editor.api, bot, bot.supervisor!.uuid, bot.personas[0]!.uuid)).toEqual([404, 404]);
    expectError(await adminApi().get(botUrl(bot, '/supervisors/default')), 404, 'NOT_FOUND');
    expect((await adminApi().get(botUrl(neighbour, '/agents'))).status).toBe(200);
  });

  test('scope is checked before the role: a user without grants gets 404, not 403, outside its organization', async () => {
    const editor = await userWithGrants('EDITOR', []);
    const globex = seededBot(1, 0, 0);

    expectError(await editor.api.get(botUrl(globex, '/agents')), 404, 'NOT_FOUND');
    expectError(await editor.api.get(botUrl(world.bots.A1, '/agents')), 403, 'FORBIDDEN');
  });

  test('every route needs a bearer token: 401 before anything else', async () => {
    const bot = world.bots.A1;
    const anonymous = api(undefined);

    const responses = [
      await anonymous.get(botUrl(bot, '/agents')),
      await anonymous.get(botUrl(bot, '/agents/quicksearch?name=a')),
      await anonymous.get(botUrl(bot, `/agents/${randomUUID()}`)),
      await anonymous.post(botUrl(bot, '/agents'), { role: '' }),
      await anonymous.put(botUrl(bot, `/agents/${randomUUID()}`), '{'),
      await anonymous.get(botUrl(bot, '/supervisors')),
      await anonymous.get(botUrl(bot, '/supervisors/default')),
      await anonymous.get(botUrl(bot, `/supervisors/${bot.supervisor!.uuid}`)),
      await anonymous.put(botUrl(bot, `/supervisors/${bot.supervisor!.uuid}`), {}),
    ];

    for (const response of responses) expectError(response, 401, 'UNAUTHENTICATED');
  });
});

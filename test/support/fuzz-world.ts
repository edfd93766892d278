import { addCollection, addFunction, addPersona, addSupervisor } from '../../shared/app/operator/operator.service';
import { TEST_PASSWORD } from './auth-helpers';
import { stack } from './stack';
import { freshOrganization, member, uniqueEmail, type Member, type TestOrg } from './user-helpers';

/**
 * What the fuzz test (test/integration/fuzz.test.ts) aims at: an organization of its own with a
 * VIEWER, a bot with personas, functions, a collection, a supervisor and an agent, a user and a bulk
 * job, so that generated paths can name what exists; and the seeded organization's, for cross-tenant
 * paths.
 */

export interface World {
  org: TestOrg;
  viewer: Member;
  /** Existing resources by path parameter name. */
  known: Record<string, string>;
  /** A resource of another (seeded) organization per parameter, for cross-tenant paths. */
  foreign: Record<string, string>;
  targetEmail: string;
  personas: string[];
  functions: string[];
  collections: string[];
  clientId: string;
}


export async function fuzzWorld(): Promise<World> {
  const org = await freshOrganization();
  const viewer = await member(org, 'VIEWER');
  const bot = org.botA1;
  const personas = [(await addPersona(bot, { name: 'Fuzz persona' })).uuid, (await addPersona(bot, { name: 'Second' })).uuid];
  const functions = [(await addFunction(bot, 'fnOne')).uuid, (await addFunction(bot, 'fnTwo')).uuid];
  const collections = [(await addCollection(bot, { name: 'Manuals' })).uuid];
  const supervisor = await addSupervisor(bot, { role: 'Fuzz supervisor', goal: 'Route', personaUuid: personas[0]! });
  const admin = org.admin.api;
  const botBase = `${stack().apiUrl}/${stack().generativeSubpath}/org/${org.orgUuid}/env/${org.envA}/bot/${bot}`;
  const agent = await admin.post<{ uuid: string }>(`${botBase}/agents`, {
    role: 'Fuzz agent',
    goal: 'Be fuzzed',
    persona: { uuid: personas[0] },
    inheritFromSupervisor: false,
    parameters: { requestTimeout: 1000, temperature: 0.5, topP: 0.5, presencePenalty: 0, frequencyPenalty: 0 },
  });
  const targetEmail = uniqueEmail('fuzz-target');
  const user = await admin.post(org.url(), {
    name: 'Fuzz target',
    email: targetEmail,
    role: 'VIEWER',
    permissions: [{ environmentUuid: org.envA, botUuid: bot }],
    password: TEST_PASSWORD,
    confirmPassword: TEST_PASSWORD,
  });
  const job = await admin.post<{ jobId: string }>(org.url('/bulk-uploads'), undefined);
  if (agent.status !== 201 || user.status !== 200 || job.status !== 201) {
    throw new Error(`Fuzz set-up failed: agent ${agent.status}, user ${user.status}, job ${job.status}`);
  }
  const seeded = stack().orgs[0]!;
  const seededBot = seeded.environments[0]!.bots[0]!;
  return {
    org,
    viewer,
    known: {
      realm: org.realm,
      orgUUID: org.orgUuid,
      envUUID: org.envA,
      botUUID: bot,
      supervisorUUID: supervisor.uuid,
      agentUUID: agent.body.uuid,
      userId: user.body.uuid,
      jobId: job.body.jobId,
    },
    foreign: { realm: seeded.name, orgUUID: seeded.uuid, envUUID: seeded.environments[0]!.uuid, botUUID: seededBot.uuid },
    targetEmail,
    personas,
    functions,
    collections,
    clientId: stack().clientId,
  };
}

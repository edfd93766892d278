import { operatorScope } from '../../shared/domain/agents/bot-scope';
import { createAgent } from '../../shared/app/agents/agent-write.service';
import { addBot, addCollection, addEnvironment, addFunction, addPersona, addSupervisor, createOrganization } from '../../shared/app/operator/operator.service';

/** An organization as seeded: its ADMIN's login, its environments, bots and each bot's parts, by uuid and name. */
export type SeededOrg = Awaited<ReturnType<typeof seedDemo>>[number];

const named = <T extends { uuid: string; name: string }>({ uuid, name }: T) => ({ uuid, name });

/** Demo content: what `npm start` and the integration tests start from. Passwords are for local use only. */
export const demoOrganizations = [
  { name: 'acme', adminName: 'Ada Acme', adminEmail: 'admin@acme.example', adminPassword: 'Acme-Admin-1' },
  { name: 'globex', adminName: 'Gus Globex', adminEmail: 'admin@globex.example', adminPassword: 'Globex-Admin-1' },
];

/** Each bot's personas, functions and collections: the same names in every bot. */
const botPersonas = [
  { name: 'Helpful guide', backstory: 'Has answered customer questions for years.', personality: 'Patient, clear, warm', communicationStyle: 'EMPATHETIC_AND_HELPFUL' },
  { name: 'Straight shooter', backstory: 'A former support lead who values time.', personality: 'Direct, precise', communicationStyle: 'CONCISE_AND_PROFESSIONAL' },
] as const;
const botFunctions = ['lookupOrder', 'createTicket', 'checkStock'];
const botCollections = [
  { name: 'Product manuals', description: 'Manuals of every product', documentCount: 42 },
  { name: 'Return policy', description: 'Returns and refunds', documentCount: 3 },
];

/** One bot; every bot gets resources of the same names, so a bundle of one bot applies to any other (a promotion). */
async function seedBot(orgUuid: string, envUuid: string, name: string) {
  const bot = await addBot(orgUuid, envUuid, name);
  // A bot's parts are independent writes: made at once, so `npm start -- --fresh` seeds in fewer round trips.
  const [personas, functions, collections] = await Promise.all([
    Promise.all(botPersonas.map((persona) => addPersona(bot.uuid, persona))),
    Promise.all(botFunctions.map((functionName) => addFunction(bot.uuid, functionName))),
    Promise.all(botCollections.map((collection) => addCollection(bot.uuid, collection))),
  ]);
  await addSupervisor(bot.uuid, {
    role: 'Supervisor',
    goal: `Route each conversation of ${name} to the agent that can help`,
    personaUuid: personas[0]!.uuid,
    instructions: 'Greet the user, find out what they need and hand over to the right agent.',
    guardrails: 'Never share personal data of other customers.',
    isDefault: true,
  });
  // The bot as `addBot` wrote it: no read of it back (a Query of the index) before its agents are made.
  const scope = operatorScope(bot);
  const parameters = { requestTimeout: 30000, temperature: 0.3, topP: 1, presencePenalty: 0, frequencyPenalty: 0 };
  await Promise.all([
    createAgent(scope, {
      role: 'Order assistant',
      goal: 'Tell customers where their order is and what happens next',
      persona: { uuid: personas[0]!.uuid },
      inheritFromSupervisor: true,
      constraints: [{ value: 'Confirm the order number before sharing any detail' }],
      tags: [{ name: '#orders' }],
      parameters,
      functions: [{ uuid: functions[0]!.uuid }],
      knowledge: [{ uuid: collections[1]!.uuid }],
    }),
    createAgent(scope, {
      role: 'Product expert',
      goal: 'Answer questions about products and their availability',
      persona: { uuid: personas[1]!.uuid },
      inheritFromSupervisor: false,
      tags: [{ name: '#products' }],
      parameters: { ...parameters, maximumTokens: 800 },
      functions: [{ uuid: functions[2]!.uuid }],
      knowledge: [{ uuid: collections[0]!.uuid }],
    }),
  ]);
  return { ...named(bot), personas: personas.map(named), functions: functions.map(named), collections: collections.map(named) };
}

/** Seeds the demo organizations, each with an ADMIN, two environments and two bots per environment. */
export async function seedDemo() {
  // Organizations, environments and bots are independent: seeding them side by side halves start-up.
  return Promise.all(
    demoOrganizations.map(async (demo) => {
      const { organization } = await createOrganization(demo);
      const environments = await Promise.all(
        ['Production', 'Staging'].map(async (envName) => {
          const env = await addEnvironment(organization.uuid, envName);
          const bots = await Promise.all(
            ['sales', 'support'].map((kind) => seedBot(organization.uuid, env.uuid, `${envName} ${kind} bot`)),
          );
          return { ...named(env), bots };
        }),
      );
      return { ...named(organization), admin: { email: demo.adminEmail, password: demo.adminPassword }, environments };
    }),
  );
}

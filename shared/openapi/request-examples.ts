import { bulkCreateExampleFile, bulkPermissionsExampleFile, exampleIds } from './bulk-descriptions';

/**
 * An example body for every operation that takes one, by route id: what "Try it out" starts from.
 * `test/unit/openapi-examples.test.ts` holds each to its operation's schema in the document and to
 * the zod schema the route validates with.
 */

const { environment, bot, otherBot } = exampleIds;
const persona = '5e4d3c2b-1a09-4f8e-a7d6-c5b4a3928170';
const functionUuid = '0c1d2e3f-4a5b-4c6d-9e8f-7a6b5c4d3e2f';
const collection = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const constraint = 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f';
const tag = 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f7a';
/** The console's client id is the deployment's: the operator gives it. */
const clientId = '<client_id>';
const refreshToken = '<refresh_token>';

const parameters = { maximumTokens: 1024, requestTimeout: 30000, temperature: 0.2, topP: 0.9, presencePenalty: 0, frequencyPenalty: 0 };

const agent = {
  role: 'Billing specialist',
  goal: 'Answer questions about invoices, refunds and payment methods.',
  instructions: 'Ask for the invoice number before looking anything up. Quote amounts with their currency.',
  guardrails: 'Never read out a full card number.',
  persona: { uuid: persona },
  inheritFromSupervisor: true,
  tags: [{ name: '#billing' }],
  parameters,
  functions: [{ uuid: functionUuid }],
  knowledge: [{ uuid: collection }],
};

export const requestExamples: Record<string, unknown> = {
  'auth.token': { grant_type: 'password', client_id: clientId, username: 'ada@example.com', password: 'Analytical-1843', scope: 'openid' },
  'auth.revoke': { client_id: clientId, token: refreshToken, token_type_hint: 'refresh_token' },
  'auth.logout': { client_id: clientId, refresh_token: refreshToken },
  'auth.accountSignIn': { username: 'ada@example.com', password: 'Analytical-1843', kc_locale: 'en' },
  'auth.accountPassword': { csrf: '<csrf of the page>', password: 'Analytical-1843', 'password-new': 'Difference-Engine-1822', 'password-confirm': 'Difference-Engine-1822' },
  'auth.accountSignOut': { csrf: '<csrf of the page>' },
  'users.create': {
    name: 'Alan Turing',
    email: 'alan@example.com',
    company: 'Acme Support',
    password: 'Enigma-1912',
    confirmPassword: 'Enigma-1912',
    role: 'EDITOR',
    permissions: [{ environmentUuid: environment, botUuid: bot }],
  },
  'users.activate': { email: 'alan@example.com', role: 'VIEWER', permissions: [{ environmentUuid: environment, botUuid: bot }] },
  'users.update': {
    name: 'Alan Turing',
    email: 'alan@example.com',
    company: 'Acme Support',
    role: 'EDITOR',
    permissions: [
      { environmentUuid: environment, botUuid: bot },
      { environmentUuid: environment, botUuid: otherBot },
    ],
  },
  'bulk.create': { file: bulkCreateExampleFile },
  'bulk.delete': ['alan@example.com', 'grace@example.com'],
  'bulk.grant': { file: bulkPermissionsExampleFile },
  'bulk.revoke': [
    { email: 'alan@example.com', environmentUuid: environment, bot: otherBot },
    { email: 'grace@example.com', environmentUuid: environment },
    { email: 'ada@example.com' },
  ],
  'configurations.save': { key: 'theme', value: 'dark', botUUID: bot },
  'supervisors.update': {
    persona: { uuid: persona },
    instructions: 'Route each question to the agent whose role fits it; answer greetings yourself.',
    guardrails: 'Stay on the topics of Acme products.',
    constraints: [{ uuid: constraint, value: 'Answer in the language of the question.' }],
    tags: [{ uuid: tag, name: '#support' }],
    parameters,
  },
  'agents.create': { ...agent, constraints: [{ value: 'Refer refunds over 500 EUR to a person.' }] },
  'agents.update': { ...agent, constraints: [{ uuid: constraint, value: 'Refer refunds over 1000 EUR to a person.' }] },
};

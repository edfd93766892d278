/**
 * The values the operations' example bodies share (ids of an environment, two bots and a bot's
 * resources, an agent): what "Try it out" starts from. `test/unit/openapi-examples.test.ts` holds each
 * operation's example to its schemas.
 */

/** Ids the examples use: an environment named Production with two bots. */
export const exampleIds = {
  environment: '3f2a9c1e-7b4d-4e8a-9c2f-1a6b5d4e3c21',
  bot: '8d7c6b5a-4e3f-4a1b-8c9d-0e1f2a3b4c5d',
  otherBot: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
} as const;
export const { environment, bot, otherBot } = exampleIds;

/** A bulk-create file: an ADMIN, a SUPERVISOR of the whole environment, and an EDITOR of two bots (two rows). */
export const bulkCreateExampleFile = [
  'Email,Name,Company,Password,Role,EnvironmentUuid,EnvironmentName,Bot',
  'ada@example.com,Ada Lovelace,Acme Support,,ADMIN,,,',
  `grace@example.com,Grace Hopper,Acme Support,Cobol-1959,SUPERVISOR,${environment},Production,`,
  `alan@example.com,Alan Turing,"Acme Support, Night shift",,EDITOR,${environment},Production,${bot}`,
  `alan@example.com,Alan Turing,,,EDITOR,${environment},Production,${otherBot}`,
  '',
].join('\n');

/** A bulk-permissions file: a bot for an EDITOR, the whole environment for a SUPERVISOR. */
export const bulkPermissionsExampleFile = [
  'Email,EnvironmentUuid,EnvironmentName,Bot',
  `alan@example.com,${environment},Production,${otherBot}`,
  `grace@example.com,${environment},Production,`,
  '',
].join('\n');

export const persona = '5e4d3c2b-1a09-4f8e-a7d6-c5b4a3928170';
export const functionUuid = '0c1d2e3f-4a5b-4c6d-9e8f-7a6b5c4d3e2f';
export const collection = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
export const constraint = 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f';
export const tag = 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f7a';
/** The console's client id is the deployment's: the operator gives it. */
export const clientId = '<client_id>';
export const refreshToken = '<refresh_token>';

export const parameters = { maximumTokens: 1024, requestTimeout: 30000, temperature: 0.2, topP: 0.9, presencePenalty: 0, frequencyPenalty: 0 };

export const agent = {
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

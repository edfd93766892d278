import { yamlBundleLimits } from '../../app/bundles/bundle.limits';
import { bundleResponses } from '../../app/bundles/bundle.responses';
import { bundleSchemas } from '../../app/bundles/bundle.schemas';
import { parameters } from './examples';
import { operationsUnder } from './operation';
import { groupDigits } from '../../kernel/text/numbers';

/** A bot's whole configuration as a bundle: export, the plan of applying one, and the apply (docs/api/bundles.md). */

const bundles = operationsUnder('agents', 'generative', '/org/{orgUUID}/env/{envUUID}/bot/{botUUID}');

/** What the document names; `application/x-yaml` and `text/yaml` are read as YAML too. */
const bodyMediaTypes = ['application/json', 'application/yaml'];

const exampleBundle = {
  formatVersion: 1,
  supervisors: [
    {
      default: true,
      role: 'Supervisor',
      goal: 'Route each conversation to the agent that can help',
      instructions: 'Greet the user, find out what they need and hand over to the right agent.',
      guardrails: null,
      persona: { name: 'Helpful guide' },
      inheritFromSupervisor: false,
      constraints: [],
      tags: [],
      parameters: null,
      functions: [],
      knowledge: [],
    },
  ],
  agents: [
    {
      role: 'Order assistant',
      goal: 'Tell customers where their order is and what happens next',
      instructions: null,
      guardrails: null,
      persona: { name: 'Helpful guide' },
      inheritFromSupervisor: true,
      constraints: [{ value: 'Confirm the order number before sharing any detail' }],
      tags: [{ name: '#orders' }],
      parameters,
      functions: [{ name: 'lookupOrder' }],
      knowledge: [{ name: 'Return policy' }],
    },
  ],
};


const bodyDescription =
  'The body is a bundle as `GET …/bundle` answers it, as JSON or, with `Content-Type: application/yaml`, YAML. Entries are matched with the ' +
  'bot’s supervisors and agents by role (without case or accents; the default supervisor with the default supervisor); references are ' +
  'resolved by name against this bot (a name it lacks is a 422 naming the field, e.g. `agents.3.knowledge.0.name`). A body that is not ' +
  'JSON or YAML (`application/x-yaml` and `text/yaml` are read as YAML too), or of another `formatVersion`, is a 400; a JSON body over 6 MB ' +
  `is a 413. YAML costs far more to read than JSON, so a YAML body is a 413 \`BODY_TOO_LARGE\`, before it is read, over ${groupDigits(yamlBundleLimits.bytes)} bytes ` +
  `(1 MiB, half as much again as the YAML export of a bot of 500 agents), or with more than ${groupDigits(yamlBundleLimits.scalars)} keys and values; ` +
  `and a 400 \`MALFORMED_BUNDLE\` with collections nested more than ${yamlBundleLimits.depth} deep, more than ${yamlBundleLimits.aliases} aliases, or a key given twice in a map. ` +
  'Send a larger bundle as JSON.';

export const bundlesApi = {
  export: bundles({
    id: 'bundles.export',
    method: 'GET',
    path: '/bundle',
    access: { bot: 'read' },
    request: { path: () => bundleSchemas().bundlePathSchema, query: () => bundleSchemas().bundleExportQuerySchema },
    summary: 'Export the bot’s configuration as a bundle',
    description:
      'Supervisors and agents with every field, references by name, sorted: two exports of one configuration are byte-identical. ' +
      'JSON, or YAML with `Accept: application/yaml`. The ETag is the bot’s configuration version, which any write of a supervisor or ' +
      'agent changes. `?at=` exports the configuration as it stood at that time, from the revisions (no ETag).',
    responses: [{ status: 200, description: 'The bundle', json: () => bundleResponses().bundleResponseSchema, mediaTypes: ['application/yaml'], headers: ['ETag'] }],
  }),
  plan: bundles({
    id: 'bundles.plan',
    method: 'POST',
    path: '/bundle/plan',
    access: { bot: 'read' },
    request: { path: () => bundleSchemas().bundlePathSchema, body: () => bundleSchemas().bundleSchema, bodyMediaTypes },
    summary: 'What applying a bundle to this bot would change, changing nothing',
    description:
      `${bodyDescription} One change per supervisor and agent: \`create\`, \`update\` or \`unchanged\` for the bundle’s entries, ` +
      '`untouched` for those of the bot the bundle lacks (a bundle deletes nothing). `baseVersion` is the configuration version the plan ' +
      'was computed against: send it as `If-Match` to apply exactly this plan.',
    responses: [{ status: 200, description: 'The plan', json: () => bundleResponses().bundlePlanSchema }],
    example: exampleBundle,
  }),
  apply: bundles({
    id: 'bundles.apply',
    method: 'POST',
    path: '/bundle/apply',
    access: { bot: 'write' },
    request: { path: () => bundleSchemas().bundlePathSchema, body: () => bundleSchemas().bundleSchema, bodyMediaTypes, headers: ['IfMatch', 'IdempotencyKey'] },
    summary: 'Make the bot’s configuration that of a bundle, all or nothing',
    description:
      `${bodyDescription} Makes the plan’s changes, every field of each entry (a supervisor’s role and goal included), all or nothing: ` +
      'each created or updated supervisor and agent gets its revision and audit event; with `If-Match`, a bot whose configuration ' +
      'version is no longer the one named is a 409 and nothing changes. Idempotent with `Idempotency-Key`. Applying a bundle the bot ' +
      'exported changes nothing and writes no revision.',
    responses: [{ status: 200, description: 'The changes made, and the new configuration version (also the ETag)', json: () => bundleResponses().bundleApplySchema, headers: ['ETag', 'Idempotent-Replayed'] }],
    example: exampleBundle,
  }),
};

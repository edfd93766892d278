/**
 * The tiers of the code, top to bottom, each a ladder of layers, and the rules `npm test` holds them to
 * (docs/architecture.md says the same in words). `shared/` holds one folder per tier below the
 * functions: edge (HTTP), app (use cases), domain (records and their rules), adapters (AWS and the
 * identity provider), kernel (what every tier uses). A module may import its own folder and any folder
 * of a lower layer, in its tier or a lower tier; never a folder of a higher layer or tier, nor another
 * folder of its own layer. So no folder of `shared/` can sit in an import cycle, and no file can either
 * (`no-circular`).
 */
const tiers = [
  {
    tier: 'functions',
    layers: [
      // One Lambda entry per resource group, binding catalogue operations to use cases.
      ['functions/(?!common/)[^/]+'],
      ['functions/common'],
    ],
  },
  {
    tier: 'shared/edge',
    layers: [
      // The interactive reference, the OpenAPI document, the middy chains and their parts.
      ['shared/edge/docs'],
      ['shared/edge/openapi'],
      ['shared/edge/http'],
      // The route catalogue: every operation, its access, schemas and examples (zod only, no AWS).
      ['shared/edge/api'],
    ],
  },
  {
    tier: 'shared/app',
    layers: [
      // Access: who may do what, turning a caller into the scope a use case takes.
      ['shared/app/access'],
      // Use cases, the orchestrating ones first.
      ['shared/app/operator', 'shared/app/bulk', 'shared/app/account', 'shared/app/audit-trail', 'shared/app/bundles', 'shared/app/scim', 'shared/app/change-events', 'shared/app/mail'],
      // The use cases of one resource, which the orchestrating ones above call: supervisors and agents, configuration entries, users.
      ['shared/app/agents', 'shared/app/configurations', 'shared/app/users'],
      // The authorization flow's browser steps: the sign-in page, brokering to an organization's provider;
      // webhook subscriptions and the sweep that delivers to them.
      ['shared/app/sign-in', 'shared/app/webhooks'],
      // An organization's OpenID providers: their registration, the links of users to them, the outbound reads.
      ['shared/app/identity-providers'],
      // What the realm's pages share: their words, language and look.
      ['shared/app/pages'],
      ['shared/app/auth'],
    ],
  },
  {
    tier: 'shared/domain',
    layers: [
      // An organization's OpenID providers: outbound reads under the webhooks' rules, links on users.
      ['shared/domain/identity-providers'],
      ['shared/domain/agents', 'shared/domain/configurations', 'shared/domain/webhooks', 'shared/domain/bulk', 'shared/domain/scim'],
      ['shared/domain/users'],
      // Repositories and records that several use cases share.
      ['shared/domain/org', 'shared/domain/sessions', 'shared/domain/audit', 'shared/domain/requests'],
    ],
  },
  {
    tier: 'shared/adapters',
    layers: [
      // Ports and their adapters, then the store and the AWS clients.
      ['shared/adapters/mail'],
      ['shared/adapters/identity', 'shared/adapters/signing', 'shared/adapters/sealing'],
      ['shared/adapters/store', 'shared/adapters/http', 'shared/adapters/events'],
      ['shared/adapters/clients'],
    ],
  },
  {
    tier: 'shared/kernel',
    layers: [
      // Schema pieces, configuration, observability, text, the pages' markup and layout, the words of
      // pages and e-mails; then the error catalogue and the logger; then retries, pacing, lazy values
      // and stack mapping, which import nothing of the project.
      ['shared/kernel/schemas', 'shared/kernel/config\\.ts', 'shared/kernel/metrics\\.ts', 'shared/kernel/text', 'shared/kernel/html', 'shared/kernel/messages'],
      ['shared/kernel/errors\\.ts', 'shared/kernel/logger\\.ts'],
      ['shared/kernel/retry\\.ts', 'shared/kernel/sorted\\.ts', 'shared/kernel/url-limits\\.ts', 'shared/kernel/lazy\\.ts', 'shared/kernel/source-mapped-stack\\.ts'],
    ],
  },
];
const layers = tiers.flatMap(({ layers: ladder }) => ladder);

const folder = (pattern) => `^${pattern}(/|$)`;

/** For each folder, under its tier's name: no import of a higher layer, nor of another folder of its own layer. */
const layerRules = tiers.flatMap(({ tier, layers: ladder }) =>
  ladder.flatMap((layer) => {
    const index = layers.indexOf(layer);
    return layer.map((pattern) => {
      const higher = layers.slice(0, index).flat();
      const siblings = layer.filter((other) => other !== pattern);
      return {
        name: `tier ${tier}`,
        comment: `${pattern} (tier ${tier}) may import only its own folder and lower layers (see .dependency-cruiser.cjs)`,
        severity: 'error',
        from: { path: folder(pattern) },
        to: { path: [...higher, ...siblings].map(folder), pathNot: folder(pattern) },
      };
    });
  }),
).filter((rule) => rule.to.path.length > 0);

/**
 * The local stack's own ladder (docs/architecture.md#the-local-stacks-folders): its top-level files, then
 * its folders, down to the ground that reads a synthesized template and the small parts all share.
 */
const localRungs = [
  ['infra/local/(?!(env|deployment|iam|sqs|synth|template|kernel)/)[^/]+'],
  ['infra/local/env'],
  ['infra/local/deployment', 'infra/local/iam'],
  ['infra/local/sqs', 'infra/local/synth'],
  ['infra/local/template', 'infra/local/kernel'],
];
const localRules = localRungs.flatMap((rung, index) =>
  rung.map((pattern) => ({
    name: 'rung infra/local',
    comment: `${pattern} may import only its own folder and lower rungs of infra/local (see .dependency-cruiser.cjs)`,
    severity: 'error',
    from: { path: folder(pattern) },
    to: { path: [...localRungs.slice(0, index).flat(), ...rung.filter((other) => other !== pattern)].map(folder), pathNot: folder(pattern) },
  })),
).filter((rule) => rule.to.path.length > 0);

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'No import cycle, not even through types', severity: 'error', from: {}, to: { circular: true } },
    ...layerRules,
    ...localRules,
    {
      name: 'functions-reach-edge-and-app',
      comment: 'A function binds routes to use cases: it imports shared/edge and shared/app only (docs/architecture.md#where-code-goes)',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^shared/(domain|adapters|kernel)/' },
    },
    {
      name: 'adapters-behind-repositories',
      comment:
        'shared/adapters are reached only through a repository (shared/domain/**/*.repository.ts) or a port (shared/{app,domain}/**/*.port.ts) (docs/architecture.md#where-code-goes)',
      severity: 'error',
      from: { path: '^shared/(edge|app|domain)/', pathNot: ['^shared/domain/.+\\.repository\\.ts$', '^shared/(app|domain)/.+\\.port\\.ts$'] },
      to: { path: '^shared/adapters/' },
    },
    {
      name: 'use-cases-in-app',
      comment: 'Every use case (*.service.ts) lives in shared/app (docs/architecture.md#where-code-goes)',
      severity: 'error',
      from: { path: '^(shared/(edge|domain|adapters|kernel)|functions)/.+\\.service\\.ts$' },
      to: {},
    },
    {
      name: 'functions-apart',
      comment: 'A function imports no other function (functions/common is theirs to share)',
      severity: 'error',
      from: { path: '^functions/([^/]+)/' },
      to: { path: '^functions/', pathNot: ['^functions/$1/', '^functions/common/'] },
    },
    {
      name: 'product-stands-alone',
      comment: 'What ships (functions/, shared/) imports nothing of the tooling around it',
      severity: 'error',
      from: { path: '^(functions|shared)/' },
      to: { path: '^(infra|bench|scripts|test)/' },
    },
    {
      name: 'docs-function-holds-no-data-client',
      comment: 'The docs function serves the API description: it reaches no AWS client',
      severity: 'error',
      from: { path: '^functions/docs/' },
      to: { path: '^(shared/adapters/clients/|node_modules/@aws-sdk/)', reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^clients/typescript/src/generated/' },
  },
};

// For the architecture page's check (test/unit/architecture.test.ts); not a dependency-cruiser option.
Object.defineProperty(module.exports, 'layers', { value: layers, enumerable: false });
Object.defineProperty(module.exports, 'tiers', { value: tiers, enumerable: false });
Object.defineProperty(module.exports, 'localRungs', { value: localRungs, enumerable: false });

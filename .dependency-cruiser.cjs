/**
 * The layers of the code, top to bottom, and the rules `npm test` holds them to (docs/architecture.md
 * says the same in words). A module may import its own folder and any folder of a lower layer; never
 * a folder of a higher layer, nor another folder of its own layer. So no folder of `shared/` can sit in
 * an import cycle, and no file can either (`no-circular`).
 */
const layers = [
  // HTTP adapters: one Lambda entry per resource group, binding catalogue operations to use cases.
  ['functions/(?!common/)[^/]+'],
  ['functions/common'],
  // The HTTP layer: the interactive reference, the OpenAPI document, the middy chain and its parts.
  ['shared/docs'],
  ['shared/openapi'],
  ['shared/http'],
  // The route catalogue: every operation, its schemas and examples (zod only, no AWS).
  ['shared/api'],
  // Authorization: who may do what, turning a caller into the scope a use case takes.
  ['shared/access'],
  // Use cases, the orchestrating ones first.
  ['shared/operator', 'shared/bulk', 'shared/account', 'shared/audit-trail', 'shared/bundles', 'shared/scim', 'shared/change-events'],
  ['shared/auth'],
  ['shared/agents', 'shared/configurations', 'shared/webhooks'],
  ['shared/users'],
  // Repositories and records that several use cases share.
  ['shared/org', 'shared/sessions', 'shared/audit'],
  // Ports and their adapters, then the store and the AWS clients.
  ['shared/mail'],
  ['shared/identity'],
  ['shared/store'],
  ['shared/clients'],
  // The kernel: schema pieces, configuration, observability, text; then the error catalogue and the logger;
  // then retries and pacing, which import nothing of the project.
  ['shared/schemas', 'shared/config\\.ts', 'shared/metrics\\.ts', 'shared/tracer\\.ts', 'shared/text'],
  ['shared/errors\\.ts', 'shared/logger\\.ts'],
  ['shared/kernel'],
];

const folder = (pattern) => `^${pattern}(/|$)`;

/** For each folder: no import of a higher layer, nor of another folder of its own layer. */
const layerRules = layers.flatMap((layer, index) =>
  layer.map((pattern) => {
    const higher = layers.slice(0, index).flat();
    const siblings = layer.filter((other) => other !== pattern);
    return {
      name: 'layers',
      comment: `${pattern} may import only its own folder and lower layers (see .dependency-cruiser.cjs)`,
      severity: 'error',
      from: { path: folder(pattern) },
      to: { path: [...higher, ...siblings].map(folder), pathNot: folder(pattern) },
    };
  }),
).filter((rule) => rule.to.path.length > 0);

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'No import cycle, not even through types', severity: 'error', from: {}, to: { circular: true } },
    ...layerRules,
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
      to: { path: '^(shared/clients/|node_modules/@aws-sdk/)', reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^test/support/generated/' },
  },
};

// For the architecture page's check (test/unit/architecture.test.ts); not a dependency-cruiser option.
Object.defineProperty(module.exports, 'layers', { value: layers, enumerable: false });

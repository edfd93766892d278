// Four projects, all run by `npm test`: unit (no AWS), integration (against the local stack, which
// globalSetup starts on free loopback ports and globalTeardown stops), infra (CDK template) and clients.
const { availableParallelism } = require('node:os');

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '\\.[cm]?[jt]s$': '<rootDir>/test/esbuild-transform.cjs' },
  // middy ships only ES modules; esbuild turns them into CommonJS for jest like it does for TypeScript.
  transformIgnorePatterns: ['/node_modules/(?!@middy/|github-slugger/)'],
  // Some middy packages export only an `import` condition, which jest's CommonJS resolver skips.
  moduleNameMapper: { '^@middy/([a-z-]+)$': '<rootDir>/node_modules/@middy/$1/index.js' },
  moduleFileExtensions: ['ts', 'js', 'cjs', 'mjs', 'json'],
};


module.exports = {
  // Global only in jest 29: infra tests bundle the functions in beforeAll, integration tests spawn processes.
  testTimeout: 120000,
  // Twice as many workers as cores (at most 4): integration files mostly wait on the stack (a separate
  // process) and on timers, so further files overlap their waits. On two cores, eight of the longest
  // integration files took 121 s with 2 workers and 61 s with 4, for the same CPU time (docs/benchmarks.md#the-test-suite).
  maxWorkers: Math.min(4, 2 * availableParallelism()),
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
    },
    { ...shared, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    // The client's own tests: its generated types, retries and paging against real local HTTP servers.
    { ...shared, displayName: 'clients', testMatch: ['<rootDir>/clients/*/test/**/*.test.ts'] },
  ],
};

// Three projects, all run by `npm test`: unit (no AWS), integration (against the local stack, which
// globalSetup starts on free loopback ports and globalTeardown stops) and infra (CDK template).
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '\\.[cm]?[jt]s$': '<rootDir>/test/esbuild-transform.cjs' },
  // middy ships only ES modules; esbuild turns them into CommonJS for jest like it does for TypeScript.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  moduleFileExtensions: ['ts', 'js', 'cjs', 'mjs', 'json'],
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
      testTimeout: 30000,
    },
    { ...shared, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'], testTimeout: 120000 },
  ],
};

// Jest transform: esbuild turns TypeScript and the ES-module-only packages (middy) into CommonJS, the
// same compiler that bundles the Lambda functions, so tests, tsx and the bundles agree on semantics.
const { transformSync } = require('esbuild');

module.exports = {
  process(sourceText, sourcePath) {
    const loader = sourcePath.endsWith('.ts') ? 'ts' : 'js';
    const { code, map } = transformSync(sourceText, {
      loader,
      format: 'cjs',
      target: 'node24',
      sourcemap: 'external',
      sourcefile: sourcePath,
      supported: { 'dynamic-import': false },
    });
    return { code, map };
  },
};

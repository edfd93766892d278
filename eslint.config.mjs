import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'dist/', 'clients/*/dist/', '.local/', 'coverage/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', __dirname: 'readonly' } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['log', 'error'] }],
      // `import { z }` hands esbuild one namespace object and bundles all of zod.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value=/^zod(\\/mini)?$/] > ImportSpecifier[imported.name='z']",
          message: "Use `import * as z from 'zod/mini'` so bundles tree-shake zod.",
        },
      ],
      // zod's classic API hangs every method on each schema, so a bundle keeps them all; the functional
      // API (`zod/mini`) keeps only the functions a module calls.
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'zod', message: "Use `import * as z from 'zod/mini'`: the classic API defeats tree shaking." }],
          patterns: [{ regex: '^zod/(v4|v3|v4/classic)$', message: "Use `import * as z from 'zod/mini'`: the classic API defeats tree shaking." }],
        },
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules everywhere, and
// for the server's code the rules that catch a promise nobody awaits (the request path is
// async) and functions that grew past 120 lines. Formatting is Prettier's (.prettierrc.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'generated/', 'drizzle/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore says "unused on purpose" (a destructured field left out, an ignored parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // The one CommonJS file: a thread's start under tsx (src/threads/tsx-boot.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Scripts run as ES modules by node (they import process).
    files: ['**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', Buffer: 'readonly' } },
  },
  {
    // The pages' script runs in the browser (src/web/assets), as a plain script.
    files: ['src/web/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        ['window', 'document', 'navigator', 'location', 'history', 'fetch', 'DOMParser', 'EventSource', 'FormData', 'URLSearchParams']
          .concat(['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'console'])
          .map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Tests and benchmarks may assert with ! and read response bodies as any.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);

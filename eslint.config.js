// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Domain and tool packages never know about HTTP frameworks; only apps/server does.
const httpFree = [
  { group: ['fastify', 'fastify-*', '@fastify/*'], message: 'packages/ must stay free of HTTP frameworks.' },
  { group: ['@engram/server', '**/apps/**'], message: 'packages/ must not depend on apps/.' },
];
// All queries live in packages/db: everything else calls its named query functions.
const queriesInDb = {
  group: ['drizzle-orm', 'drizzle-orm/*'],
  message: 'Queries live in packages/db: add (or use) a named query function there instead of building one here.',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'drizzle/', 'test-results/', '.engram/', 'dist/', 'coverage/', 'apps/dashboard/dist/', 'apps/conflict-app/dist/', 'test/artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: { allowDefaultProject: ['*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'error',
    },
  },
  {
    files: ['packages/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: httpFree }],
      // Configuration is parsed once, in @engram/config.
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through @engram/config.' }],
    },
  },
  {
    // The later entry wins for a rule, so the packages' patterns are repeated here.
    files: ['packages/core/**/*.ts', 'packages/mcp/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...httpFree, queriesInDb] }] },
  },
  {
    files: ['apps/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [queriesInDb] }] },
  },
  {
    files: ['packages/config/src/**/*.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['apps/server/src/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through @engram/config.' }],
    },
  },
  {
    // The dashboard runs in the browser: DOM globals, React's rules of hooks (and its compiler checks).
    files: ['apps/dashboard/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.flat['recommended-latest'].rules,
      'react-hooks/exhaustive-deps': 'error',
      'no-restricted-properties': ['error', { object: 'process', message: 'Browser code has no process: use import.meta.env.' }],
    },
  },
  {
    // The conflict queue MCP App (and the test's host page) run in the browser.
    files: ['apps/conflict-app/src/**/*.ts', 'apps/conflict-app/host/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-properties': ['error', { object: 'process', message: 'Browser code has no process.' }] },
  },
  {
    files: ['test/**/*.ts', '*.config.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
);

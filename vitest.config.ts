import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // PGlite is a full Postgres in WebAssembly; a few files at a time keeps a 2-core machine responsive.
    maxWorkers: 3,
  },
});

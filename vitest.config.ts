import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // PGlite is a full Postgres in WebAssembly; a few files at a time keeps a 2-core machine responsive.
    maxWorkers: 3,
    // expect.poll waits for a state, not for a moment: its default of one second failed a browser
    // test whose tool call took longer on a busy machine ("Keeping Fact B…" still showing). A poll
    // that sees its state returns at once; one that never does fails well inside the test's timeout.
    expect: { poll: { timeout: 20_000 } },
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // A bound on a hang, not a measure of speed: on a 2-core CI machine with the database, the
    // server and the browser competing, 150 sequential commits on PGlite ran past 30 s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // PGlite is a full Postgres in WebAssembly; a few files at a time keeps a 2-core machine responsive.
    maxWorkers: 3,
    // expect.poll waits for a state, not for a moment: its default of one second failed a browser
    // test whose tool call took longer on a busy machine ("Keeping Fact B…" still showing). A poll
    // that sees its state returns at once; one that never does fails well inside the test's timeout.
    expect: { poll: { timeout: 20_000 } },
  },
});

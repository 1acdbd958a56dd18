/**
 * postgres.js makes closures for each query (how it settles), each reserved connection and each
 * transaction. V8 allocates a function literal assigned straight to a property in the old
 * generation, as it would a method: from there, a query's closures kept its whole result alive
 * through every young-generation GC until the next full one, so every row read was promoted
 * (3,000 reads of 60 rows: 112 MB promoted and 102 ms of scavenges, against 1 MB and 28 ms with
 * the closures made young). The patch (patches/postgres+3.4.9.patch) makes them in locals first.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('../fixtures/driver-closures.ts', import.meta.url));
const url = inject('postgresUrl');

const report = async (...args: string[]) => {
  const { stdout } = await run(process.execPath, ['--allow-natives-syntax', FIXTURE, ...args], { env: { ...process.env, NODE_OPTIONS: '' } });
  return JSON.parse(stdout) as Record<string, boolean>;
};

describe('the database driver', () => {
  it("allocates a query's settling closures in the young generation", async () => {
    expect(await report()).toEqual({ queryResolve: true, queryReject: true });
  });

  it.skipIf(!url)('allocates the closures of a reserved connection and of a transaction in the young generation', async () => {
    expect(await report(url!)).toEqual({ queryResolve: true, queryReject: true, reservedRelease: true, transactionPrepare: true });
  });
});

/**
 * The request pool hands out the connection used last (postgres.js, patched: see
 * patches/postgres+3.4.9.patch). After a burst has opened every connection, sequential requests
 * stay on one warm backend instead of taking each connection in turn.
 */
import { createDb, queryRows } from '@engram/db';
import { sql } from 'drizzle-orm';
import { describe, expect, inject, it } from 'vitest';

const url = inject('postgresUrl');

describe.skipIf(!url)('the request pool on postgres', () => {
  it('reuses the most recently released connection', async () => {
    const handle = await createDb({ kind: 'postgres', url: url! }, { maxConnections: 4 });
    try {
      const backend = async (query: ReturnType<typeof sql>) => Number((await queryRows<{ pid: number }>(handle.db, query))[0]!.pid);
      // A burst: four statements at once, each holding its connection for a moment, open all four.
      const burst = await Promise.all(Array.from({ length: 4 }, () => backend(sql`select pg_backend_pid() as pid, pg_sleep(0.05)`)));
      expect(new Set(burst).size).toBe(4);
      // One at a time afterwards: the same connection every time (in turn, all four would appear).
      const sequential: number[] = [];
      for (let i = 0; i < 8; i++) sequential.push(await backend(sql`select pg_backend_pid() as pid`));
      expect(new Set(sequential).size).toBe(1);
      // Reserved connections (transactions) come from the same end of the pool.
      const reserved = await handle.db.transaction(async (tx) => Number((await queryRows<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`))[0]!.pid));
      expect(reserved).toBe(sequential[0]);
    } finally {
      await handle.close();
    }
  });
});

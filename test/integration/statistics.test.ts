/**
 * Planner statistics are the service's own job: a table never analyzed, or grown by more than a
 * fifth since, is analyzed by the upkeep sweep and after imports, on both engines (the embedded
 * one has no autovacuum, and Postgres may run with it off or lagging).
 */
import { embedLocally, provisionWorkspace } from '@engram/core';
import { createDb, forWorkspace, hybridCandidates, queryRows, refreshStatistics, type DbHandle } from '@engram/db';
import { sql } from 'drizzle-orm';
import { describe, expect, inject, it } from 'vitest';
import { TEST_SECRET, testApp } from '../support/app.ts';
import { isolatedTestDatabases } from '../support/databases.ts';

const estimatedRows = async (handle: DbHandle, table: string) => {
  const [row] = await queryRows<{ reltuples: number }>(handle.db, sql`select reltuples::float8 as reltuples from pg_class where relname = ${table}`);
  return Number(row?.reltuples ?? -1);
};

describe.each(isolatedTestDatabases())('planner statistics on $name', (engine) => {
  it('analyzes tables never analyzed or grown by a fifth, after imports and in the sweep, and leaves fresh ones alone', async () => {
    const handle = await engine.open();
    const app = await testApp(handle);
    try {
      const owner = await provisionWorkspace(handle.db, TEST_SECRET, {});
      const importFacts = (count: number, offset: number) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/facts/import',
          headers: { host: 'localhost:8080', authorization: `Bearer ${owner.ownerToken}` },
          payload: {
            facts: Array.from({ length: count }, (_, i) => ({
              content: `Service number ${offset + i} listens on port ${10_000 + offset + i} in the staging cluster.`,
              scope: `services/s${offset + i}`,
              agent_id: 'statistics-test',
              committed_at: new Date(Date.now() - (offset + i + 1) * 60_000).toISOString(),
            })),
          },
        });

      expect(await estimatedRows(handle, 'facts')).toBeLessThan(0); // never analyzed
      const first = await importFacts(300, 0);
      expect(first.statusCode, first.body).toBe(200);
      // The import refreshes statistics once it has answered.
      await expect.poll(() => estimatedRows(handle, 'facts'), { timeout: 30_000 }).toBeGreaterThanOrEqual(300);

      // Fresh now: the sweep leaves facts alone (the first call joins any refresh still running).
      await refreshStatistics(handle.db);
      expect(await refreshStatistics(handle.db)).not.toContain('facts');

      // Grown by far more than a fifth: analyzed again.
      expect((await importFacts(300, 300)).statusCode).toBe(200);
      await expect.poll(() => estimatedRows(handle, 'facts'), { timeout: 30_000 }).toBeGreaterThanOrEqual(600);
    } finally {
      await app.close();
      await handle.close();
    }
  }, 600_000);

  it('analyzes a table whose only row count came from an index build (no column statistics)', async () => {
    const handle = await engine.open();
    try {
      await handle.db.execute(sql`create table stats_probe (n int, label text)`);
      await handle.db.execute(sql`insert into stats_probe select g, 'row ' || g from generate_series(1, 2000) g`);
      await handle.db.execute(sql`create index stats_probe_n_idx on stats_probe (n)`);
      // The index build recorded the row count, so the table no longer looks "never analyzed" by it.
      expect(await estimatedRows(handle, 'stats_probe')).toBe(2000);
      const columns = () => queryRows<{ attname: string }>(handle.db, sql`select attname from pg_stats where tablename = 'stats_probe'`);
      expect(await columns()).toEqual([]);
      expect(await refreshStatistics(handle.db)).toContain('stats_probe');
      expect((await columns()).map((c) => c.attname).sort()).toEqual(['label', 'n']);
      expect(await refreshStatistics(handle.db)).not.toContain('stats_probe');
    } finally {
      await handle.close();
    }
  });
});

// Prepared statements may switch to one generic plan for every workspace after five runs; with
// workspaces of very different sizes that plan was ten times slower than each one's own.
describe.skipIf(!inject('postgresUrl'))('plans per workspace on postgres', () => {
  it('plans the hybrid query for each run, never generically', async () => {
    const handle = await createDb({ kind: 'postgres', url: inject('postgresUrl')! }, { maxConnections: 1 });
    try {
      const ws = await provisionWorkspace(handle.db, TEST_SECRET, {});
      const topic = 'which port does the staging cluster listen on';
      const params = { embedding: embedLocally(topic), model: 'engram-local-hash-v1', topic, includeEphemeral: false, window: { kind: 'current' as const }, depth: 30 };
      for (let i = 0; i < 8; i++) await hybridCandidates(forWorkspace(handle.db, ws.workspaceId), params);
      // The one request connection's prepared statements (its session's own view).
      const [plans] = await queryRows<{ generic: number; custom: number }>(
        handle.db,
        sql`select coalesce(sum(generic_plans), 0)::int as generic, coalesce(sum(custom_plans), 0)::int as custom
            from pg_prepared_statements where statement like 'with vec as%'`,
      );
      expect(plans).toEqual({ generic: 0, custom: 8 });
    } finally {
      await handle.close();
    }
  });
});

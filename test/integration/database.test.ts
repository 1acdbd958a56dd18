import {
  createDb,
  facts,
  forWorkspace,
  insertWorkspace,
  members,
  migrate,
  pendingMigrations,
  queryRows,
} from '@engram/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { databaseSuite, testDatabases } from '../support/databases.ts';
import { MIGRATION_COUNT } from '../support/migrations.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';

describe.each(testDatabases())('database on $name', (engine) => {
  const suite = databaseSuite(engine);

  const newWorkspace = (name: string) =>
    insertWorkspace(suite.handle.db, { engramId: `ENG-T${Math.random().toString(36).slice(2, 10).toUpperCase()}`, name, settings: {} });

  it('is fully migrated, and migrating again applies nothing', async () => {
    expect(await pendingMigrations(suite.handle.db)).toBe(0);
    expect(await migrate(suite.handle.db)).toEqual({ applied: 0, total: MIGRATION_COUNT });
  });

  it('has pgvector, the HNSW and GIN indexes and the validity-window indexes', async () => {
    const [ext] = await queryRows<{ extname: string }>(suite.handle.db, sql`select extname from pg_extension where extname = 'vector'`);
    expect(ext?.extname).toBe('vector');
    const indexes = await queryRows<{ indexname: string; indexdef: string }>(
      suite.handle.db,
      sql`select indexname, indexdef from pg_indexes where tablename = 'facts'`,
    );
    const byName = Object.fromEntries(indexes.map((i) => [i.indexname, i.indexdef]));
    expect(byName.facts_embedding_hnsw_idx).toMatch(/USING hnsw \(embedding halfvec_cosine_ops\)/);
    expect(byName.facts_tsv_gin_idx).toMatch(/USING gin \(tsv\)/);
    expect(byName.facts_workspace_scope_valid_idx).toMatch(/\(workspace_id, scope, valid_until\)/);
    expect(byName.facts_workspace_window_idx).toMatch(/\(workspace_id, valid_from, valid_until\)/);
  });

  it('stores 512-dimension embeddings, generates the tsvector and enforces constraints', async () => {
    const workspace = await newWorkspace('vectors');
    const tenant = forWorkspace(suite.handle.db, workspace.id);
    const embedding = Array.from({ length: 512 }, (_, i) => (i === 0 ? 1 : 0));
    const base = {
      lineageId: crypto.randomUUID(),
      contentHash: 'h',
      scope: 'auth',
      confidence: 0.9,
      agentId: 'agent-1',
    };
    await tenant.insert(facts, { ...base, content: 'The auth service rate-limits to 1000 requests per second', embedding });
    const [row] = await queryRows<{ matches: boolean; distance: number }>(
      suite.handle.db,
      sql`select tsv @@ plainto_tsquery('english', 'rate limits') as matches,
                 embedding <=> ${JSON.stringify(embedding)}::halfvec as distance
          from facts where workspace_id = ${workspace.id}`,
    );
    expect(row).toEqual({ matches: true, distance: 0 });

    await expect(tenant.insert(facts, { ...base, content: 'x', confidence: 1.5 })).rejects.toThrow();
    await expect(tenant.insert(facts, { ...base, content: 'x', embedding: [1, 2, 3] })).rejects.toThrow();
    await expect(
      tenant.insert(facts, { ...base, content: 'x', validFrom: new Date('2026-01-02'), validUntil: new Date('2026-01-01') }),
    ).rejects.toThrow();
  });

  it('confines every TenantDb query to its workspace', async () => {
    const a = forWorkspace(suite.handle.db, (await newWorkspace('a')).id);
    const b = forWorkspace(suite.handle.db, (await newWorkspace('b')).id);
    const [memberA] = await a.insert(members, { role: 'owner', displayName: 'A' }).returning();
    const [memberB] = await b.insert(members, { role: 'owner', displayName: 'B' }).returning();
    expect(memberA?.workspaceId).toBe(a.workspaceId);

    expect((await a.select(members)).map((m) => m.displayName)).toEqual(['A']);
    // Asking for B's row by id through A finds nothing, and cannot change or delete it.
    expect(await a.select(members, sql`${members.id} = ${memberB!.id}`)).toEqual([]);
    await a.update(members, { displayName: 'hijacked' }, sql`${members.id} = ${memberB!.id}`);
    await a.delete(members, sql`${members.id} = ${memberB!.id}`);
    expect((await b.select(members)).map((m) => m.displayName)).toEqual(['B']);

    // Transactions stay confined too.
    await a.transaction(async (tx) => {
      expect((await tx.select(members)).map((m) => m.displayName)).toEqual(['A']);
    });
  });
});

describe.runIf(inject('postgresAdminUrl'))('migrations on a fresh Postgres database', () => {
  const adminUrl = inject('postgresAdminUrl') as string;
  let url: string;
  beforeAll(async () => {
    url = await createScratchDatabase(adminUrl, 'engram_test_migrate');
  });
  afterAll(async () => dropScratchDatabase(adminUrl, url));

  it('are applied exactly once when several instances start together', async () => {
    const handles = await Promise.all([1, 2, 3].map(() => createDb({ kind: 'postgres', url }, { maxConnections: 2 })));
    try {
      expect(await pendingMigrations(handles[0]!.db)).toBe(MIGRATION_COUNT);
      const results = await Promise.all(handles.map((h) => migrate(h.db)));
      expect(results.reduce((sum, r) => sum + r.applied, 0)).toBe(MIGRATION_COUNT);
      const [row] = await queryRows<{ n: number }>(
        handles[0]!.db,
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      expect(row?.n).toBe(MIGRATION_COUNT);
      expect(await pendingMigrations(handles[1]!.db)).toBe(0);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
  });
});

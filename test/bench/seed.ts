/**
 * Bulk seeding of the benchmarks' story (story.ts) into workspaces, as a migration of existing facts
 * would load them: the HNSW index built once after.
 */
import { defaultDatabaseLimits, type Config, type DatabaseLimits } from '@engram/config';
import {
  authenticateToken,
  contentHash,
  embedLocally,
  EXTRACTOR_VERSION,
  readFact,
  LocalEmbedder,
  matchKeysOf,
  provisionWorkspace,
  silentLogger,
  uuidv7,
  type FactServices,
} from '@engram/core';
import { createDb, facts, forWorkspace, migrate, uuidArrayLiteral, type Database } from '@engram/db';
import { sql } from 'drizzle-orm';
import { factText } from './story.ts';

export { factText, QUERY_TOPICS } from './story.ts';

/**
 * Limits for the benchmarks' own connections: bulk loading and index builds run far longer than any
 * request may (the service's statement timeouts, and the embedded database's deadline, would cancel them).
 */
export const BULK_LIMITS: DatabaseLimits = {
  ...defaultDatabaseLimits(),
  readTimeoutMs: 3_600_000,
  writeTimeoutMs: 3_600_000,
  detectionTimeoutMs: 3_600_000,
  lockTimeoutMs: 60_000,
  // The embedded database's deadline for any one statement (a 100,000-fact load's key rows take minutes there).
  requestDeadlineMs: 3_600_000,
};

/** The server secret every benchmark's service runs with. */
export const BENCH_SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

/**
 * A Postgres database migrated, with one workspace seeded with `size` facts of the story: its
 * handle (the caller closes it), the owner, and the fact services commits run with in process.
 */
export async function seededWorkspace(url: string, size: number, options: { name: string; maxConnections: number }) {
  const handle = await createDb({ kind: 'postgres', url }, { maxConnections: options.maxConnections, limits: BULK_LIMITS });
  await migrate(handle.db);
  const created = await provisionWorkspace(handle.db, BENCH_SECRET, { name: options.name });
  await seed(url, created.workspaceId, 0, size);
  const principal = await authenticateToken(handle.db, created.ownerToken);
  return { handle, workspaceId: created.workspaceId, principal, services: benchServices(handle.db) };
}

/** The fact services a benchmark calls the tools' own functions with, in its own process. */
export function benchServices(db: Database): FactServices {
  return { db, embedder: new LocalEmbedder(), secret: BENCH_SECRET, log: silentLogger };
}

export async function seed(databaseUrl: string, workspaceId: string, from: number, to: number): Promise<void> {
  await seedWorkspaces({ kind: 'postgres', url: databaseUrl }, [{ workspaceId, count: to - from }], from);
}

/**
 * Seeds several workspaces in one bulk load (the facts numbered from `from` on, dealt out in plan
 * order), on Postgres or the embedded database, building the HNSW index once at the end.
 */
export async function seedWorkspaces(
  database: Config['database'],
  plan: { workspaceId: string; count: number }[],
  from = 0,
  options: { analyze?: boolean } = {},
): Promise<void> {
  // One connection: the batches go one at a time anyway, and `set maintenance_work_mem` must reach
  // the connection that builds the index.
  const handle = await createDb(database, { maxConnections: 1, limits: BULK_LIMITS });
  const started = performance.now();
  const total = plan.reduce((sum, p) => sum + p.count, 0);
  const to = from + total;
  // Bulk load without the HNSW index, then build it once: how a real migration of 100k facts runs.
  await handle.db.execute(sql`drop index if exists facts_embedding_hnsw_idx`);
  const batch = 1000;
  let n = from;
  for (const { workspaceId, count } of plan) {
    const tenant = forWorkspace(handle.db, workspaceId);
    const end = n + count;
    for (let start = n; start < end; start += batch) {
      const values = [];
      for (let k = start; k < Math.min(end, start + batch); k++) {
        const { content, scope } = factText(k);
        const entities = readFact(content);
        const committedAt = new Date(Date.now() - (to - k) * 60_000);
        const id = uuidv7(committedAt.getTime());
        values.push({
          id,
          lineageId: id,
          content,
          contentHash: contentHash(content),
          scope,
          confidence: 0.9,
          agentId: `seed-${k % 23}`,
          entities,
          matchKeys: matchKeysOf(entities, scope),
          extractorVersion: EXTRACTOR_VERSION,
          embedding: embedLocally(content),
          embeddingModel: 'engram-local-hash-v1',
          committedAt,
          validFrom: committedAt,
        });
      }
      await tenant.insert(facts, values);
    }
    n = end;
  }
  const ids = plan.map((p) => p.workspaceId);
  await handle.db.execute(
    sql`insert into fact_keys (workspace_id, key, committed_at, fact_id)
        select workspace_id, unnest(match_keys), committed_at, id from facts
        where workspace_id = any(${uuidArrayLiteral(ids)}::uuid[]) and not exists (select 1 from fact_keys fk where fk.fact_id = facts.id)`,
  );
  // The embedded engine lives in WebAssembly memory: a smaller build budget there.
  await handle.db.execute(sql.raw(`set maintenance_work_mem = '${database.kind === 'postgres' ? '512MB' : '64MB'}'`));
  await handle.db.execute(sql`create index facts_embedding_hnsw_idx on facts using hnsw (embedding halfvec_cosine_ops)`);
  // Without it (--never-analyzed), the planner knows nothing of these rows until the service's own
  // statistics upkeep runs.
  if (options.analyze !== false) {
    await handle.db.execute(sql`analyze facts`);
    await handle.db.execute(sql`analyze fact_keys`);
  }
  // The load leaves a gigabyte of WAL and dirty pages behind. Flushed now, rather than by a
  // checkpoint that starts during the measurement, they do not slow the fsyncs being measured.
  // (CHECKPOINT needs a superuser or pg_checkpoint; without it, say so and go on.)
  if (database.kind === 'postgres') {
    await handle.db.execute(sql`checkpoint`).catch((error: unknown) => {
      process.stderr.write(`  no CHECKPOINT after seeding (${error instanceof Error ? error.message : String(error)}): a checkpoint may run during the measurements\n`);
    });
  }
  await handle.close();
  process.stderr.write(`  seeded ${total} facts in ${plan.length} workspace(s) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

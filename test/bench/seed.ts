/**
 * A synthetic but varied codebase story for the benchmarks, and bulk seeding of it into a
 * workspace (as a migration of existing facts would load them: the HNSW index built once after).
 */
import { defaultDatabaseLimits, type DatabaseLimits } from '@engram/config';
import { contentHash, embedLocally, EXTRACTOR_VERSION, extractEntities, matchKeysOf, uuidv7 } from '@engram/core';
import { createDb, facts, forWorkspace } from '@engram/db';
import { sql } from 'drizzle-orm';

const SUBJECTS = ['auth', 'payments', 'search', 'billing', 'orders', 'inventory', 'notifications', 'gateway', 'users', 'analytics'];
const AREAS = ['api', 'worker', 'db', 'cache', 'queue', 'config', 'deploy', 'tests'];
const TEMPLATES = [
  (s: string, n: number) => `The ${s} service rate limit is ${100 + (n % 900)} req/s per IP`,
  (s: string, n: number) => `${s} requests time out after ${1 + (n % 60)} seconds`,
  (s: string, n: number) => `The ${s} worker pool size is ${2 + (n % 30)} threads`,
  (s: string, n: number) => `${s} uses Redis for caching with a TTL of ${60 + (n % 3600)} seconds`,
  (s: string, n: number) => `Max ${s} database connections is ${10 + (n % 190)} connections`,
  (s: string, n: number) => `The ${s} queue retries failed jobs ${1 + (n % 9)} times with exponential backoff`,
  (s: string, n: number) => `${s} stores uploads up to ${1 + (n % 500)} MB in S3`,
  (s: string, n: number) => `The ${s} API returns paginated JSON with page size ${10 + (n % 90)}`,
  (s: string, n: number) => `Feature flag ${s.toUpperCase()}_V${n % 7}_ENABLED controls the new ${s} flow`,
  (s: string, n: number) => `The ${s} service is deployed to us-east-1 with ${1 + (n % 12)} replicas`,
];
const scopeOf = (n: number) => `${SUBJECTS[n % SUBJECTS.length]}/${AREAS[Math.floor(n / SUBJECTS.length) % AREAS.length]}`;
/** A distinct fact per n (the serial keeps contents unique within a scope). */
export function factText(n: number): { content: string; scope: string } {
  const subject = SUBJECTS[n % SUBJECTS.length]!;
  const template = TEMPLATES[Math.floor(n / 7) % TEMPLATES.length]!;
  return { content: `${template(subject, n)} (note ${n})`, scope: scopeOf(n) };
}
/**
 * Limits for the benchmarks' own connections: bulk loading and index builds run far longer than any
 * request may (the service's statement timeouts would cancel them).
 */
export const BULK_LIMITS: DatabaseLimits = { ...defaultDatabaseLimits(), readTimeoutMs: 3_600_000, writeTimeoutMs: 3_600_000, detectionTimeoutMs: 3_600_000, lockTimeoutMs: 60_000 };

export async function seed(databaseUrl: string, workspaceId: string, from: number, to: number): Promise<void> {
  const handle = await createDb({ kind: 'postgres', url: databaseUrl }, { maxConnections: 4, limits: BULK_LIMITS });
  const tenant = forWorkspace(handle.db, workspaceId);
  const started = performance.now();
  // Bulk load without the HNSW index, then build it once: how a real migration of 100k facts runs.
  await handle.db.execute(sql`drop index if exists facts_embedding_hnsw_idx`);
  const batch = 1000;
  for (let start = from; start < to; start += batch) {
    const values = [];
    for (let n = start; n < Math.min(to, start + batch); n++) {
      const { content, scope } = factText(n);
      const entities = extractEntities(content, scope);
      const committedAt = new Date(Date.now() - (to - n) * 60_000);
      const id = uuidv7(committedAt.getTime());
      values.push({
        id,
        lineageId: id,
        content,
        contentHash: contentHash(content),
        scope,
        confidence: 0.9,
        agentId: `seed-${n % 23}`,
        entities,
        matchKeys: matchKeysOf(entities),
        extractorVersion: EXTRACTOR_VERSION,
        embedding: embedLocally(content),
        embeddingModel: 'engram-local-hash-v1',
        committedAt,
        validFrom: committedAt,
      });
    }
    await tenant.insert(facts, values);
  }
  await handle.db.execute(
    sql`insert into fact_keys (workspace_id, key, committed_at, fact_id)
        select workspace_id, unnest(match_keys), committed_at, id from facts
        where workspace_id = ${workspaceId} and not exists (select 1 from fact_keys fk where fk.fact_id = facts.id)`,
  );
  await handle.db.execute(sql`set maintenance_work_mem = '512MB'`);
  await handle.db.execute(sql`create index facts_embedding_hnsw_idx on facts using hnsw (embedding halfvec_cosine_ops)`);
  await handle.db.execute(sql`analyze facts`);
  await handle.db.execute(sql`analyze fact_keys`);
  await handle.close();
  process.stderr.write(`  seeded ${to - from} facts in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

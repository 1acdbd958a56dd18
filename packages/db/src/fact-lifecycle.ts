/**
 * A fact's life after its commit: closing a lineage, corroboration, ephemeral facts promoted by
 * their query hits, the expiry sweep, and re-embedding and re-extraction in the background.
 */
import { and, asc, eq, isNotNull, isNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { Database } from './database.ts';
import { closedAt, FACT_COLUMNS, factRowsOf as rows, type FactRow } from './fact-rows.ts';
import { facts, type FactEntity } from './schema.ts';
import type { TenantDb } from './tenant.ts';
import { anyUuid, increment, textArrayLiteral, ts, vectorLiteral } from './values.ts';

/** Closes every current fact of a lineage (operation `delete`); returns the closed ids. */
export async function closeLineage(tenant: TenantDb, lineageId: string, at: Date): Promise<string[]> {
  const closed = await tenant
    .update(facts, { validUntil: closedAt(ts(at)) }, eq(facts.lineageId, lineageId), isNull(facts.validUntil))
    .returning({ id: facts.id });
  return closed.map((r) => r.id);
}

/** Counts one more independent agent agreeing with a fact. */
export async function addCorroboration(tenant: TenantDb, factId: string): Promise<void> {
  await tenant.update(facts, { corroboratingAgents: increment(facts.corroboratingAgents) }, eq(facts.id, factId));
}

/**
 * Counts query hits on ephemeral facts; those reaching `threshold` become durable (their default
 * TTL lifted) and enter detection. Returns the promoted ids.
 */
export async function recordEphemeralHits(tenant: TenantDb, factIds: string[], threshold: number): Promise<string[]> {
  if (factIds.length === 0) return [];
  const promoted = await rows<{ id: string }>(
    tenant,
    // One UPDATE does both: a second UPDATE of the same row in one statement would be ignored.
    sql`with hit as (
          update facts set query_hits = query_hits + 1,
            durability = case when query_hits + 1 >= ${threshold} then 'durable' else durability end,
            expires_at = case when query_hits + 1 >= ${threshold} and ttl_days is null then null else expires_at end
          where workspace_id = ${tenant.workspaceId} and durability = 'ephemeral'
            and ${anyUuid(facts.id, factIds)}
          returning id, durability
        ),
        promoted as (select id from hit where durability = 'durable'),
        job as (
          insert into detection_jobs (workspace_id, trigger_fact_id, reason)
          select ${tenant.workspaceId}, id, 'promote' from promoted
        )
        select id from promoted`,
  );
  return promoted.map((r) => r.id);
}

/** Makes an ephemeral fact durable and enqueues its detection; null when there is no such fact. */
export async function promoteFact(tenant: TenantDb, factId: string): Promise<{ fact: FactRow; promotedNow: boolean } | null> {
  const [row] = await rows<FactRow & { promoted_now: number } & Record<string, unknown>>(
    tenant,
    sql`with target as (
          select id, durability from facts where workspace_id = ${tenant.workspaceId} and id = ${factId}
        ),
        promoted as (
          update facts f set durability = 'durable',
            expires_at = case when f.ttl_days is null then null else f.expires_at end
          from target where f.id = target.id and f.workspace_id = ${tenant.workspaceId} and target.durability = 'ephemeral'
          returning f.id
        ),
        job as (
          insert into detection_jobs (workspace_id, trigger_fact_id, reason)
          select ${tenant.workspaceId}, id, 'promote' from promoted
        )
        select ${FACT_COLUMNS}, (select count(*) from promoted)::int as promoted_now
        from facts f where f.workspace_id = ${tenant.workspaceId} and f.id = ${factId}`,
  );
  if (!row) return null;
  const { promoted_now: promotedNow, ...fact } = row;
  return { fact: fact, promotedNow: promotedNow > 0 };
}

/**
 * Closes the window of every fact whose TTL has run out, in all workspaces (a maintenance sweep:
 * cross-tenant by nature). Returns how many were closed.
 */
export async function expireFacts(db: Database, now = new Date()): Promise<number> {
  const closed = await db
    .update(facts)
    .set({ validUntil: closedAt(facts.expiresAt) })
    .where(and(isNull(facts.validUntil), isNotNull(facts.expiresAt), lte(facts.expiresAt, now)))
    .returning({ id: facts.id });
  return closed.length;
}

/** Facts whose embedding is missing or from another model (for `engram reembed`), any workspace. */
export async function factsToReembed(db: Database, model: string, limit: number): Promise<{ id: string; content: string }[]> {
  return db
    .select({ id: facts.id, content: facts.content })
    .from(facts)
    .where(and(or(isNull(facts.embedding), isNull(facts.embeddingModel), ne(facts.embeddingModel, model)), isNull(facts.erasedAt)))
    .orderBy(asc(facts.committedAt))
    .limit(limit);
}

/** Stores a recomputed embedding. */
export async function setEmbedding(db: Database, factId: string, embedding: readonly number[], model: string): Promise<void> {
  // pgvector's text form, six digits (see vectorLiteral), not the column's full-precision JSON.
  await db.update(facts).set({ embedding: sql`${vectorLiteral(embedding)}::halfvec`, embeddingModel: model }).where(eq(facts.id, factId));
}

/** Facts whose entities an older extractor produced (re-extracted in the background), any workspace. */
export async function factsToReextract(
  db: Database,
  version: number,
  limit: number,
): Promise<{ id: string; content: string; scope: string }[]> {
  return db
    .select({ id: facts.id, content: facts.content, scope: facts.scope })
    .from(facts)
    .where(and(lt(facts.extractorVersion, version), isNull(facts.erasedAt)))
    .limit(limit);
}

/** Stores re-extracted entities with what derives from them. */
export async function setExtraction(
  db: Database,
  factId: string,
  extraction: { entities: FactEntity[]; entitySignature: string; matchKeys: string[]; keywords: string[]; version: number },
): Promise<void> {
  const keys = textArrayLiteral(extraction.matchKeys);
  await db.execute(
    sql`with updated as (
          update facts set entities = ${JSON.stringify(extraction.entities)}::jsonb, entity_signature = ${extraction.entitySignature},
            match_keys = ${keys}::text[], keywords = ${textArrayLiteral(extraction.keywords)}::text[],
            extractor_version = ${extraction.version}
          where id = ${factId}
          returning id, workspace_id, committed_at
        ),
        -- Only the keys it no longer has: the statement's parts run in no set order, so a key kept
        -- would be inserted (a conflict, nothing done) and then deleted, and the fact lost from its slots.
        dropped as (delete from fact_keys where fact_id = ${factId} and key <> all(${keys}::text[]))
        insert into fact_keys (workspace_id, key, committed_at, fact_id)
        select u.workspace_id, k, u.committed_at, u.id from updated u, unnest(${keys}::text[]) k
        on conflict do nothing`,
  );
}

/**
 * The commit statement: one hand-written statement that closes a superseded window, inserts the
 * facts (guarded against an identical current fact and against one they may corroborate), enqueues
 * their detection jobs, records their match keys and idempotency keys and counts the commits, in
 * one round trip. Written by hand because no builder composes these CTEs into one statement.
 */
import { CORROBORATION } from './corroboration.ts';
import { sql } from 'drizzle-orm';
import type { FactCitation, FactEntity } from './schema.ts';
import {
  CURRENT_FIELDS, factJson, factRowsOf as rows, NEIGHBOUR_FIELDS, type CurrentFact, type FactRow, type SimilarFact,
} from './fact-rows.ts';
import type { TenantDb } from './tenant.ts';
import { parseTimestamp, ts, vectorLiteral } from './values.ts';

/** Everything needed to insert one fact. */
export interface NewFact {
  id: string;
  lineageId: string;
  content: string;
  contentHash: string;
  scope: string;
  confidence: number;
  factType: 'observation' | 'inference' | 'decision';
  agentId: string;
  memberId: string | null;
  provenance: string | null;
  entities: FactEntity[];
  /** See `facts.entity_signature`. */
  entitySignature: string;
  /** See `facts.match_keys`. */
  matchKeys: string[];
  /** See `facts.extractor_version`. */
  extractorVersion: number;
  keywords: string[];
  embedding: readonly number[] | null;
  embeddingModel: string | null;
  committedAt: Date;
  ttlDays: number | null;
  expiresAt: Date | null;
  memoryOp: 'add' | 'update';
  supersedesFactId: string | null;
  durability: 'durable' | 'ephemeral';
  source: 'commit' | 'import';
  /** The code the fact was verified against (at most 10 places); none when absent. */
  citations?: FactCitation[] | null;
}

export interface InsertedFact {
  /** False when an identical current fact won the race (the unique key held), or the guard held. */
  inserted: boolean;
  id: string;
  committedAt: Date;
  closedFactIds: string[];
  /**
   * Not inserted: what the statement saw in the way, so the caller decides without reading it
   * again. `identical` is the current fact of the scope with the same content, `corroborable` the
   * guard's fact (the nearest that held it). Absent when the statement saw neither: the identical
   * fact was committed after the statement began (the unique key waited for it), or by a fact of
   * the same batch.
   */
  seen?: { identical: CurrentFact | null; corroborable: SimilarFact | null };
}

/** How one fact is inserted (see insertFacts). */
export interface InsertOptions {
  /** The lineage whose current facts the new fact closes (an update), or null. */
  closeLineageId: string | null;
  /** The detection job's reason (durable facts), or null for no job. */
  detectionReason: string | null;
  /**
   * Insert only if no fact this one may corroborate is current: one of the scope, unexpired,
   * durable, from another agent, embedded by the same model (pass it for a fact with an
   * embedding) within `maxDistance` (cosine) of this one, stating exactly the same values
   * (`entity_signature`). The caller decides about such a fact; not inserted, `inserted` is
   * false, as for an identical current fact.
   */
  unlessCorroborating?: { at: Date; maxDistance: number };
  /** The commit's idempotency key, recorded with the fact in the same statement (see idempotency.ts). */
  idempotency?: { key: string; requestHash: string };
}

/** The columns of `facts` a new fact is written with, in the order insertFacts sends them. */
const NEW_FACT_COLUMNS = [
  'id', 'lineage_id', 'content', 'content_hash', 'scope', 'confidence', 'fact_type', 'agent_id', 'member_id', 'provenance',
  'entities', 'entity_signature', 'match_keys', 'extractor_version', 'keywords', 'embedding', 'embedding_model',
  'committed_at', 'valid_from', 'ttl_days', 'expires_at', 'memory_op', 'supersedes_fact_id', 'durability', 'source', 'citations',
] as const;

/**
 * The facts of one statement, as one JSON document (one parameter, whatever the number of facts):
 * each row the fact's columns and how it is inserted. The vector travels as pgvector's text form.
 */
function factRows(batch: readonly { fact: NewFact; options: InsertOptions }[]): string {
  return JSON.stringify(
    batch.map(({ fact, options }, n) => ({
      n,
      id: fact.id,
      lineage_id: fact.lineageId,
      content: fact.content,
      content_hash: fact.contentHash,
      scope: fact.scope,
      confidence: fact.confidence,
      fact_type: fact.factType,
      agent_id: fact.agentId,
      member_id: fact.memberId,
      provenance: fact.provenance,
      entities: fact.entities,
      entity_signature: fact.entitySignature,
      match_keys: fact.matchKeys,
      extractor_version: fact.extractorVersion,
      keywords: fact.keywords,
      embedding: fact.embedding ? vectorLiteral(fact.embedding) : null,
      embedding_model: fact.embeddingModel,
      committed_at: fact.committedAt.toISOString(),
      valid_from: fact.committedAt.toISOString(),
      ttl_days: fact.ttlDays,
      expires_at: fact.expiresAt?.toISOString() ?? null,
      memory_op: fact.memoryOp,
      supersedes_fact_id: fact.supersedesFactId,
      durability: fact.durability,
      source: fact.source,
      citations: fact.citations?.length ? fact.citations : null,
      close_lineage_id: options.closeLineageId,
      detection_reason: options.detectionReason,
      guard_at: options.unlessCorroborating?.at.toISOString() ?? null,
      guard_distance: options.unlessCorroborating?.maxDistance ?? null,
      idempotency_key: options.idempotency?.key ?? null,
      request_hash: options.idempotency?.requestHash ?? null,
    })),
  );
}

/**
 * Inserts facts of one workspace in one statement (any number; one is the ordinary commit, more is
 * group commit): for each, closes the superseded lineage's window, inserts the row (unless an
 * identical current fact exists, or its corroboration guard holds) with its match keys, enqueues
 * its detection job (durable facts only), records its idempotency key (if it has one) and counts
 * the commit for its agent. One round trip,
 * atomic. With `last`, it is the last statement of its transaction and goes with COMMIT (see
 * TenantDb.lastRows). Results are in the order of `batch`.
 */
export async function insertFacts(
  tenant: TenantDb,
  batch: readonly { fact: NewFact; options: InsertOptions }[],
  options: { last?: boolean } = {},
): Promise<InsertedFact[]> {
  if (batch.length === 0) return [];
  const w = tenant.workspaceId;
  // Closing a lineage is an update's, one fact at a time (group commit takes new facts only).
  const closing = batch.find((b) => b.options.closeLineageId)?.options.closeLineageId;
  if (closing && batch.length > 1) throw new Error('insertFacts: a fact that closes a lineage is inserted alone');
  const closeLineage = closing
    ? sql`update facts set valid_until = greatest(valid_from, ${ts(batch[0]!.fact.committedAt)})
          where workspace_id = ${w} and lineage_id = ${closing} and valid_until is null
          returning id`
    : sql`select null::uuid as id where false`;
  const found = await rows<{
    n: number;
    id: string | null;
    committed_at: Date | null;
    closed: string[] | null;
    identical: Record<string, unknown> | null;
    corroborable: Record<string, unknown> | null;
  }>(
    tenant,
    sql`with r as materialized (
        select r.*, r.embedding::halfvec as vector
        from jsonb_to_recordset(${factRows(batch)}::jsonb) as r(
          n int, id uuid, lineage_id uuid, content text, content_hash text, scope text, confidence float8, fact_type text,
          agent_id text, member_id uuid, provenance text, entities jsonb, entity_signature text, match_keys text[],
          extractor_version smallint, keywords text[], embedding text, embedding_model text, committed_at timestamptz,
          valid_from timestamptz, ttl_days int, expires_at timestamptz, memory_op text, supersedes_fact_id uuid,
          durability text, source text, citations jsonb, close_lineage_id uuid, detection_reason text, guard_at timestamptz, guard_distance float8,
          idempotency_key text, request_hash text)
      ),
      -- Per fact, the nearest fact it may corroborate, if any (lateral, so always a probe of the
      -- signature index, whatever the statistics; only candidates of that index are measured, and
      -- OFFSET 0 keeps the order by distance from turning into a vector index scan).
      guard as materialized (
        select r.n, held.id as held_id, held.distance as held_distance
        from r
        left join lateral (
          select c.id, c.distance from (
            select f.id, f.embedding <=> r.vector as distance from facts f
            where r.guard_at is not null and f.workspace_id = ${w} and f.scope = r.scope and f.embedding_model = r.embedding_model
              and f.valid_until is null and (f.expires_at is null or f.expires_at > r.guard_at) and f.entity_signature = r.entity_signature
              and f.durability = ${CORROBORATION.durability} and f.agent_id is distinct from r.agent_id
            offset 0
          ) c
          where c.distance <= r.guard_distance
          order by c.distance, c.id
          limit 1
        ) held on true
      ),
      closed as (${closeLineage}),
      inserted as (
        insert into facts (workspace_id, ${sql.raw(NEW_FACT_COLUMNS.join(', '))})
        select ${w}::uuid, ${sql.raw(NEW_FACT_COLUMNS.map((c) => (c === 'embedding' ? 'r.vector' : `r.${c}`)).join(', '))}
        from r join guard g on g.n = r.n
        where g.held_id is null
        -- One order for every writer of these keys: concurrent statements wait, never deadlock.
        order by r.scope, r.content_hash
        on conflict (workspace_id, scope, content_hash) where valid_until is null do nothing
        returning id, committed_at
      ),
      job as (
        insert into detection_jobs (workspace_id, trigger_fact_id, reason)
        select ${w}, i.id, r.detection_reason from inserted i join r on r.id = i.id where r.detection_reason is not null
      ),
      keys as (
        insert into fact_keys (workspace_id, key, committed_at, fact_id)
        select ${w}, k, i.committed_at, i.id from inserted i join r on r.id = i.id, unnest(r.match_keys) k
      ),
      idem as (
        insert into idempotency_keys (workspace_id, key, operation, request_hash, fact_id)
        select ${w}, r.idempotency_key, 'commit', r.request_hash, i.id from inserted i join r on r.id = i.id where r.idempotency_key is not null
        on conflict (workspace_id, key) do nothing
      ),
      agent as (
        -- One row per agent (an upsert may touch a row once per statement), in agent order (no deadlock).
        insert into agents (workspace_id, agent_id, member_id, total_commits, last_seen_at)
        select ${w}, r.agent_id, (array_agg(r.member_id order by r.n))[1], count(*), now()
        from inserted i join r on r.id = i.id
        group by r.agent_id order by r.agent_id
        on conflict (workspace_id, agent_id)
        do update set total_commits = agents.total_commits + excluded.total_commits, last_seen_at = now()
      )
      -- A fact not inserted: what was in its way, as this statement saw it (see InsertedFact.seen).
      select r.n, i.id, i.committed_at, (select array_agg(c.id) from closed c) as closed,
        case when i.id is null then (
          select jsonb_build_object(${factJson(CURRENT_FIELDS)})
          from facts f
          where f.workspace_id = ${w} and f.scope = r.scope and f.content_hash = r.content_hash and f.valid_until is null
          limit 1) end as identical,
        case when i.id is null and g.held_id is not null then (
          select jsonb_build_object(${factJson(NEIGHBOUR_FIELDS)}, 'similarity', 1 - g.held_distance)
          from facts f
          where f.workspace_id = ${w} and f.id = g.held_id) end as corroborable
      from r join guard g on g.n = r.n left join inserted i on i.id = r.id
      order by r.n`,
    { last: options.last },
  );
  return batch.map(({ fact }, n) => {
    const row = found[n];
    const identical = row?.identical ? currentFactOf(row.identical) : null;
    const corroborable: SimilarFact | null = row?.corroborable
      ? {
          ...currentFactOf(row.corroborable),
          agent_id: row.corroborable.agent_id as string,
          entities: row.corroborable.entities as FactRow['entities'],
          similarity: Number(row.corroborable.similarity),
        }
      : null;
    return {
      inserted: Boolean(row?.id),
      id: row?.id ?? fact.id,
      committedAt: row?.committed_at ? new Date(row.committed_at) : fact.committedAt,
      closedFactIds: row?.closed ?? [],
      ...(!row?.id && (identical || corroborable) ? { seen: { identical, corroborable } } : {}),
    };
  });
}

/** A fact of a statement's JSON answer (uuids and timestamps as text) as the pipeline reads it. */
function currentFactOf(json: Record<string, unknown>): CurrentFact {
  const text = (field: string) => json[field] as string;
  return {
    id: text('id'),
    lineage_id: text('lineage_id'),
    committed_at: parseTimestamp(text('committed_at')),
    provenance: (json.provenance as string | null) ?? null,
    durability: json.durability as CurrentFact['durability'],
    expires_at: json.expires_at ? parseTimestamp(text('expires_at')) : null,
  };
}

/** Inserts one fact (see insertFacts). */
export async function insertFact(tenant: TenantDb, fact: NewFact, options: InsertOptions & { last?: boolean }): Promise<InsertedFact> {
  const [inserted] = await insertFacts(tenant, [{ fact, options }], { last: options.last });
  return inserted!;
}

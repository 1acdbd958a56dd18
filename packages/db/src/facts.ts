/**
 * Data access for facts, always through a {@link TenantDb}: every statement here filters on (and
 * every insert writes) the tenant's workspace id. Hand-written SQL where one round trip matters
 * (the commit) or drizzle cannot express it (hybrid retrieval).
 */
import { sql, type SQL } from 'drizzle-orm';
import { CORROBORATION } from './corroboration.ts';
import { queryRows, type Database } from './database.ts';
import type { FactCitation, FactEntity } from './schema.ts';
import { joinFactMember } from './access.ts';
import { conflictsOfFacts } from './detection.ts';
import type { TenantDb } from './tenant.ts';
import { parseTimestamp, textArrayLiteral, ts, uuidArrayLiteral, vectorLiteral } from './values.ts';


/** A fact is current while its window is open and its TTL has not run out. */
const CURRENT = sql`f.valid_until is null and (f.expires_at is null or f.expires_at > now())`;

/** `scope` or any scope below it (`payments` covers `payments/webhooks`). */
export function scopeFilter(scope: string, column: SQL = sql`f.scope`): SQL {
  return sql`(${column} = ${scope} or starts_with(${column}, ${`${scope}/`}))`;
}

/** Row shape shared by the read queries. */
export interface FactRow {
  id: string;
  lineage_id: string;
  content: string;
  scope: string;
  confidence: number;
  fact_type: 'observation' | 'inference' | 'decision';
  agent_id: string;
  member_id: string | null;
  provenance: string | null;
  entities: FactEntity[];
  committed_at: Date;
  valid_from: Date;
  valid_until: Date | null;
  expires_at: Date | null;
  ttl_days: number | null;
  memory_op: 'add' | 'update' | 'delete' | 'none';
  supersedes_fact_id: string | null;
  durability: 'durable' | 'ephemeral';
  query_hits: number;
  corroborating_agents: number;
  source: 'commit' | 'import';
  embedding_model: string | null;
  /** The later fact a detector settlement or a person's resolution closed this one for. */
  retired_for_fact_id: string | null;
  /** The code the fact cites, or null. */
  citations: FactCitation[] | null;
  /** Last verified still true (engram_verify, engram check), or null. */
  verified_at: Date | null;
}

const CANDIDATE_COLUMNS = [
  'id', 'lineage_id', 'content', 'scope', 'confidence', 'fact_type', 'agent_id', 'member_id', 'provenance',
  'committed_at', 'valid_from', 'valid_until', 'expires_at', 'ttl_days', 'memory_op', 'supersedes_fact_id',
  'durability', 'query_hits', 'corroborating_agents', 'source', 'embedding_model', 'retired_for_fact_id', 'citations', 'verified_at',
].map((c) => `f.${c}`);
const FACT_COLUMNS = sql.raw([...CANDIDATE_COLUMNS, 'f.entities'].join(', '));

const TIMESTAMP_FIELDS = ['committed_at', 'valid_from', 'valid_until', 'expires_at', 'verified_at'] as const;


/**
 * Rows as the types say: drizzle leaves timestamps as the driver's text, and postgres.js returns
 * double precision as a string in some paths; both drivers get the same shape here.
 */
async function rows<T extends Record<string, unknown>>(tenant: TenantDb, query: SQL, options: { readOnly?: boolean; last?: boolean } = {}): Promise<T[]> {
  const raw = options.readOnly
    ? await tenant.read<Record<string, unknown>>(query)
    : options.last
      ? await tenant.lastRows<Record<string, unknown>>(query)
      : await tenant.rows<Record<string, unknown>>(query);
  for (const row of raw) {
    for (const field of TIMESTAMP_FIELDS) {
      const value = row[field];
      if (typeof value === 'string') row[field] = parseTimestamp(value);
    }
    if (row.confidence !== undefined) row.confidence = Number(row.confidence);
  }
  return raw as T[];
}

/** The current fact with this exact content in this scope, if any. */
export async function findCurrentDuplicate(tenant: TenantDb, scope: string, contentHash: string): Promise<FactRow | null> {
  const [row] = await rows<FactRow & Record<string, unknown>>(
    tenant,
    sql`select ${FACT_COLUMNS} from facts f
        where f.workspace_id = ${tenant.workspaceId} and f.scope = ${scope} and f.content_hash = ${contentHash}
          and f.valid_until is null
        limit 1`,
    { readOnly: true },
  );
  return row ?? null;
}

/** A fact already imported with this content at this instant (import idempotency). */
export async function findByHashAt(tenant: TenantDb, contentHash: string, committedAt: Date): Promise<FactRow | null> {
  const [row] = await rows<FactRow & Record<string, unknown>>(
    tenant,
    sql`select ${FACT_COLUMNS} from facts f
        where f.workspace_id = ${tenant.workspaceId} and f.content_hash = ${contentHash} and f.committed_at = ${ts(committedAt)}
        limit 1`,
    { readOnly: true },
  );
  return row ?? null;
}

/** What the commit pipeline needs to know about a neighbour (dedup answer, lineage, corroboration). */
const NEIGHBOUR_FIELDS = ['id', 'lineage_id', 'agent_id', 'durability', 'entities', 'committed_at', 'provenance', 'expires_at'] as const;
export type SimilarFact = Pick<FactRow, (typeof NEIGHBOUR_FIELDS)[number]> & { similarity: number };

const NEIGHBOUR_COLUMNS = sql.raw(NEIGHBOUR_FIELDS.map((c) => `f.${c}`).join(', '));

/** What a duplicate's answer needs of the current fact it names. */
const CURRENT_FIELDS = ['id', 'lineage_id', 'committed_at', 'provenance', 'durability', 'expires_at'] as const;

/** The arguments of a `jsonb_build_object` of these columns of a fact (as `f`). */
const factJson = (fields: readonly string[]) => sql.raw(fields.map((c) => `'${c}', f.${c}`).join(', '));

/** Current, unexpired facts (as `f`) of a scope embedded by `model`: where a new fact's near-duplicates are. */
const currentInScope = (workspaceId: string, scope: string, model: string | null, at: Date) =>
  sql`f.workspace_id = ${workspaceId} and f.scope = ${scope} and f.embedding_model = ${model} and f.valid_until is null
      and (f.expires_at is null or f.expires_at > ${ts(at)})`;

/**
 * The current facts of a scope nearest to `embedding` (same embedding model only), most similar
 * first. Uses the HNSW index; iterative scans keep the scope filter from starving the result.
 */
export async function nearestCurrentInScope(
  tenant: TenantDb,
  params: {
    scope: string;
    embedding: readonly number[];
    model: string;
    limit: number;
    at?: Date;
    /** Only facts stating exactly these values (see `facts.entity_signature`). */
    entitySignature?: string;
  },
): Promise<SimilarFact[]> {
  const vector = vectorLiteral(params.embedding);
  const found = await rows<Omit<SimilarFact, 'similarity'> & { distance: number | string } & Record<string, unknown>>(
    tenant,
    // The vector is sent once: the order is by the selected distance (still the HNSW ordering).
    sql`select ${NEIGHBOUR_COLUMNS}, f.embedding <=> ${vector}::halfvec as distance
        from facts f
        where ${currentInScope(tenant.workspaceId, params.scope, params.model, params.at ?? new Date())}
          ${params.entitySignature === undefined ? sql`` : sql`and f.entity_signature = ${params.entitySignature}`}
        order by distance
        limit ${params.limit}`,
    { readOnly: true },
  );
  return found.map(({ distance, ...r }) => ({ ...r, similarity: 1 - Number(distance) })).sort((a, b) => b.similarity - a.similarity);
}

/** Facts of a lineage, newest first (current ones have `valid_until` null). */
export async function lineageFacts(tenant: TenantDb, lineageId: string): Promise<FactRow[]> {
  return rows<FactRow & Record<string, unknown>>(
    tenant,
    sql`select ${FACT_COLUMNS} from facts f
        where f.workspace_id = ${tenant.workspaceId} and f.lineage_id = ${lineageId}
        order by f.valid_from desc`,
    { readOnly: true },
  );
}

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

/** A current fact as the commit pipeline answers with it (an identical fact, a duplicate's answer). */
export type CurrentFact = Pick<FactRow, (typeof CURRENT_FIELDS)[number]>;

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

/** Closes every current fact of a lineage (operation `delete`); returns the closed ids. */
export async function closeLineage(tenant: TenantDb, lineageId: string, at: Date): Promise<string[]> {
  const closed = await rows<{ id: string }>(
    tenant,
    sql`update facts set valid_until = greatest(valid_from, ${ts(at)})
        where workspace_id = ${tenant.workspaceId} and lineage_id = ${lineageId} and valid_until is null
        returning id`,
  );
  return closed.map((r) => r.id);
}

/** Counts one more independent agent agreeing with a fact. */
export async function addCorroboration(tenant: TenantDb, factId: string): Promise<void> {
  await tenant.execute(
    sql`update facts set corroborating_agents = corroborating_agents + 1
        where workspace_id = ${tenant.workspaceId} and id = ${factId}`,
  );
}

/** A retrieval candidate with its fused rank and the signals the scoring formula needs. */
/**
 * A retrieved fact, for ranking: its entities are only counted (an entities document is ten
 * times the size of its fact, and a query reads up to twice its depth of candidates).
 */
export interface Candidate extends Omit<FactRow, 'entities'> {
  entity_count: number;
  rrf: number;
  vector_rank: number | null;
  text_rank: number | null;
  has_open_conflict: boolean;
  /** An open probable-update question names a later fact that says this one changed. */
  probably_outdated: boolean;
  agent_total_commits: number | null;
  agent_flagged_commits: number | null;
  /** The display name of the member whose agent committed it (null: anonymous, or a member without a name). */
  member: string | null;
}

export interface RetrievalParams {
  embedding: readonly number[] | null;
  model: string;
  /** The topic, for full-text search (words are OR-ed). */
  topic: string;
  scope?: string;
  factType?: string;
  includeEphemeral: boolean;
  /** Window filter: current facts, the facts current at an instant, or every version. */
  window: { kind: 'current' } | { kind: 'as_of'; at: Date } | { kind: 'history' };
  /** Candidates taken from each retriever. */
  depth: number;
}

/** Below this many fact rows, a workspace's vector search is exact rather than through HNSW, and its full text ranks every fact holding a word of the topic. */
const EXACT_SEARCH_LIMIT = 1500;
const SIZE_CACHE_MS = 30_000;
const sizeCache = new Map<string, { small: boolean; until: number }>();

/**
 * Whether a workspace is small enough for exact vector search: a capped count along the
 * (workspace_id, committed_at) index, remembered for half a minute (workspaces grow slowly, and a
 * stale answer only costs speed, never results).
 */
async function isSmallWorkspace(tenant: TenantDb): Promise<boolean> {
  const cached = sizeCache.get(tenant.workspaceId);
  if (cached && cached.until > Date.now()) return cached.small;
  const [row] = await tenant.read<{ small: boolean }>(sql`select count(*) < ${EXACT_SEARCH_LIMIT} as small
        from (select 1 from facts f where f.workspace_id = ${tenant.workspaceId}
              order by f.workspace_id, f.committed_at limit ${EXACT_SEARCH_LIMIT}) counted`,
  );
  const small = Boolean(row?.small);
  if (sizeCache.size > 10_000) sizeCache.clear();
  sizeCache.set(tenant.workspaceId, { small, until: Date.now() + SIZE_CACHE_MS });
  return small;
}

/** Most full-text matches ranked per query in a large workspace (heap reads and ranking are the cost). */
const TEXT_POOL = 200;

/** The filters of a retrieval, shared by every topic of a grouped one (see hybridCandidatesOf). */
export type RetrievalFilters = Omit<RetrievalParams, 'embedding' | 'topic'>;

/** One topic of a retrieval: its words (full text) and its embedding (vectors), if it has one. */
export interface RetrievalTopic {
  topic: string;
  embedding: readonly number[] | null;
}

/**
 * Hybrid retrieval: pgvector cosine (HNSW) and Postgres full-text rank, each taking `depth`
 * candidates under the same filters, fused with reciprocal rank fusion (k = 60).
 */
export async function hybridCandidates(tenant: TenantDb, params: RetrievalParams): Promise<Candidate[]> {
  const [found] = await hybridCandidatesOf(tenant, params, [{ topic: params.topic, embedding: params.embedding }]);
  return found!;
}

/** `{"[...]",NULL}`: a halfvec[] literal of the topics' embeddings. */
const vectorArrayLiteral = (embeddings: readonly (readonly number[] | null)[]) =>
  `{${embeddings.map((e) => (e ? `"${vectorLiteral(e)}"` : 'NULL')).join(',')}}`;

/**
 * Hybrid retrieval (see hybridCandidates) for several topics under the same filters, in one
 * statement: planned once, one transaction, one round trip; the candidates of each topic, in the
 * order of `topics`. One topic is the plain statement; several are each retrieved by a lateral
 * join of the same searches (a batch of five cost Postgres 38% less per topic than five statements).
 */
export async function hybridCandidatesOf(tenant: TenantDb, params: RetrievalFilters, topics: readonly RetrievalTopic[]): Promise<Candidate[][]> {
  if (topics.length === 0) return [];
  const filters: SQL[] = [sql`f.workspace_id = ${tenant.workspaceId}`];
  if (params.window.kind === 'current') filters.push(CURRENT);
  if (params.window.kind === 'as_of') {
    const at = params.window.at;
    filters.push(sql`f.valid_from <= ${ts(at)} and (f.valid_until is null or f.valid_until > ${ts(at)})`);
    filters.push(sql`(f.expires_at is null or f.expires_at > ${ts(at)})`);
  }
  if (params.scope) filters.push(scopeFilter(params.scope));
  if (params.factType) filters.push(sql`f.fact_type = ${params.factType}`);
  if (!params.includeEphemeral) filters.push(sql`f.durability = 'durable'`);
  filters.push(sql`f.erased_at is null`);
  const where = sql.join(filters, sql` and `);
  const vectorWhere = sql`${where} and f.embedding_model = ${params.model}`;

  const single = topics.length === 1 ? topics[0]! : undefined;
  const embedded = topics.some((t) => t.embedding);
  // One HNSW index serves every workspace. A small workspace's vectors are a sliver of it, and an
  // index scan would wade through other tenants' vectors first (24 ms for a new workspace beside
  // 100,000 facts); for those, an exact search is faster and complete. `+ 0` keeps the planner off
  // the index.
  const small = await isSmallWorkspace(tenant);
  const exact = embedded && small;
  // The topic's vector and words: parameters for one topic, the columns of `q` for several.
  const vector = single ? sql`${single.embedding ? vectorLiteral(single.embedding) : null}::halfvec` : sql`q.v`;
  const words = single ? sql`${single.topic}` : sql`q.t`;
  const distance = exact ? sql`(f.embedding <=> ${vector}) + 0` : sql`f.embedding <=> ${vector}`;
  // Equal distances are ranked by id, so a topic gets the same ranks whichever plan reads them.
  const nearest = sql`select n.id, row_number() over (order by n.distance, n.id) as r from (
        select f.id, ${distance} as distance from facts f where ${vectorWhere}
        order by 2 limit ${params.depth}) n`;
  // Full text (migration 0018): in a small workspace, every fact holding a word of the topic, the
  // rarer words weighing more, ranked before the depth is cut; in a large one, the facts holding
  // every word. Through engram_text_candidates (migration 0010): under row-level security the GIN
  // index is unusable (41 ms instead of 1.5 ms at 100,000 facts), so the function reads ids and
  // ranks as the owner, confined to this transaction's workspace; the facts are read below, confined.
  const window = params.window;
  const matching = sql`engram_text_candidates(${words}, ${window.kind},
      ${window.kind === 'as_of' ? ts(window.at) : sql`null::timestamptz`}, ${params.scope ?? null}::text, ${params.factType ?? null}::text,
      ${params.includeEphemeral}, ${TEXT_POOL}, ${params.depth}, ${small}) c`;
  const searches = single
    ? sql`vec as (${single.embedding ? sql`select 1 as n, v.id, v.r from (${nearest}) v` : sql`select 1 as n, null::uuid as id, 0::bigint as r where false`}),
      txt as (select 1 as n, c.id, c.r from ${matching})`
    : sql`q as materialized (
        select q.n::int as n, q.v, q.t from unnest(${vectorArrayLiteral(topics.map((t) => t.embedding))}::halfvec[], ${textArrayLiteral(topics.map((t) => t.topic))}::text[]) with ordinality as q(v, t, n)
      ),
      vec as (select q.n, v.id, v.r from q cross join lateral (${nearest}) v where q.v is not null),
      txt as (select q.n, c.id, c.r from q cross join lateral ${matching})`;
  const found = await rows<Candidate & { n: number } & Record<string, unknown>>(
    tenant,
    sql`with ${searches},
      -- Materialized: a few dozen rows per topic, computed once, then joined by primary key
      -- (inlined, a new workspace's misestimated statistics could re-run the fusion once per fact).
      fused as materialized (
        select n, id, sum(1.0 / (60 + r)) as rrf, min(r) filter (where src = 'v') as vector_rank,
               min(r) filter (where src = 't') as text_rank
        from (select n, id, r, 'v' as src from vec union all select n, id, r, 't' as src from txt) ranked
        group by n, id
      ),
      -- The candidates in an open conflict, found from the candidates (see conflictsOfFacts).
      in_conflict as materialized (
        select ids.id, array_agg(l.conflict_id) filter (where c.kind = 'probable_update') as updates
        from ${conflictsOfFacts(tenant.workspaceId, sql`array(select distinct id from fused)`)}
        where c.status = 'open' group by ids.id
      )
      select fused.n, ${sql.raw(CANDIDATE_COLUMNS.join(', '))}, case when jsonb_typeof(f.entities) = 'array' then jsonb_array_length(f.entities) else 0 end as entity_count, fused.rrf::float8 as rrf, fused.vector_rank::int as vector_rank,
             fused.text_rank::int as text_rank,
             exists (select 1 from in_conflict o where o.id = f.id) as has_open_conflict,
             -- The earlier side of an open probable update: another fact of it is later. Looked up only
             -- for a candidate in one (CASE), each link and fact by its key.
             coalesce((select case when o.updates is null then false else exists (
               select 1 from conflict_facts other
                 cross join lateral (select later.committed_at from facts later where later.id = other.fact_id offset 0) later
               where other.conflict_id = any(o.updates) and other.fact_id <> f.id and later.committed_at > f.committed_at) end
             from in_conflict o where o.id = f.id), false) as probably_outdated,
             a.total_commits as agent_total_commits, a.flagged_commits as agent_flagged_commits, m.display_name as member
      from fused
      -- Each candidate by primary key (a subquery of its own: a few hundred candidates of a grouped
      -- retrieval, overestimated, were joined by reading the whole facts table in id order).
      cross join lateral (select f.* from facts f where f.id = fused.id and f.workspace_id = ${tenant.workspaceId} offset 0) f
      left join agents a on a.workspace_id = f.workspace_id and a.agent_id = f.agent_id
      ${joinFactMember}
      order by fused.n, fused.rrf desc, f.id`,
    { readOnly: true },
  );
  const byTopic: Candidate[][] = topics.map(() => []);
  // Each row is its candidate, its numbers made numbers in place (`n`, the topic, stays on it,
  // unread): copying every row with rest and spread was 3% of the server's CPU under load.
  for (const row of found) {
    row.rrf = Number(row.rrf);
    row.confidence = Number(row.confidence);
    byTopic[Number(row.n) - 1]!.push(row);
  }
  return byTopic;
}

/**
 * For each of `factIds`, its `perFact` nearest current durable facts by embedding (same model):
 * what the detective should read beside a new fact even when no extracted slot ties them. Exact
 * search in a small workspace, HNSW otherwise (as in hybridCandidates).
 */
export async function semanticNeighbours(
  tenant: TenantDb,
  factIds: readonly string[],
  perFact: number,
): Promise<{ factId: string; id: string; similarity: number }[]> {
  if (factIds.length === 0 || perFact <= 0) return [];
  const exact = await isSmallWorkspace(tenant);
  // Exact search breaks ties by id, so a replayed run reads the same neighbours (equal distances are common).
  const distance = exact ? sql`(f.embedding <=> t.embedding) + 0, f.id` : sql`f.embedding <=> t.embedding`;
  return neighbourRows(
    tenant,
    factIds,
    sql`select f.id, 1 - (f.embedding <=> t.embedding) as similarity from facts f
        where f.workspace_id = ${tenant.workspaceId} and ${CURRENT} and f.durability = 'durable' and f.erased_at is null
          and f.embedding_model = t.embedding_model and f.id <> t.id
        order by ${distance} limit ${perFact}`,
  );
}

/**
 * For each of `factIds`, its `perFact` nearest current durable facts in its own scope (with
 * `later`, only those committed after it). Always exact, through the scope index: an approximate
 * (HNSW) scan filtered to one scope afterwards can return none of a crowded workspace's scope.
 * The cost follows the scope's size, not the workspace's.
 */
export async function scopeNeighbours(
  tenant: TenantDb,
  factIds: readonly string[],
  perFact: number,
  options: { later?: boolean } = {},
): Promise<{ factId: string; id: string; similarity: number }[]> {
  if (factIds.length === 0 || perFact <= 0) return [];
  return neighbourRows(
    tenant,
    factIds,
    sql`select f.id, 1 - (f.embedding <=> t.embedding) as similarity from facts f
        where f.workspace_id = ${tenant.workspaceId} and f.scope = t.scope and ${CURRENT} and f.durability = 'durable' and f.erased_at is null
          and f.embedding_model = t.embedding_model and f.id <> t.id ${options.later ? sql`and f.committed_at > t.committed_at` : sql``}
        order by (f.embedding <=> t.embedding) + 0, f.id limit ${perFact}`,
  );
}

/**
 * For each of `factIds`, up to `perFact` current durable facts of its own scope sharing one of its
 * match keys, those sharing the most first, then the newest: the same claim stated long ago in the
 * same place ("the workers run on Python 3.9", years before "CI tests Python 3.12 only"),
 * which a workspace-wide read of each key's newest facts misses once the key is crowded. Read
 * through the scope index, like `scopeNeighbours`.
 */
export async function scopeKeyMates(tenant: TenantDb, factIds: readonly string[], perFact: number): Promise<{ factId: string; id: string; shared: number }[]> {
  if (factIds.length === 0 || perFact <= 0) return [];
  const found = await rows<{ fact_id: string; id: string; shared: number }>(
    tenant,
    sql`select t.id as fact_id, n.id, n.shared from facts t
        cross join lateral (
          select f.id, cardinality(array(select unnest(f.match_keys) intersect select unnest(t.match_keys))) as shared from facts f
          where f.workspace_id = ${tenant.workspaceId} and f.scope = t.scope and ${CURRENT} and f.durability = 'durable' and f.erased_at is null
            and f.id <> t.id and f.match_keys && t.match_keys
          order by 2 desc, f.committed_at desc, f.id limit ${perFact}
        ) n
        where t.workspace_id = ${tenant.workspaceId} and t.id = any(${uuidArrayLiteral(factIds)}::uuid[])`,
    { readOnly: true },
  );
  return found.map((r) => ({ factId: r.fact_id, id: r.id, shared: Number(r.shared) }));
}

/** Runs a per-fact neighbour search (`t` is the fact, the search its lateral subquery). */
async function neighbourRows(tenant: TenantDb, factIds: readonly string[], search: SQL): Promise<{ factId: string; id: string; similarity: number }[]> {
  const found = await rows<{ fact_id: string; id: string; similarity: number }>(
    tenant,
    sql`select t.id as fact_id, n.id, n.similarity from facts t
        cross join lateral (${search}) n
        where t.workspace_id = ${tenant.workspaceId} and t.id = any(${uuidArrayLiteral(factIds)}::uuid[]) and t.embedding is not null`,
    { readOnly: true },
  );
  return found.map((r) => ({ factId: r.fact_id, id: r.id, similarity: Number(r.similarity) }));
}

/** Lexemes looked up per call (a burst's triggers share most of theirs). */
const MAX_LEXEMES = 80;
/** A lexeme that can be quoted into a one-word tsquery as it is. */
const PLAIN_LEXEME = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * For each of `factIds`, up to `perFact` current durable facts sharing its rarest words: the
 * lexemes of its full-text vector that at most `maxShared` other facts of the workspace hold,
 * each scored ln((maxShared + 2) / holders) (a word two facts share says more than one thirty
 * share). What ties "moved the dashboard to a client-only SPA" to "the dashboard is
 * server-rendered" when no value and no embedding does. Each word is one capped GIN lookup with
 * the word as a plan-time constant, so the plan is the index whatever the word.
 */
export async function sharedWordNeighbours(
  tenant: TenantDb,
  factIds: readonly string[],
  perFact: number,
  maxShared: number,
): Promise<{ factId: string; id: string; score: number }[]> {
  if (factIds.length === 0 || perFact <= 0) return [];
  const w = tenant.workspaceId;
  const triggers = await rows<{ id: string; words: string[] | null }>(
    tenant,
    sql`select t.id, tsvector_to_array(t.tsv) as words from facts t where t.workspace_id = ${w} and t.id = any(${uuidArrayLiteral(factIds)}::uuid[])`,
    { readOnly: true },
  );
  const lexemes = [...new Set(triggers.flatMap((t) => (t.words ?? []).filter((l) => PLAIN_LEXEME.test(l))))].sort().slice(0, MAX_LEXEMES);
  if (lexemes.length === 0) return [];
  const cap = maxShared + 2;
  const lookups = lexemes.map(
    (lexeme, i) =>
      sql`(select ${i}::int as k, f.id from facts f
           where f.workspace_id = ${w} and ${CURRENT} and f.durability = 'durable' and f.erased_at is null
             and f.tsv @@ ${`'${lexeme}'`}::tsquery
           limit ${cap})`,
  );
  const found = await rows<{ k: number; id: string }>(tenant, sql.join(lookups, sql` union all `), { readOnly: true });
  const holders = new Map<string, string[]>();
  for (const r of found) {
    const lexeme = lexemes[Number(r.k)]!;
    holders.set(lexeme, [...(holders.get(lexeme) ?? []), r.id]);
  }
  const result: { factId: string; id: string; score: number }[] = [];
  for (const trigger of triggers) {
    const scores = new Map<string, number>();
    for (const lexeme of new Set(trigger.words ?? [])) {
      const ids = holders.get(lexeme) ?? [];
      // Held by the trigger and at least one other fact, by at most maxShared others.
      if (ids.length < 2 || ids.length > maxShared + 1) continue;
      for (const id of ids) if (id !== trigger.id) scores.set(id, (scores.get(id) ?? 0) + Math.log(cap / ids.length));
    }
    const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, perFact);
    for (const [id, score] of ranked) result.push({ factId: trigger.id, id, score });
  }
  return result;
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
            and id in (${sql.join(factIds.map((id) => sql`${id}::uuid`), sql`, `)})
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

/** A fact by id within the tenant. */
export async function getFact(tenant: TenantDb, factId: string): Promise<FactRow | null> {
  const [row] = await rows<FactRow & Record<string, unknown>>(
    tenant,
    sql`select ${FACT_COLUMNS} from facts f where f.workspace_id = ${tenant.workspaceId} and f.id = ${factId}`,
  );
  return row ?? null;
}

/**
 * Closes the window of every fact whose TTL has run out, in all workspaces (a maintenance sweep:
 * cross-tenant by nature). Returns how many were closed.
 */
export async function expireFacts(db: Database, now = new Date()): Promise<number> {
  const closed = await queryRows<{ id: string }>(
    db,
    sql`update facts set valid_until = greatest(valid_from, expires_at)
        where valid_until is null and expires_at is not null and expires_at <= ${ts(now)}
        returning id`,
  );
  return closed.length;
}

/** One page of the journal: every version committed after the watermark, oldest first. */
export async function journalPage(
  tenant: TenantDb,
  params: { after: Date | null; afterId: string | null; scope?: string; limit: number },
): Promise<FactRow[]> {
  const filters: SQL[] = [sql`f.workspace_id = ${tenant.workspaceId}`];
  if (params.after && params.afterId) {
    filters.push(sql`(f.committed_at, f.id) > (${ts(params.after)}, ${params.afterId}::uuid)`);
  } else if (params.after) {
    filters.push(sql`f.committed_at > ${ts(params.after)}`);
  }
  if (params.scope) filters.push(scopeFilter(params.scope));
  return rows<FactRow & Record<string, unknown>>(
    tenant,
    sql`select ${FACT_COLUMNS} from facts f where ${sql.join(filters, sql` and `)}
        order by f.committed_at, f.id limit ${params.limit}`,
    { readOnly: true },
  );
}

/** Facts whose embedding is missing or from another model (for `engram reembed`), any workspace. */
export async function factsToReembed(db: Database, model: string, limit: number): Promise<{ id: string; content: string }[]> {
  return queryRows<{ id: string; content: string }>(
    db,
    sql`select id, content from facts
        where (embedding is null or embedding_model is distinct from ${model}) and erased_at is null
        order by committed_at limit ${limit}`,
  );
}

/** Stores a recomputed embedding. */
export async function setEmbedding(db: Database, factId: string, embedding: readonly number[], model: string): Promise<void> {
  await db.execute(
    sql`update facts set embedding = ${vectorLiteral(embedding)}::halfvec, embedding_model = ${model} where id = ${factId}`,
  );
}

/** Facts whose entities an older extractor produced (re-extracted in the background), any workspace. */
export async function factsToReextract(
  db: Database,
  version: number,
  limit: number,
): Promise<{ id: string; content: string; scope: string }[]> {
  return queryRows<{ id: string; content: string; scope: string }>(
    db,
    sql`select id, content, scope from facts where extractor_version < ${version} and erased_at is null limit ${limit}`,
  );
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

/**
 * Counting a workspace's current facts reads all of them (about 100 ms at 100,000 on a busy
 * 2-core machine), and `engram_status` counts on every call. Up to this many the count is exact on
 * every call; a larger workspace's count is remembered for LARGE_COUNT_MS (per process).
 */
const EXACT_COUNT_LIMIT = 10_000;
const LARGE_COUNT_MS = 30_000;
const largeCounts = new Map<string, { count: number; until: number }>();
const recounting = new Set<string>();

/** How many facts are current (the one definition: window open, TTL not run out). */
export async function countCurrentFacts(tenant: TenantDb, options: { exactUpTo?: number } = {}): Promise<number> {
  const workspace = tenant.workspaceId;
  const remembered = largeCounts.get(workspace);
  // A large workspace's count is served from memory while fresh, or while a recount is under way.
  if (remembered && (remembered.until > Date.now() || recounting.has(workspace))) return remembered.count;
  const counting = tenant
    .read<{ n: number }>(sql`select count(*)::int as n from facts f where f.workspace_id = ${workspace} and ${CURRENT}`)
    .then(([row]) => Number(row?.n ?? 0));
  if (remembered) recounting.add(workspace);
  try {
    const count = await counting;
    if (count < (options.exactUpTo ?? EXACT_COUNT_LIMIT)) largeCounts.delete(workspace);
    else {
      if (largeCounts.size > 10_000) largeCounts.clear();
      largeCounts.set(workspace, { count, until: Date.now() + LARGE_COUNT_MS });
    }
    return count;
  } finally {
    recounting.delete(workspace);
  }
}

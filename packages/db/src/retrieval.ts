/**
 * Hybrid retrieval, hand-written: nearest neighbours on the HNSW index and full-text candidates,
 * fused by reciprocal rank, with the signals the scoring formula needs, for one topic or a group
 * of them in one statement. No builder expresses the lateral searches, the fusion or the plan
 * hints (`+ 0`, OFFSET 0, MATERIALIZED) this depends on.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { joinFactMember } from './access.ts';
import { conflictsOfFacts } from './detection.ts';
import { CANDIDATE_FIELDS, CURRENT, f, factRowsOf as rows, scopeFilter, unexpiredAt, validAt, type FactRow } from './fact-rows.ts';
import type { TenantDb } from './tenant.ts';
import { textArrayLiteral, vectorLiteral } from './values.ts';

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

/** A candidate's columns (its entities are only counted). */
const CANDIDATE_COLUMNS = sql.raw(CANDIDATE_FIELDS.map((c) => `f.${c}`).join(', '));

/**
 * Below this many fact rows, a workspace's vector search is exact rather than through HNSW, and its full text ranks every
 * fact holding a word of the topic; above it, full text finds facts through the GIN index by every word, then by uncommon
 * words (migration 0024).
 */
const EXACT_SEARCH_LIMIT = 1500;
const SIZE_CACHE_MS = 30_000;
const sizeCache = new Map<string, { small: boolean; until: number }>();

/**
 * Whether a workspace is small enough for exact vector search: a capped count along the
 * (workspace_id, committed_at) index, remembered for half a minute (workspaces grow slowly, and a
 * stale answer only costs speed, never results).
 */
export async function isSmallWorkspace(tenant: TenantDb): Promise<boolean> {
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
  const window = params.window;
  const where = tenant.where(
    f,
    window.kind === 'current' ? CURRENT : undefined,
    window.kind === 'as_of' ? and(validAt(window.at), unexpiredAt(window.at)) : undefined,
    params.scope ? scopeFilter(params.scope) : undefined,
    params.factType ? eq(f.factType, params.factType as FactRow['fact_type']) : undefined,
    params.includeEphemeral ? undefined : eq(f.durability, 'durable'),
    isNull(f.erasedAt),
  );
  const vectorWhere = and(where, eq(f.embeddingModel, params.model));

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
  const words = single ? single.topic : sql`q.t`;
  const distance = exact ? sql`(f.embedding <=> ${vector}) + 0` : sql`f.embedding <=> ${vector}`;
  // Equal distances are ranked by id, so a topic gets the same ranks whichever plan reads them.
  const nearest = sql`select n.id, row_number() over (order by n.distance, n.id) as r from (
        select f.id, ${distance} as distance from facts f where ${vectorWhere}
        order by 2 limit ${params.depth}) n`;
  // Full text (migrations 0018, 0022-0024): in a small workspace, every fact holding a word of the
  // topic, the rarer words weighing more (BM25), ranked before the depth is cut; in a large one, the
  // facts holding every word, and when too few do, those holding its uncommon words, ranked the same
  // way. Through engram_text_candidates (migration 0010): under row-level security the GIN
  // index is unusable (41 ms instead of 1.5 ms at 100,000 facts), so the function reads ids and
  // ranks as the owner, confined to this transaction's workspace; the facts are read below, confined.
  const matching = sql`engram_text_candidates(${words}, ${window.kind},
      ${window.kind === 'as_of' ? window.at.toISOString() : null}::timestamptz, ${params.scope ?? null}::text, ${params.factType ?? null}::text,
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
      select fused.n, ${CANDIDATE_COLUMNS}, case when jsonb_typeof(f.entities) = 'array' then jsonb_array_length(f.entities) else 0 end as entity_count, fused.rrf::float8 as rrf, fused.vector_rank::int as vector_rank,
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

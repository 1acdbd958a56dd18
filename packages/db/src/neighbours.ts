/**
 * Facts near a fact, hand-written (vector distance, shared match keys, shared rare words): the
 * commit's near-duplicates and the detector's neighbours. Each search is a lateral subquery per
 * fact whose plan is pinned by hand (`+ 0`, exact or HNSW by workspace size), which no builder
 * expresses.
 */
import { and, eq, gt, isNotNull, isNull, ne, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { CURRENT, f, factRowsOf as rows, unexpiredAt, NEIGHBOUR_FIELDS, type SimilarFact } from './fact-rows.ts';
import { isSmallWorkspace } from './retrieval.ts';
import { facts } from './schema.ts';
import type { TenantDb } from './tenant.ts';
import { anyUuid, columnsNamed, qb, vectorLiteral } from './values.ts';

/** The fact whose neighbours a per-fact search finds (the searches' `f` are its candidates). */
const t = alias(facts, 't');

/** The facts (as `f`) a detector's neighbour may be: current, durable and not erased. */
const durableCurrent = (workspaceId: string) => and(eq(f.workspaceId, workspaceId), CURRENT, eq(f.durability, 'durable'), isNull(f.erasedAt));

/** Current, unexpired facts (as `f`) of a scope embedded by `model`: where a new fact's near-duplicates are. */
const currentInScope = (workspaceId: string, scope: string, model: string, at: Date) =>
  and(
    eq(f.workspaceId, workspaceId),
    eq(f.scope, scope),
    eq(f.embeddingModel, model),
    isNull(f.validUntil),
    unexpiredAt(at),
  );

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
  // The vector is sent once: the order is by the selected distance (still the HNSW ordering).
  const distance = sql<number>`${f.embedding} <=> ${vectorLiteral(params.embedding)}::halfvec`.as('distance');
  const found = await rows<Omit<SimilarFact, 'similarity'> & { distance: number | string } & Record<string, unknown>>(
    tenant,
    qb
      .select({ ...columnsNamed(f, NEIGHBOUR_FIELDS), distance })
      .from(f)
      .where(
        and(
          currentInScope(tenant.workspaceId, params.scope, params.model, params.at ?? new Date()),
          params.entitySignature === undefined ? undefined : eq(f.entitySignature, params.entitySignature),
        ),
      )
      .orderBy(distance)
      .limit(params.limit),
    { readOnly: true },
  );
  return found.map(({ distance, ...r }) => ({ ...r, similarity: 1 - Number(distance) })).sort((a, b) => b.similarity - a.similarity);
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
        where ${and(durableCurrent(tenant.workspaceId), eq(f.embeddingModel, t.embeddingModel), ne(f.id, t.id))}
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
        where ${and(
          durableCurrent(tenant.workspaceId),
          eq(f.scope, t.scope),
          eq(f.embeddingModel, t.embeddingModel),
          ne(f.id, t.id),
          options.later ? gt(f.committedAt, t.committedAt) : undefined,
        )}
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
          where ${and(durableCurrent(tenant.workspaceId), eq(f.scope, t.scope), ne(f.id, t.id))} and f.match_keys && t.match_keys
          order by 2 desc, f.committed_at desc, f.id limit ${perFact}
        ) n
        where ${and(eq(t.workspaceId, tenant.workspaceId), anyUuid(t.id, factIds))}`,
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
        where ${and(eq(t.workspaceId, tenant.workspaceId), anyUuid(t.id, factIds), isNotNull(t.embedding))}`,
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
    qb
      .select({ id: t.id, words: sql<string[] | null>`tsvector_to_array(${t.tsv})`.as('words') })
      .from(t)
      .where(and(eq(t.workspaceId, w), anyUuid(t.id, factIds))),
    { readOnly: true },
  );
  const lexemes = [...new Set(triggers.flatMap((t) => (t.words ?? []).filter((l) => PLAIN_LEXEME.test(l))))].sort().slice(0, MAX_LEXEMES);
  if (lexemes.length === 0) return [];
  const cap = maxShared + 2;
  const lookups = lexemes.map(
    (lexeme, i) =>
      sql`(select ${i}::int as k, f.id from facts f
           where ${durableCurrent(w)} and f.tsv @@ ${`'${lexeme}'`}::tsquery
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

/**
 * What the fact files share: the row shape reads return, the columns behind it, what "current"
 * means, the scope filter, and turning a driver's rows into that shape (both drivers alike).
 */
import { and, gt, isNull, lte, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { facts, type FactEntity, type FactCitation } from './schema.ts';
import type { TenantDb } from './tenant.ts';
import { columnsNamed, databaseNow, parseTimestamp } from './values.ts';

/**
 * `facts` as `f`: built queries name it as the hand-written fragments do (scopeFilter,
 * joinFactMember, closedByCase), so the two mix.
 */
export const f = alias(facts, 'f');

/** `greatest(valid_from, end)`, for an update of `facts`: a window closed at `end`, never before it opened. */
export const closedAt = (end: SQLWrapper) => sql`greatest(${facts.validFrom}, ${end})`;

/** Facts (as `f`) whose validity window holds the instant `at`. */
export const validAt = (at: Date) => and(lte(f.validFrom, at), or(isNull(f.validUntil), gt(f.validUntil, at)));

/** Facts (as `f`) whose TTL has not run out at `at` (an instant, or the database's clock). */
export const unexpiredAt = (at: Date | SQL) => or(isNull(f.expiresAt), gt(f.expiresAt, at));

/** A fact (as `f`) is current while its window is open and its TTL has not run out (by the database's clock). */
export const CURRENT = and(isNull(f.validUntil), unexpiredAt(databaseNow))!;

/** `scope` or any scope below it (`payments` covers `payments/webhooks`). */
export function scopeFilter(scope: string, column: SQLWrapper = f.scope): SQL {
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

export const CANDIDATE_FIELDS = [
  'id', 'lineage_id', 'content', 'scope', 'confidence', 'fact_type', 'agent_id', 'member_id', 'provenance',
  'committed_at', 'valid_from', 'valid_until', 'expires_at', 'ttl_days', 'memory_op', 'supersedes_fact_id',
  'durability', 'query_hits', 'corroborating_agents', 'source', 'embedding_model', 'retired_for_fact_id', 'citations', 'verified_at',
] as const;
/** A FactRow's columns, for hand-written statements (`f` is the fact). */
export const FACT_COLUMNS = sql.raw([...CANDIDATE_FIELDS, 'entities'].map((c) => `f.${c}`).join(', '));
/** A FactRow's columns, for built queries (of `f`). */
export const factSelection = columnsNamed(f, [...CANDIDATE_FIELDS, 'entities']);

const TIMESTAMP_FIELDS = ['committed_at', 'valid_from', 'valid_until', 'expires_at', 'verified_at'] as const;

/**
 * Rows as the types say: drizzle leaves timestamps as the driver's text, and postgres.js returns
 * double precision as a string in some paths; both drivers get the same shape here.
 */
export async function factRowsOf<T extends Record<string, unknown>>(tenant: TenantDb, query: SQLWrapper, options: { readOnly?: boolean; last?: boolean } = {}): Promise<T[]> {
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

/** What the commit pipeline needs to know about a neighbour (dedup answer, lineage, corroboration). */
export const NEIGHBOUR_FIELDS = ['id', 'lineage_id', 'agent_id', 'durability', 'entities', 'committed_at', 'provenance', 'expires_at'] as const;
export type SimilarFact = Pick<FactRow, (typeof NEIGHBOUR_FIELDS)[number]> & { similarity: number };

export const NEIGHBOUR_COLUMNS = sql.raw(NEIGHBOUR_FIELDS.map((c) => `f.${c}`).join(', '));

/** What a duplicate's answer needs of the current fact it names. */
export const CURRENT_FIELDS = ['id', 'lineage_id', 'committed_at', 'provenance', 'durability', 'expires_at'] as const;

/** The arguments of a `jsonb_build_object` of these columns of a fact (as `f`). */
export const factJson = (fields: readonly string[]) => sql.raw(fields.map((c) => `'${c}', f.${c}`).join(', '));

/** A current fact as the commit pipeline answers with it (an identical fact, a duplicate's answer). */
export type CurrentFact = Pick<FactRow, (typeof CURRENT_FIELDS)[number]>;

/**
 * Why a fact stopped being current, and what took its place: one definition for the timeline and
 * for the superseded match `engram_query` shows beside current facts.
 */
import { and, eq, gte, isNotNull, isNull, ne, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { f } from './fact-rows.ts';
import { facts } from './schema.ts';
import type { TenantDb } from './tenant.ts';
import { anyUuid, coalesce, qb, toDate, ts } from './values.ts';

/** Another version of a fact's (`f`'s) lineage. */
const g = alias(facts, 'g');

export type ClosedBy = 'superseded' | 'deleted' | 'expired' | 'detector' | 'resolution';

/**
 * How the window of fact `f` ended, given its end `end` (null while current): settled by the
 * detector or by a person, ran out its TTL, replaced by a later version of its lineage, or retired
 * by a delete.
 */
export function closedByCase(end: SQL): SQL {
  return sql`case
      when ${end} is null then null
      when f.retired_by in ('detector', 'resolution') then f.retired_by
      when f.expires_at is not null and ${end} >= f.expires_at then 'expired'
      when exists (
        select 1 from facts g
        where g.workspace_id = f.workspace_id and g.lineage_id = f.lineage_id and g.id <> f.id
          and g.committed_at >= f.committed_at
      ) then 'superseded'
      else 'deleted'
    end`;
}

/**
 * When the window of fact `f` ended, as of `now`: its `valid_until`, or its expiry once that has
 * passed (a TTL that ran out before the expiry sweep closed the window); null while current.
 */
export const windowEnd = (now: Date) => sql`case when f.valid_until is null and f.expires_at <= ${ts(now)} then f.expires_at else f.valid_until end`;

export interface Closing {
  fact_id: string;
  closed_at: Date;
  closed_by: ClosedBy;
  /** The fact that took its place: the kept fact of a settlement, or the next version of its lineage. */
  replaced_by: string | null;
}

/** How each of the closed facts `ids` ended (current ones are left out). */
export async function closingsOf(tenant: TenantDb, ids: readonly string[], now: Date): Promise<Closing[]> {
  if (ids.length === 0) return [];
  const end = windowEnd(now);
  // The fact's lineage's next version (a settlement names the kept fact instead).
  const nextVersion = qb
    .select({ id: g.id })
    .from(g)
    .where(and(eq(g.workspaceId, f.workspaceId), eq(g.lineageId, f.lineageId), ne(g.id, f.id), gte(g.committedAt, f.committedAt), isNull(g.erasedAt)))
    .orderBy(g.committedAt, g.id)
    .limit(1);
  const rows = await tenant.read<Record<string, unknown>>(
    qb
      .select({
        id: f.id,
        closed_at: end.as('closed_at'),
        closed_by: closedByCase(end).as('closed_by'),
        replaced_by: coalesce(f.retiredForFactId, nextVersion).as('replaced_by'),
      })
      .from(f)
      .where(tenant.where(f, anyUuid(f.id, ids), isNotNull(end))),
  );
  return rows.map((r) => ({
    fact_id: String(r.id),
    closed_at: toDate(r.closed_at)!,
    closed_by: r.closed_by as ClosedBy,
    replaced_by: (r.replaced_by as string | null) ?? null,
  }));
}

/**
 * Why a fact stopped being current, and what took its place: one definition for the timeline and
 * for the superseded match `engram_query` shows beside current facts.
 */
import { sql, type SQL } from 'drizzle-orm';
import { toDate, ts, uuidArrayLiteral } from './values.ts';
import type { TenantDb } from './tenant.ts';

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
  const rows = await tenant.read<Record<string, unknown>>(
    sql`select f.id as fact_id, ${end} as closed_at, ${closedByCase(end)} as closed_by,
          coalesce(f.retired_for_fact_id, (
            select g.id from facts g
            where g.workspace_id = f.workspace_id and g.lineage_id = f.lineage_id and g.id <> f.id
              and g.committed_at >= f.committed_at and g.erased_at is null
            order by g.committed_at, g.id limit 1)) as replaced_by
        from facts f
        where f.workspace_id = ${tenant.workspaceId} and f.id = any(${uuidArrayLiteral(ids)}::uuid[]) and ${end} is not null`,
  );
  return rows.map((r) => ({
    fact_id: String(r.fact_id),
    closed_at: toDate(r.closed_at)!,
    closed_by: r.closed_by as ClosedBy,
    replaced_by: (r.replaced_by as string | null) ?? null,
  }));
}

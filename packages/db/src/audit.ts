/**
 * The audit log. Entries are written by one cross-tenant writer, as the tables' owner (a batch
 * mixes workspaces, and some entries have none); a workspace's owners read theirs through its
 * TenantDb.
 */
import { desc, lt, sql } from 'drizzle-orm';
import { queryRows, type Database } from './database.ts';
import { auditLog } from './schema.ts';
import type { TenantDb } from './tenant.ts';

/** An audit entry as stored. */
export type AuditRecord = typeof auditLog.$inferSelect;
/** An audit entry to store (its id is generated). */
export type NewAuditRecord = typeof auditLog.$inferInsert;

/**
 * Writes a batch of audit entries, of any workspaces, in one statement (cross-tenant: the raw
 * database, not a TenantDb), in their order. A rejected entry fails the whole batch with the
 * database's error. The entries travel as one JSON parameter: a query builder's insert of a
 * batch (up to 200 rows of ten values) checks and maps each value, a visible share of a loaded
 * server's CPU (docs/performance/2026-12-02-constants.md).
 */
export async function insertAuditEntries(db: Database, rows: readonly NewAuditRecord[]): Promise<void> {
  if (rows.length === 0) return;
  const entries = rows.map((r, n) => ({
    n,
    workspace_id: r.workspaceId ?? null,
    member_id: r.memberId ?? null,
    token_id: r.tokenId ?? null,
    actor: r.actor,
    action: r.action,
    summary: r.summary ?? {},
    outcome: r.outcome,
    error_code: r.errorCode ?? null,
    duration_ms: r.durationMs,
    created_at: r.createdAt?.toISOString() ?? null,
  }));
  await queryRows(
    db,
    sql`insert into audit_log (workspace_id, member_id, token_id, actor, action, summary, outcome, error_code, duration_ms, created_at)
        select r.workspace_id, r.member_id, r.token_id, r.actor, r.action, r.summary, r.outcome, r.error_code, r.duration_ms,
               coalesce(r.created_at, now())
        from jsonb_to_recordset(${JSON.stringify(entries)}::jsonb)
          as r(n int, workspace_id uuid, member_id uuid, token_id uuid, actor text, action text, summary jsonb, outcome text,
               error_code text, duration_ms int, created_at timestamptz)
        order by r.n`,
  );
}

/** A page of the workspace's audit log, newest first: up to `limit` entries, with ids below `before` when given. */
export async function listAuditRows(tenant: TenantDb, page: { limit: number; before?: number }): Promise<AuditRecord[]> {
  return tenant
    .select(auditLog, page.before ? lt(auditLog.id, page.before) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(page.limit);
}

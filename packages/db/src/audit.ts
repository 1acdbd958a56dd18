/**
 * The audit log. Entries are written by one cross-tenant writer, as the tables' owner (a batch
 * mixes workspaces, and some entries have none); a workspace's owners read theirs through its
 * TenantDb.
 */
import { desc, lt } from 'drizzle-orm';
import type { Database } from './client.ts';
import { auditLog } from './schema.ts';
import type { TenantDb } from './tenant.ts';

/** An audit entry as stored. */
export type AuditRecord = typeof auditLog.$inferSelect;
/** An audit entry to store (its id is generated). */
export type NewAuditRecord = typeof auditLog.$inferInsert;

/**
 * Writes a batch of audit entries, of any workspaces, in one statement (cross-tenant: the raw
 * database, not a TenantDb). A rejected entry fails the whole batch with the database's error.
 */
export async function insertAuditEntries(db: Database, rows: readonly NewAuditRecord[]): Promise<void> {
  await db.insert(auditLog).values([...rows]);
}

/** A page of the workspace's audit log, newest first: up to `limit` entries, with ids below `before` when given. */
export async function listAuditRows(tenant: TenantDb, page: { limit: number; before?: number }): Promise<AuditRecord[]> {
  return tenant
    .select(auditLog, page.before ? lt(auditLog.id, page.before) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(page.limit);
}

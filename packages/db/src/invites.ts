/**
 * Invites: the cross-tenant lookup an invite key starts from, and the workspace's own invite rows
 * (created, listed, revoked and redeemed through its TenantDb).
 */
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from './database.ts';
import { invites, workspaces, type MemberRole } from './schema.ts';
import type { TenantDb } from './tenant.ts';
import { columnsNamed, increment } from './values.ts';

/** An invite's stored row. */
export type InviteRecord = typeof invites.$inferSelect;

/** An invite row, as redemption sees it. */
export interface InviteRow {
  id: string;
  workspace_id: string;
  role: 'owner' | 'member' | 'reader';
  uses_remaining: number;
  expires_at: Date;
  revoked_at: Date | null;
}

/**
 * The invite an invite key names, with its workspace, across tenants: the key's authenticated
 * claims are what select the workspace. Null when the invite (or the workspace) does not exist.
 */
export async function findInviteForKey(db: Database, workspaceId: string, inviteId: string) {
  const [row] = await db
    .select({
      inviteId: invites.id,
      role: invites.role,
      usesRemaining: invites.usesRemaining,
      expiresAt: invites.expiresAt,
      revokedAt: invites.revokedAt,
      workspaceId: workspaces.id,
      engramId: workspaces.engramId,
      workspaceName: workspaces.name,
      workspaceDeletedAt: workspaces.deletedAt,
    })
    .from(invites)
    .innerJoin(workspaces, eq(workspaces.id, invites.workspaceId))
    .where(and(eq(invites.id, inviteId), eq(invites.workspaceId, workspaceId)))
    .limit(1);
  return row ?? null;
}

/**
 * Takes one use of an invite if it is still redeemable (not revoked, not expired, uses left), in
 * one statement: of two concurrent redemptions of a last use, exactly one gets the row.
 */
export async function takeInviteUse(tenant: TenantDb, inviteId: string, now: Date): Promise<InviteRow | null> {
  const [row] = await tenant
    .update(
      invites,
      { usesRemaining: increment(invites.usesRemaining, -1) },
      eq(invites.id, inviteId),
      gt(invites.usesRemaining, 0),
      isNull(invites.revokedAt),
      gt(invites.expiresAt, now),
    )
    .returning(columnsNamed(invites, ['id', 'workspace_id', 'role', 'uses_remaining', 'expires_at', 'revoked_at']));
  return row ?? null;
}

/** Stores a new invite; its id. */
export async function insertInvite(
  tenant: TenantDb,
  values: { role: MemberRole; label: string | null; usesRemaining: number; expiresAt: Date; createdByMemberId: string | null },
): Promise<string> {
  const [row] = await tenant.insert(invites, values).returning({ id: invites.id });
  if (!row) throw new Error('insert into invites returned no row');
  return row.id;
}

/** One invite of the workspace, whatever its state; undefined when it is not this workspace's. */
export async function inviteRow(tenant: TenantDb, inviteId: string): Promise<InviteRecord | undefined> {
  const [row] = await tenant.select(invites, eq(invites.id, inviteId));
  return row;
}

/** Every invite of the workspace (revoked, expired and used-up ones too), newest first. */
export async function listInviteRows(tenant: TenantDb): Promise<InviteRecord[]> {
  return tenant.select(invites).orderBy(desc(invites.createdAt));
}

/**
 * Marks an invite revoked unless it already is (a repeated revocation keeps the first time);
 * whether this call revoked it.
 */
export async function markInviteRevoked(tenant: TenantDb, inviteId: string, at = new Date()): Promise<boolean> {
  const rows = await tenant.update(invites, { revokedAt: at }, eq(invites.id, inviteId), isNull(invites.revokedAt)).returning({ id: invites.id });
  return rows.length > 0;
}

/** Revokes every unrevoked invite of the workspace (rotating to one live key); how many it revoked. */
export async function revokeOpenInvites(tenant: TenantDb, at = new Date()): Promise<number> {
  const rows = await tenant.update(invites, { revokedAt: at }, isNull(invites.revokedAt)).returning({ id: invites.id });
  return rows.length;
}

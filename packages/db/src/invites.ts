import { and, eq, sql } from 'drizzle-orm';
import type { Database } from './client.ts';
import { invites, workspaces } from './schema.ts';
import type { TenantDb } from './tenant.ts';

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
  const [row] = await tenant.rows<InviteRow & Record<string, unknown>>(sql`update invites set uses_remaining = uses_remaining - 1
        where workspace_id = ${tenant.workspaceId} and id = ${inviteId}
          and uses_remaining > 0 and revoked_at is null and expires_at > ${now.toISOString()}::timestamptz
        returning id, workspace_id, role, uses_remaining, expires_at, revoked_at`,
  );
  return row ?? null;
}

/**
 * A workspace's own row, its members and its invites, read and written through its TenantDb
 * (row-level security keys the `workspaces` table on its id).
 */
import { and, asc, count, eq, gt, isNull, or } from 'drizzle-orm';
import { invites, members, tokens, workspaces, type WorkspaceSettings } from './schema.ts';
import type { TenantDb } from './tenant.ts';

/** The workspace's row, if it exists (and is this tenant's). */
export async function workspaceRow(tenant: TenantDb): Promise<typeof workspaces.$inferSelect | undefined> {
  const [row] = await tenant.run((db) => db.select().from(workspaces).where(eq(workspaces.id, tenant.workspaceId)));
  return row;
}

/** Renames the workspace and/or merges settings into its current ones; the updated row. */
export async function updateWorkspaceRow(
  tenant: TenantDb,
  change: { name?: string; settings?: Partial<WorkspaceSettings> },
): Promise<typeof workspaces.$inferSelect | undefined> {
  return tenant.transaction((tx) =>
    tx.run(async (db) => {
      const [row] = await db.select().from(workspaces).where(eq(workspaces.id, tenant.workspaceId)).for('update');
      if (!row) return undefined;
      const [updated] = await db
        .update(workspaces)
        .set({ ...(change.name ? { name: change.name } : {}), settings: { ...row.settings, ...(change.settings ?? {}) } })
        .where(eq(workspaces.id, tenant.workspaceId))
        .returning();
      return updated;
    }),
  );
}

/** Members not removed. */
export async function countLiveMembers(tenant: TenantDb): Promise<number> {
  const [row] = await tenant.run((db) =>
    db
      .select({ n: count() })
      .from(members)
      .where(tenant.where(members, isNull(members.removedAt))),
  );
  return row?.n ?? 0;
}

/** Every member (removed ones too), oldest first, with their count of unrevoked tokens. */
export async function listMemberRows(tenant: TenantDb) {
  return tenant.run((db) =>
    db
      .select({
        id: members.id,
        role: members.role,
        displayName: members.displayName,
        createdAt: members.createdAt,
        removedAt: members.removedAt,
        activeTokens: db.$count(tokens, and(eq(tokens.workspaceId, members.workspaceId), eq(tokens.memberId, members.id), isNull(tokens.revokedAt))),
      })
      .from(members)
      .where(tenant.where(members))
      .orderBy(asc(members.createdAt)),
  );
}

/** Invites that can still be redeemed: unrevoked, unexpired, with uses left. */
export async function countActiveInvites(tenant: TenantDb, now = new Date()): Promise<number> {
  const [row] = await tenant.run((db) =>
    db
      .select({ n: count() })
      .from(invites)
      .where(and(tenant.where(invites, isNull(invites.revokedAt)), gt(invites.usesRemaining, 0), gt(invites.expiresAt, now))),
  );
  return row?.n ?? 0;
}

/**
 * A member and every live owner, locked until the transaction ends: two owners removing each
 * other at the same moment must not leave the workspace without one.
 */
export async function lockMemberAndOwners(tenant: TenantDb, memberId: string) {
  return tenant.run((db) =>
    db
      .select()
      .from(members)
      .where(tenant.where(members, or(eq(members.id, memberId), and(eq(members.role, 'owner'), isNull(members.removedAt)))))
      .for('update'),
  );
}

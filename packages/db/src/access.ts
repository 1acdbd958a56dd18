/**
 * Who may use a workspace, read and written through its TenantDb: member rows, their bearer
 * tokens (stored as hashes) and their scope permissions. Resolving a token across workspaces is
 * in `system.ts`; the workspace's member list and the owner lock are in `workspace.ts`.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { f } from './fact-rows.ts';
import { members, scopePermissions, tokens, type MemberRole } from './schema.ts';
import type { TenantDb } from './tenant.ts';

/** A member's stored row. */
export type MemberRecord = typeof members.$inferSelect;
/** A token's stored row (its hash, never the token). */
export type TokenRecord = typeof tokens.$inferSelect;
/** A scope permission's stored row. */
export type ScopePermissionRecord = typeof scopePermissions.$inferSelect;

// --- members -------------------------------------------------------------------------------------

/** `members` as `m`: the member behind a fact (as `f`), found by {@link factMember}. */
export const m = alias(members, 'm');

/** The member row (`m`) behind the fact (`f`), by primary key. */
export const factMember = and(eq(m.workspaceId, f.workspaceId), eq(m.id, f.memberId))!;

/**
 * Joins the member behind each fact (as `f`) as `m`, by primary key, in a hand-written statement
 * that reads the facts (a built one calls `.leftJoin(m, factMember)`): `m.display_name` is the name
 * people see beside the agent id. A left join, so a fact without a member (anonymous mode) keeps
 * its row, with a null name.
 */
export const joinFactMember = sql`left join members m on ${factMember}`;

/** Adds a member to the workspace; its id. */
export async function insertMember(tenant: TenantDb, values: { role: MemberRole; displayName: string | null }): Promise<string> {
  const [row] = await tenant.insert(members, values).returning({ id: members.id });
  if (!row) throw new Error('insert into members returned no row');
  return row.id;
}

/** A member of the workspace, removed or not; undefined when there is none with this id. */
export async function memberRow(tenant: TenantDb, memberId: string): Promise<MemberRecord | undefined> {
  const [row] = await tenant.select(members, eq(members.id, memberId));
  return row;
}

/** A member of the workspace who has not been removed. */
export async function liveMemberRow(tenant: TenantDb, memberId: string): Promise<MemberRecord | undefined> {
  const [row] = await tenant.select(members, eq(members.id, memberId), isNull(members.removedAt));
  return row;
}

/** The longest-standing owner not removed (whom operator tools act for). */
export async function oldestLiveOwner(tenant: TenantDb): Promise<MemberRecord | undefined> {
  const [row] = await tenant
    .select(members, and(eq(members.role, 'owner'), isNull(members.removedAt)))
    .orderBy(asc(members.createdAt))
    .limit(1);
  return row;
}

/**
 * Renames a live member; the updated row, or undefined when there is no live member with this id.
 * A name another live member holds (ignoring case) fails with a unique violation on
 * `members_display_name_key`.
 */
export async function updateMemberName(tenant: TenantDb, memberId: string, displayName: string): Promise<MemberRecord | undefined> {
  const [row] = await tenant.update(members, { displayName }, eq(members.id, memberId), isNull(members.removedAt)).returning();
  return row;
}

/** Stamps a member removed at `removedAt` (callers check it was not removed already). */
export async function markMemberRemoved(tenant: TenantDb, memberId: string, removedAt: Date): Promise<void> {
  await tenant.update(members, { removedAt }, eq(members.id, memberId));
}

// --- tokens --------------------------------------------------------------------------------------

/** Stores a token's hash for a member; the token's id. */
export async function insertToken(
  tenant: TenantDb,
  values: { memberId: string; tokenHash: string; label: string | null } & Partial<
    Pick<TokenRecord, 'clientId' | 'resource' | 'expiresAt' | 'refreshHash' | 'refreshExpiresAt'>
  >,
): Promise<string> {
  const [row] = await tenant.insert(tokens, values).returning({ id: tokens.id });
  if (!row) throw new Error('insert into tokens returned no row');
  return row.id;
}

/** A token of the workspace (only if it is `memberId`'s, when given); undefined when not found. */
export async function tokenRow(tenant: TenantDb, tokenId: string, memberId?: string): Promise<TokenRecord | undefined> {
  const [row] = await tenant.select(tokens, eq(tokens.id, tokenId), memberId === undefined ? undefined : eq(tokens.memberId, memberId));
  return row;
}

/** The workspace's tokens (only `memberId`'s, when given), revoked ones too, oldest first. */
export async function listTokenRows(tenant: TenantDb, memberId?: string): Promise<TokenRecord[]> {
  return tenant.select(tokens, memberId === undefined ? undefined : eq(tokens.memberId, memberId)).orderBy(tokens.createdAt);
}

/** Marks a token revoked unless it already is (the first time is kept); whether this call revoked it. */
export async function markTokenRevoked(tenant: TenantDb, tokenId: string, at = new Date()): Promise<boolean> {
  const rows = await tenant.update(tokens, { revokedAt: at }, eq(tokens.id, tokenId), isNull(tokens.revokedAt)).returning({ id: tokens.id });
  return rows.length > 0;
}

/** Revokes every unrevoked token of a member; the ids of the tokens this call revoked. */
export async function revokeMemberTokens(tenant: TenantDb, memberId: string, at: Date): Promise<string[]> {
  const rows = await tenant
    .update(tokens, { revokedAt: at }, eq(tokens.memberId, memberId), isNull(tokens.revokedAt))
    .returning({ id: tokens.id });
  return rows.map((r) => r.id);
}

// --- scope permissions -----------------------------------------------------------------------------

/** Stores a scope permission for a member; the stored row. */
export async function insertScopePermission(
  tenant: TenantDb,
  values: { memberId: string; scopePrefix: string; canRead: boolean; canWrite: boolean; validFrom: Date | null; validUntil: Date | null },
): Promise<ScopePermissionRecord> {
  const [row] = await tenant.insert(scopePermissions, values).returning();
  if (!row) throw new Error('insert into scope_permissions returned no row');
  return row;
}

/** The workspace's scope permissions (only `memberId`'s, when given), oldest first. */
export async function listScopePermissionRows(tenant: TenantDb, memberId?: string): Promise<ScopePermissionRecord[]> {
  return tenant
    .select(scopePermissions, memberId === undefined ? undefined : eq(scopePermissions.memberId, memberId))
    .orderBy(scopePermissions.createdAt);
}

/** Deletes a scope permission; whether there was one with this id. */
export async function deleteScopePermission(tenant: TenantDb, permissionId: string): Promise<boolean> {
  const rows = await tenant.delete(scopePermissions, eq(scopePermissions.id, permissionId)).returning({ id: scopePermissions.id });
  return rows.length > 0;
}

/**
 * Dashboard sessions. Opening one goes through the workspace's TenantDb; finding and ending one by
 * the hash of its cookie is cross-tenant by nature (the cookie is the only thing a browser proves),
 * like resolving a bearer token in `system.ts`.
 */
import { and, eq, gt, inArray, isNotNull, isNull, lte } from 'drizzle-orm';
import type { Database } from './database.ts';
import { dashboardSessions, members, tokens, workspaces } from './schema.ts';
import { liveTokenOwner, memberGrants, TOKEN_OWNER_COLUMNS, type EndedMembership, type TokenOwner } from './system.ts';
import type { TenantDb } from './tenant.ts';

/** Stores a new session (and drops the workspace's expired ones while at it). */
export async function insertDashboardSession(
  tenant: TenantDb,
  session: { sessionHash: string; tokenId: string; csrfToken: string; expiresAt: Date; now: Date },
): Promise<void> {
  await tenant.delete(dashboardSessions, lte(dashboardSessions.expiresAt, session.now));
  await tenant.insert(dashboardSessions, {
    sessionHash: session.sessionHash,
    tokenId: session.tokenId,
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt,
    createdAt: session.now,
  });
}

/**
 * Ends the workspace's live sessions opened with any of these tokens by setting their expiry to
 * `now` (their rows stay until a sign-in sweeps expired ones); how many it ended.
 */
export async function expireTokenSessions(tenant: TenantDb, tokenIds: readonly string[], now: Date): Promise<number> {
  if (tokenIds.length === 0) return 0;
  const rows = await tenant
    .update(dashboardSessions, { expiresAt: now }, inArray(dashboardSessions.tokenId, [...tokenIds]), gt(dashboardSessions.expiresAt, now))
    .returning({ id: dashboardSessions.id });
  return rows.length;
}

/** A live session and who it speaks for. */
export interface SessionOwner extends Omit<TokenOwner, 'lastUsedAt'> {
  csrfToken: string;
  expiresAt: Date;
}

/**
 * Resolves a session hash to its member and workspace, across all tenants. Expired sessions, and
 * sessions whose token was revoked, whose member was removed or whose workspace was deleted,
 * resolve to null.
 */
export async function findSessionOwnerByHash(db: Database, sessionHash: string, now: Date): Promise<SessionOwner | null> {
  const [row] = await db
    .select({ csrfToken: dashboardSessions.csrfToken, expiresAt: dashboardSessions.expiresAt, ...TOKEN_OWNER_COLUMNS })
    .from(dashboardSessions)
    .innerJoin(tokens, and(eq(tokens.id, dashboardSessions.tokenId), eq(tokens.workspaceId, dashboardSessions.workspaceId)))
    .innerJoin(members, and(eq(members.id, tokens.memberId), eq(members.workspaceId, tokens.workspaceId)))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .where(
      and(
        eq(dashboardSessions.sessionHash, sessionHash),
        gt(dashboardSessions.expiresAt, now),
        liveTokenOwner(),
      ),
    )
    .limit(1);
  if (!row) return null;
  return { ...row, grants: await memberGrants(db, row.workspaceId, row.memberId) };
}

/**
 * The ended membership behind a session that no longer resolves: its member was removed from a
 * live workspace (removal ends the member's sessions but keeps their rows until the workspace's next
 * sign-in sweeps expired ones, so the browser can be told why). Null for anything else.
 */
export async function findEndedMembershipBySessionHash(db: Database, sessionHash: string): Promise<EndedMembership | null> {
  const [row] = await db
    .select({ workspaceName: workspaces.name, removedAt: members.removedAt })
    .from(dashboardSessions)
    .innerJoin(tokens, and(eq(tokens.id, dashboardSessions.tokenId), eq(tokens.workspaceId, dashboardSessions.workspaceId)))
    .innerJoin(members, and(eq(members.id, tokens.memberId), eq(members.workspaceId, tokens.workspaceId)))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .where(and(eq(dashboardSessions.sessionHash, sessionHash), isNotNull(members.removedAt), isNull(workspaces.deletedAt)))
    .limit(1);
  return row?.removedAt ? { workspaceName: row.workspaceName, removedAt: row.removedAt } : null;
}

/** Ends the session with this hash, in whichever workspace; returns whether one existed. */
export async function deleteDashboardSessionByHash(db: Database, sessionHash: string): Promise<boolean> {
  const rows = await db
    .delete(dashboardSessions)
    .where(eq(dashboardSessions.sessionHash, sessionHash))
    .returning({ id: dashboardSessions.id });
  return rows.length > 0;
}

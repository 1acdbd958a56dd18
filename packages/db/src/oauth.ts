/**
 * The OAuth authorization server's storage. Registered clients belong to no workspace; codes and
 * grants belong to the consenting member's workspace and are written through its TenantDb. Finding
 * a code, a refresh token or a token to revoke by its hash is cross-tenant by nature (the hash is
 * all a client proves), like resolving a bearer token in `system.ts`.
 */
import { and, eq, isNotNull, isNull, lt, or } from 'drizzle-orm';
import type { Database } from './database.ts';
import { members, oauthClients, oauthCodes, tokens, workspaces } from './schema.ts';
import type { TenantDb } from './tenant.ts';

/** A self-registered client's stored row. */
export type OAuthClientRecord = typeof oauthClients.$inferSelect;
/** An authorization code's stored row (its hash, never the code). */
export type OAuthCodeRecord = typeof oauthCodes.$inferSelect;

// --- clients -------------------------------------------------------------------------------------

export async function insertOAuthClient(db: Database, values: typeof oauthClients.$inferInsert): Promise<OAuthClientRecord> {
  const [row] = await db.insert(oauthClients).values(values).returning();
  if (!row) throw new Error('insert into oauth_clients returned no row');
  return row;
}

export async function findOAuthClient(db: Database, clientId: string): Promise<OAuthClientRecord | undefined> {
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  return row;
}

// --- codes ---------------------------------------------------------------------------------------

/** Stores a code a member consented to (and drops the workspace's expired ones while at it). */
export async function insertOAuthCode(tenant: TenantDb, values: Omit<typeof oauthCodes.$inferInsert, 'workspaceId'>, now: Date): Promise<void> {
  await tenant.delete(oauthCodes, lt(oauthCodes.expiresAt, new Date(now.getTime() - 86_400_000)));
  await tenant.insert(oauthCodes, values);
}

/**
 * Marks a code used and returns it, across workspaces. A code already used comes back with
 * `reused: true` (and is not changed); an unknown code is undefined.
 */
export async function consumeOAuthCode(db: Database, codeHash: string, now: Date): Promise<{ code: OAuthCodeRecord; reused: boolean } | undefined> {
  const [taken] = await db
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
    .returning();
  if (taken) return { code: taken, reused: false };
  const [used] = await db.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).limit(1);
  return used ? { code: used, reused: true } : undefined;
}

/** Records which grant a code was exchanged for. */
export async function linkOAuthCode(tenant: TenantDb, codeHash: string, tokenId: string): Promise<void> {
  await tenant.update(oauthCodes, { tokenId }, eq(oauthCodes.codeHash, codeHash));
}

// --- grants (token rows with a client) -----------------------------------------------------------

/** A live grant found by its current refresh token. */
export interface OAuthGrant {
  tokenId: string;
  workspaceId: string;
  memberId: string;
  clientId: string;
  resource: string | null;
  label: string | null;
  refreshExpiresAt: Date | null;
}

/**
 * The live grant (token unrevoked, member not removed, workspace not deleted) whose current
 * refresh token has this hash.
 */
export async function findGrantByRefreshHash(db: Database, refreshHash: string): Promise<OAuthGrant | undefined> {
  const [row] = await db
    .select({
      tokenId: tokens.id,
      workspaceId: tokens.workspaceId,
      memberId: tokens.memberId,
      clientId: tokens.clientId,
      resource: tokens.resource,
      label: tokens.label,
      refreshExpiresAt: tokens.refreshExpiresAt,
    })
    .from(tokens)
    .innerJoin(members, and(eq(members.id, tokens.memberId), eq(members.workspaceId, tokens.workspaceId)))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .where(and(eq(tokens.refreshHash, refreshHash), isNull(tokens.revokedAt), isNull(members.removedAt), isNull(workspaces.deletedAt)))
    .limit(1);
  return row?.clientId ? { ...row, clientId: row.clientId } : undefined;
}

/**
 * Replaces a grant's access and refresh tokens, only if its refresh token is still `refreshHash`
 * (two refreshes racing with the same token: one wins). Whether this call rotated it.
 */
export async function rotateGrant(
  db: Database,
  grant: { tokenId: string; refreshHash: string },
  next: { tokenHash: string; expiresAt: Date; refreshHash: string; refreshExpiresAt: Date },
): Promise<boolean> {
  const rows = await db
    .update(tokens)
    .set({ ...next, previousRefreshHash: grant.refreshHash })
    .where(and(eq(tokens.id, grant.tokenId), eq(tokens.refreshHash, grant.refreshHash), isNull(tokens.revokedAt)))
    .returning({ id: tokens.id });
  return rows.length > 0;
}

/**
 * Revokes the OAuth grant that holds this hash as its access token, its current refresh token or
 * (`replayed`) the refresh token it already replaced; the revoked grant, if there was a live one.
 * Only grants of `clientId` when given.
 */
export async function revokeGrantByHash(
  db: Database,
  hash: string,
  options: { clientId?: string; replayed?: boolean; at: Date },
): Promise<{ tokenId: string; workspaceId: string; clientId: string | null } | undefined> {
  const match = options.replayed
    ? eq(tokens.previousRefreshHash, hash)
    : or(eq(tokens.tokenHash, hash), eq(tokens.refreshHash, hash));
  const [row] = await db
    .update(tokens)
    .set({ revokedAt: options.at })
    .where(
      and(
        match,
        isNotNull(tokens.clientId),
        options.clientId === undefined ? undefined : eq(tokens.clientId, options.clientId),
        isNull(tokens.revokedAt),
      ),
    )
    .returning({ tokenId: tokens.id, workspaceId: tokens.workspaceId, clientId: tokens.clientId });
  return row;
}

/** The client an OAuth token (access or refresh, by hash) was issued to; undefined for other tokens. */
export async function grantClientOf(db: Database, hash: string): Promise<string | undefined> {
  const [row] = await db
    .select({ clientId: tokens.clientId })
    .from(tokens)
    .where(and(or(eq(tokens.tokenHash, hash), eq(tokens.refreshHash, hash)), isNotNull(tokens.clientId)))
    .limit(1);
  return row?.clientId ?? undefined;
}



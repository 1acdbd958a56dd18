/**
 * The cross-tenant operations, kept few and named for what they are. Everything else goes
 * through a {@link TenantDb}.
 */
import { and, asc, count, eq, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { queryRows, type Database } from './database.ts';
import { members, scopePermissions, tokens, workspaces, type MemberRole, type WorkspaceSettings } from './schema.ts';
import { databaseNow } from './values.ts';

/** A member's scope permission row, as access checks read it. */
export interface ScopeGrant {
  scopePrefix: string;
  canRead: boolean;
  canWrite: boolean;
  validFrom: Date | null;
  validUntil: Date | null;
}

/** Who a bearer token speaks for. */
export interface TokenOwner {
  tokenId: string;
  workspaceId: string;
  engramId: string;
  workspaceName: string;
  settings: WorkspaceSettings;
  memberId: string;
  role: MemberRole;
  displayName: string | null;
  lastUsedAt: Date | null;
  /** When the token stops working (OAuth access tokens); null for tokens that do not expire. */
  expiresAt: Date | null;
  /** The member's scope permission rows (none: full access for the role). */
  grants: ScopeGrant[];
}

/** Who a token speaks for: the columns of tokens ⋈ members ⋈ workspaces a principal is built from. */
export const TOKEN_OWNER_COLUMNS = {
  tokenId: tokens.id,
  workspaceId: workspaces.id,
  engramId: workspaces.engramId,
  workspaceName: workspaces.name,
  settings: workspaces.settings,
  memberId: members.id,
  role: members.role,
  displayName: members.displayName,
};

/** The token is not revoked or expired, its member not removed, its workspace not deleted. */
export const liveTokenOwner = () =>
  and(
    isNull(tokens.revokedAt),
    or(isNull(tokens.expiresAt), gt(tokens.expiresAt, databaseNow)),
    isNull(members.removedAt),
    isNull(workspaces.deletedAt),
  );

/**
 * Resolves a token hash to its member and workspace, across all tenants (the hash is the only
 * thing a caller proves). Revoked tokens, removed members and deleted workspaces resolve to null.
 */
export async function findTokenOwnerByHash(db: Database, tokenHash: string): Promise<TokenOwner | null> {
  const [row] = await db
    .select({ ...TOKEN_OWNER_COLUMNS, lastUsedAt: tokens.lastUsedAt, expiresAt: tokens.expiresAt })
    .from(tokens)
    .innerJoin(members, and(eq(members.id, tokens.memberId), eq(members.workspaceId, tokens.workspaceId)))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .where(
      and(
        eq(tokens.tokenHash, tokenHash),
        liveTokenOwner(),
      ),
    )
    .limit(1);
  if (!row) return null;
  return { ...row, grants: await memberGrants(db, row.workspaceId, row.memberId) };
}

/** A membership that ended: what the 401 for one of its credentials tells the holder. */
export interface EndedMembership {
  workspaceName: string;
  removedAt: Date;
}

/**
 * The ended membership behind a token that no longer resolves: its member was removed from a live
 * workspace. Null for anything else (unknown hash, a token merely revoked, a deleted workspace).
 * Asked only after {@link findTokenOwnerByHash} found nothing; it tells a caller why only when the
 * caller holds the real token, so nothing can be probed with it.
 */
export async function findEndedMembershipByTokenHash(db: Database, tokenHash: string): Promise<EndedMembership | null> {
  const [row] = await db
    .select({ workspaceName: workspaces.name, removedAt: members.removedAt })
    .from(tokens)
    .innerJoin(members, and(eq(members.id, tokens.memberId), eq(members.workspaceId, tokens.workspaceId)))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .where(and(eq(tokens.tokenHash, tokenHash), isNotNull(members.removedAt), isNull(workspaces.deletedAt)))
    .limit(1);
  return row?.removedAt ? { workspaceName: row.workspaceName, removedAt: row.removedAt } : null;
}

/** A member's scope permissions (the grants a principal carries). */
export async function memberGrants(db: Database, workspaceId: string, memberId: string) {
  return db
    .select({
      scopePrefix: scopePermissions.scopePrefix,
      canRead: scopePermissions.canRead,
      canWrite: scopePermissions.canWrite,
      validFrom: scopePermissions.validFrom,
      validUntil: scopePermissions.validUntil,
    })
    .from(scopePermissions)
    .where(and(eq(scopePermissions.workspaceId, workspaceId), eq(scopePermissions.memberId, memberId)));
}

/** Records use of a token, at most once per `minIntervalMs` so reads do not turn into writes. */
export async function touchToken(db: Database, tokenId: string, minIntervalMs = 60_000): Promise<void> {
  const threshold = new Date(Date.now() - minIntervalMs);
  await db
    .update(tokens)
    .set({ lastUsedAt: databaseNow })
    .where(and(eq(tokens.id, tokenId), or(isNull(tokens.lastUsedAt), lt(tokens.lastUsedAt, threshold))));
}

/** Creates a tenant. Its members, tokens and invites are then written through its TenantDb. */
export async function insertWorkspace(
  db: Database,
  values: { engramId: string; name: string; settings: WorkspaceSettings },
) {
  const [row] = await db.insert(workspaces).values(values).returning();
  if (!row) throw new Error('insert into workspaces returned no row');
  return row;
}

/** Number of live workspaces (the embedded start-up creates a default one when there are none). */
export async function countWorkspaces(db: Database): Promise<number> {
  const [row] = await db.select({ n: count() }).from(workspaces).where(isNull(workspaces.deletedAt));
  return row?.n ?? 0;
}

/** Marks a workspace deleted: its tokens and invites stop working at once; its rows are kept. */
export async function softDeleteWorkspace(db: Database, workspaceId: string, at = new Date()): Promise<boolean> {
  const rows = await db
    .update(workspaces)
    .set({ deletedAt: at })
    .where(and(eq(workspaces.id, workspaceId), isNull(workspaces.deletedAt)))
    .returning({ id: workspaces.id });
  return rows.length > 0;
}

/** The first workspace created that is still live (embedded mode's default). */
export async function findOldestWorkspace(db: Database) {
  const [row] = await db
    .select()
    .from(workspaces)
    .where(isNull(workspaces.deletedAt))
    .orderBy(asc(workspaces.createdAt))
    .limit(1);
  return row ?? null;
}

/** A live workspace by its human id (`ENG-XXXX-XXXX`), for operator tools. */
export async function findWorkspaceByEngramId(db: Database, engramId: string) {
  const [row] = await db
    .select()
    .from(workspaces)
    .where(and(eq(workspaces.engramId, engramId.toUpperCase()), isNull(workspaces.deletedAt)))
    .limit(1);
  return row ?? null;
}

/** A workspace's stored settings (defaults are the caller's to apply). */
export async function workspaceSettings(db: Database, workspaceId: string): Promise<WorkspaceSettings> {
  const [row] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return row?.settings ?? {};
}

/** The refresh in progress per database, so concurrent callers share one. */
const refreshing = new WeakMap<object, Promise<string[]>>();

/**
 * ANALYZEs the tables whose planner statistics are missing (never analyzed: no column statistics,
 * even when an index build recorded a row count) or stale (the table grew by more than a fifth
 * since), and returns their names. Plans must not depend on autovacuum
 * having run: it may be off or lagging after a large import, and the embedded database has none.
 * Growth is read from the table's file size against the pages recorded by the last ANALYZE, which
 * both engines keep exactly (the statistics views' counters lag on the embedded one).
 */
export function refreshStatistics(db: Database): Promise<string[]> {
  const running = refreshing.get(db);
  if (running) return running;
  const work = (async () => {
    const stale = await queryRows<{ name: string }>(
      db,
      sql`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'public' and c.relkind = 'r'
            and pg_relation_size(c.oid) > 0
            and (c.reltuples < 0
                 -- CREATE INDEX records a row count but no column statistics: not analyzed either.
                 or not exists (select 1 from pg_stats s where s.schemaname = n.nspname and s.tablename = c.relname)
                 or pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * 1.2 + 8)
          order by c.relname`,
    );
    for (const { name } of stale) await db.execute(sql.raw(`analyze "${name.replaceAll('"', '""')}"`));
    return stale.map((row) => row.name);
  })().finally(() => refreshing.delete(db));
  refreshing.set(db, work);
  return work;
}

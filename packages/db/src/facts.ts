/**
 * Reading a workspace's facts, always through a {@link TenantDb}: by content, by id, by lineage,
 * the journal's pages, the count of current facts. Writing them is the commit statement's
 * (commit-statement.ts), finding them by similarity retrieval's (retrieval.ts, neighbours.ts), and
 * closing, promoting and re-deriving them the lifecycle's (fact-lifecycle.ts).
 */
import { asc, count, desc, eq, gt, isNull, sql, type SQL } from 'drizzle-orm';
import { CURRENT, f, factRowsOf as rows, factSelection, scopeFilter, type FactRow } from './fact-rows.ts';
import type { TenantDb } from './tenant.ts';
import { qb } from './values.ts';

/** Facts (as `f`) with a FactRow's columns, of the tenant's workspace matching the conditions. */
const factsWhere = (tenant: TenantDb, ...conditions: (SQL | undefined)[]) => qb.select(factSelection).from(f).where(tenant.where(f, ...conditions));

/** The current fact with this exact content in this scope, if any. */
export async function findCurrentDuplicate(tenant: TenantDb, scope: string, contentHash: string): Promise<FactRow | null> {
  const [row] = await rows<FactRow & Record<string, unknown>>(
    tenant,
    factsWhere(tenant, eq(f.scope, scope), eq(f.contentHash, contentHash), isNull(f.validUntil)).limit(1),
    { readOnly: true },
  );
  return row ?? null;
}

/** A fact already imported with this content at this instant (import idempotency). */
export async function findByHashAt(tenant: TenantDb, contentHash: string, committedAt: Date): Promise<FactRow | null> {
  const [row] = await rows<FactRow & Record<string, unknown>>(
    tenant,
    factsWhere(tenant, eq(f.contentHash, contentHash), eq(f.committedAt, committedAt)).limit(1),
    { readOnly: true },
  );
  return row ?? null;
}

/** Facts of a lineage, newest first (current ones have `valid_until` null). */
export async function lineageFacts(tenant: TenantDb, lineageId: string): Promise<FactRow[]> {
  return rows<FactRow & Record<string, unknown>>(tenant, factsWhere(tenant, eq(f.lineageId, lineageId)).orderBy(desc(f.validFrom)), { readOnly: true });
}

/** A fact by id within the tenant. */
export async function getFact(tenant: TenantDb, factId: string): Promise<FactRow | null> {
  const [row] = await rows<FactRow & Record<string, unknown>>(tenant, factsWhere(tenant, eq(f.id, factId)));
  return row ?? null;
}

/** One page of the journal: every version committed after the watermark, oldest first. */
export async function journalPage(
  tenant: TenantDb,
  params: { after: Date | null; afterId: string | null; scope?: string; limit: number },
): Promise<FactRow[]> {
  // A row comparison (the watermark is an instant and an id), which has no builder.
  const after =
    params.after && params.afterId
      ? sql`(${f.committedAt}, ${f.id}) > (${params.after.toISOString()}::timestamptz, ${params.afterId}::uuid)`
      : params.after
        ? gt(f.committedAt, params.after)
        : undefined;
  return rows<FactRow & Record<string, unknown>>(
    tenant,
    factsWhere(tenant, after, params.scope ? scopeFilter(params.scope) : undefined).orderBy(asc(f.committedAt), asc(f.id)).limit(params.limit),
    { readOnly: true },
  );
}

/**
 * Counting a workspace's current facts reads all of them (about 100 ms at 100,000 on a busy
 * 2-core machine), and `engram_status` counts on every call. Up to this many the count is exact on
 * every call; a larger workspace's count is remembered for LARGE_COUNT_MS (per process).
 */
const EXACT_COUNT_LIMIT = 10_000;
const LARGE_COUNT_MS = 30_000;
const largeCounts = new Map<string, { count: number; until: number }>();
const recounting = new Set<string>();

/** How many facts are current (the one definition: window open, TTL not run out). */
export async function countCurrentFacts(tenant: TenantDb, options: { exactUpTo?: number } = {}): Promise<number> {
  const workspace = tenant.workspaceId;
  const remembered = largeCounts.get(workspace);
  // A large workspace's count is served from memory while fresh, or while a recount is under way.
  if (remembered && (remembered.until > Date.now() || recounting.has(workspace))) return remembered.count;
  const counting = tenant
    .read<{ n: number | string }>(qb.select({ n: count().as('n') }).from(f).where(tenant.where(f, CURRENT)))
    .then(([row]) => Number(row?.n ?? 0));
  if (remembered) recounting.add(workspace);
  try {
    const count = await counting;
    if (count < (options.exactUpTo ?? EXACT_COUNT_LIMIT)) largeCounts.delete(workspace);
    else {
      if (largeCounts.size > 10_000) largeCounts.clear();
      largeCounts.set(workspace, { count, until: Date.now() + LARGE_COUNT_MS });
    }
    return count;
  } finally {
    recounting.delete(workspace);
  }
}

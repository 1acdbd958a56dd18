/**
 * Read queries behind the dashboard (SPEC §7), through a TenantDb: the knowledge base (current or
 * point-in-time facts, filtered and paged), expiring facts, validity windows for the timeline, and
 * per-agent activity. Scope read permissions are applied in SQL (see {@link readableScopeSql}), so
 * totals and pages count only what the caller may see.
 */
import { and, count, desc, eq, exists, gt, gte, ilike, isNotNull, isNull, lt, lte, max, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { closedByCase, windowEnd, type ClosedBy } from './closings.ts';
import { factMember, m } from './access.ts';
import { f, scopeFilter, unexpiredAt, validAt } from './fact-rows.ts';
import { conflictFacts, conflicts, type FactCitation } from './schema.ts';
import type { TenantDb } from './tenant.ts';
import { columnsNamed, countWhere, qb, textArrayLiteral, toDate, ts } from './values.ts';

/**
 * One scope permission as a read filter: `prefix` covers its subtree (`*` everything); `readable`
 * is whether it lets the member read now (its window open and `can_read`).
 */
export interface ScopeReadRule {
  prefix: string;
  readable: boolean;
}

/**
 * A condition that is true for facts whose scope the member may read: the most specific rule
 * covering the scope decides (the first listed among equally specific ones), and scopes no rule
 * covers are readable. The same precedence as `scopeAccess` in @engram/core. No rules: no filter.
 */
export function readableScopeSql(rules: readonly ScopeReadRule[], column: SQLWrapper = f.scope): SQL | undefined {
  if (rules.length === 0) return undefined;
  const prefixes = textArrayLiteral(rules.map((r) => r.prefix));
  const readable = `{${rules.map((r) => (r.readable ? 't' : 'f')).join(',')}}`;
  return sql`coalesce((
      select r.readable from unnest(${prefixes}::text[], ${readable}::boolean[]) with ordinality as r(prefix, readable, n)
      where r.prefix = '*' or ${column} = r.prefix or starts_with(${column}, r.prefix || '/')
      order by case when r.prefix = '*' then 0 else length(r.prefix) end desc, r.n
      limit 1
    ), true)`;
}

/** A fact as the knowledge base lists it. */
export interface FactListRow {
  id: string;
  lineage_id: string;
  content: string;
  scope: string;
  agent_id: string;
  /** The display name of the member whose agent committed it (null: anonymous, or unnamed). */
  member: string | null;
  fact_type: 'observation' | 'inference' | 'decision';
  confidence: number;
  provenance: string | null;
  committed_at: Date;
  valid_until: Date | null;
  expires_at: Date | null;
  durability: 'durable' | 'ephemeral';
  corroborating_agents: number;
  has_open_conflict: boolean;
  citations: FactCitation[] | null;
  verified_at: Date | null;
}

const cf = alias(conflictFacts, 'cf');
const c = alias(conflicts, 'c');

/**
 * The listed columns (the member's name as `display_name`). `has_open_conflict` is as of `asOf`
 * when given (a conflict detected by then and not yet settled then, whatever it became later),
 * else now.
 */
const listSelection = (asOf?: Date) => ({
  ...columnsNamed(f, [
    'id', 'lineage_id', 'content', 'scope', 'agent_id', 'fact_type', 'confidence', 'provenance', 'committed_at', 'valid_until',
    'expires_at', 'durability', 'corroborating_agents', 'citations', 'verified_at',
  ]),
  display_name: m.displayName,
  has_open_conflict: exists(
    qb
      .select({ id: cf.conflictId })
      .from(cf)
      .innerJoin(c, and(eq(c.id, cf.conflictId), eq(c.workspaceId, cf.workspaceId)))
      .where(
        and(
          eq(cf.workspaceId, f.workspaceId),
          eq(cf.factId, f.id),
          asOf ? and(lte(c.detectedAt, asOf), or(isNull(c.resolvedAt), gt(c.resolvedAt, asOf))) : eq(c.status, 'open'),
        ),
      ),
  ).as('has_open_conflict'),
});

function listRow(r: Record<string, unknown>): FactListRow {
  const { display_name: member, ...row } = r;
  return {
    ...(row as unknown as FactListRow),
    member: (member as string | null) ?? null,
    confidence: Number(r.confidence),
    corroborating_agents: Number(r.corroborating_agents),
    has_open_conflict: Boolean(r.has_open_conflict),
    committed_at: toDate(r.committed_at)!,
    valid_until: toDate(r.valid_until),
    expires_at: toDate(r.expires_at),
    verified_at: toDate(r.verified_at),
  };
}

/** `%` and `_` match themselves in a LIKE pattern. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface FactListParams {
  /** This scope and below. */
  scope?: string;
  agentId?: string;
  factType?: string;
  durability?: 'durable' | 'ephemeral';
  /** Committed at or after / before this instant. */
  since?: Date;
  until?: Date;
  /** Words to search for (full text, or a substring of the content). */
  q?: string;
  /** Facts valid at this instant instead of current ones. */
  asOf?: Date;
  readable?: SQL;
  limit: number;
  offset: number;
  now: Date;
}

/** A page of current facts (or facts valid at `asOf`), newest first, and how many match in all. */
export async function listFactsPage(tenant: TenantDb, params: FactListParams): Promise<{ rows: FactListRow[]; total: number }> {
  const at = params.asOf ?? params.now;
  const where = tenant.where(
    f,
    isNull(f.erasedAt),
    params.asOf ? validAt(at) : isNull(f.validUntil),
    unexpiredAt(at),
    params.scope ? scopeFilter(params.scope) : undefined,
    params.agentId ? eq(f.agentId, params.agentId) : undefined,
    params.factType ? eq(f.factType, params.factType as FactListRow['fact_type']) : undefined,
    params.durability ? eq(f.durability, params.durability) : undefined,
    params.since ? gte(f.committedAt, params.since) : undefined,
    params.until ? lt(f.committedAt, params.until) : undefined,
    // Full text has no builder.
    params.q ? or(sql`${f.tsv} @@ websearch_to_tsquery('english', ${params.q})`, ilike(f.content, likePattern(params.q))) : undefined,
    params.readable,
  );
  const [rows, counted] = await Promise.all([
    tenant.read<Record<string, unknown>>(
      qb
        .select(listSelection(params.asOf))
        .from(f)
        .leftJoin(m, factMember)
        .where(where)
        .orderBy(desc(f.committedAt), desc(f.id))
        .limit(params.limit)
        .offset(params.offset),
    ),
    tenant.read<{ n: number | string }>(qb.select({ n: count().as('n') }).from(f).where(where)),
  ]);
  return { rows: rows.map(listRow), total: Number(counted[0]?.n ?? 0) };
}

/** Current facts whose TTL runs out within the window, soonest first. */
export async function listExpiringFacts(
  tenant: TenantDb,
  params: { withinMs: number; scope?: string; readable?: SQL; limit: number; now: Date },
): Promise<FactListRow[]> {
  const rows = await tenant.read<Record<string, unknown>>(
    qb
      .select(listSelection())
      .from(f)
      .leftJoin(m, factMember)
      .where(
        tenant.where(
          f,
          isNull(f.erasedAt),
          isNull(f.validUntil),
          gt(f.expiresAt, params.now),
          lte(f.expiresAt, new Date(params.now.getTime() + params.withinMs)),
          params.scope ? scopeFilter(params.scope) : undefined,
          params.readable,
        ),
      )
      .orderBy(f.expiresAt, f.id)
      .limit(params.limit),
  );
  return rows.map(listRow);
}

/** A fact's validity window, for the timeline. */
export interface TimelineRow {
  id: string;
  lineage_id: string;
  scope: string;
  content: string;
  agent_id: string;
  /** The display name of the member whose agent committed it (null: anonymous, or unnamed). */
  member: string | null;
  valid_from: Date;
  valid_until: Date | null;
  closed_by: ClosedBy | null;
  citations: FactCitation[] | null;
}

/**
 * Validity windows (current and closed) of durable facts overlapping [since, until], the newest
 * `limit` by start, returned by scope and then start. A TTL that ran out before the expiry sweep
 * closed the window counts as closed at its expiry.
 */
export async function listValidityWindows(
  tenant: TenantDb,
  params: { since?: Date; until?: Date; scope?: string; readable?: SQL; limit: number; now: Date },
): Promise<TimelineRow[]> {
  const end = windowEnd(params.now);
  const newest = qb
    .select({
      ...columnsNamed(f, ['id', 'lineage_id', 'scope', 'content', 'agent_id', 'citations', 'valid_from']),
      member: m.displayName,
      valid_until: end.as('valid_until'),
      closed_by: closedByCase(end).as('closed_by'),
    })
    .from(f)
    .leftJoin(m, factMember)
    .where(
      tenant.where(
        f,
        isNull(f.erasedAt),
        eq(f.durability, 'durable'),
        params.until ? lte(f.validFrom, params.until) : undefined,
        params.since ? or(isNull(end), gte(end, ts(params.since))) : undefined,
        params.scope ? scopeFilter(params.scope) : undefined,
        params.readable,
      ),
    )
    .orderBy(desc(f.validFrom), desc(f.id))
    .limit(params.limit)
    .as('w');
  const rows = await tenant.read<Record<string, unknown>>(qb.select().from(newest).orderBy(newest.scope, newest.valid_from, newest.id));
  return rows.map(({ display_name: member, ...r }) => ({
    ...(r as unknown as TimelineRow),
    member: (member as string | null) ?? null,
    valid_from: toDate(r.valid_from)!,
    valid_until: toDate(r.valid_until),
    closed_by: (r.closed_by as ClosedBy | null) ?? null,
  }));
}

/** One agent's commits over a window. */
export interface AgentActivityRow {
  agent_id: string;
  /** The display name(s) of the member(s) behind the agent's facts (null: anonymous, or unnamed). */
  member: string | null;
  commits: number;
  /** Of those, facts that are part of any conflict. */
  conflicts: number;
  /** Of those, facts with provenance. */
  verified: number;
  last_commit_at: Date;
}

/** Per agent: facts committed in [since, now], how many ended up in a conflict, how many verified. */
export async function agentActivity(
  tenant: TenantDb,
  params: { since: Date; now: Date; readable?: SQL },
): Promise<AgentActivityRow[]> {
  const inConflict = exists(
    qb
      .select({ id: cf.conflictId })
      .from(cf)
      .where(and(eq(cf.workspaceId, f.workspaceId), eq(cf.factId, f.id))),
  );
  const rows = await tenant.read<Record<string, unknown>>(
    qb
      .select({
        agent_id: f.agentId,
        member: sql<string | null>`string_agg(distinct ${m.displayName}, ', ')`.as('member'),
        commits: count().as('commits'),
        conflicts: countWhere(inConflict).as('conflicts'),
        verified: countWhere(isNotNull(f.provenance)).as('verified'),
        last_commit_at: max(f.committedAt).as('last_commit_at'),
      })
      .from(f)
      .leftJoin(m, factMember)
      .where(tenant.where(f, gte(f.committedAt, params.since), lte(f.committedAt, params.now), params.readable))
      .groupBy(f.agentId)
      .orderBy(desc(count()), f.agentId),
  );
  return rows.map((r) => ({
    agent_id: String(r.agent_id),
    member: (r.member as string | null) ?? null,
    commits: Number(r.commits),
    conflicts: Number(r.conflicts),
    verified: Number(r.verified),
    last_commit_at: toDate(r.last_commit_at)!,
  }));
}

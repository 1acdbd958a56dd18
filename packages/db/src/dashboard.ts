/**
 * Read queries behind the dashboard (SPEC §7), through a TenantDb: the knowledge base (current or
 * point-in-time facts, filtered and paged), expiring facts, validity windows for the timeline, and
 * per-agent activity. Scope read permissions are applied in SQL (see {@link readableScopeSql}), so
 * totals and pages count only what the caller may see.
 */
import { sql, type SQL } from 'drizzle-orm';
import { textArrayLiteral, toDate, ts } from './values.ts';
import { closedByCase, type ClosedBy } from './closings.ts';
import { joinFactMember } from './access.ts';
import { scopeFilter } from './fact-rows.ts';
import type { FactCitation } from './schema.ts';
import type { TenantDb } from './tenant.ts';

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
export function readableScopeSql(rules: readonly ScopeReadRule[], column: SQL = sql`f.scope`): SQL | undefined {
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

/**
 * The listed columns. `has_open_conflict` is as of `asOf` when given (a conflict detected by then
 * and not yet settled then, whatever it became later), else now.
 */
const listColumns = (asOf?: Date) => sql`f.id, f.lineage_id, f.content, f.scope, f.agent_id, m.display_name as member, f.fact_type, f.confidence, f.provenance,
  f.committed_at, f.valid_until, f.expires_at, f.durability, f.corroborating_agents, f.citations, f.verified_at,
  exists (
    select 1 from conflict_facts cf join conflicts c on c.id = cf.conflict_id and c.workspace_id = cf.workspace_id
    where cf.workspace_id = f.workspace_id and cf.fact_id = f.id and ${
      asOf ? sql`c.detected_at <= ${ts(asOf)} and (c.resolved_at is null or c.resolved_at > ${ts(asOf)})` : sql`c.status = 'open'`
    }
  ) as has_open_conflict`;

function listRow(r: Record<string, unknown>): FactListRow {
  return {
    ...(r as unknown as FactListRow),
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
  const filters: SQL[] = [sql`f.workspace_id = ${tenant.workspaceId}`, sql`f.erased_at is null`];
  filters.push(
    params.asOf
      ? sql`f.valid_from <= ${ts(at)} and (f.valid_until is null or f.valid_until > ${ts(at)})`
      : sql`f.valid_until is null`,
  );
  filters.push(sql`(f.expires_at is null or f.expires_at > ${ts(at)})`);
  if (params.scope) filters.push(scopeFilter(params.scope));
  if (params.agentId) filters.push(sql`f.agent_id = ${params.agentId}`);
  if (params.factType) filters.push(sql`f.fact_type = ${params.factType}`);
  if (params.durability) filters.push(sql`f.durability = ${params.durability}`);
  if (params.since) filters.push(sql`f.committed_at >= ${ts(params.since)}`);
  if (params.until) filters.push(sql`f.committed_at < ${ts(params.until)}`);
  if (params.q) {
    filters.push(
      sql`(f.tsv @@ websearch_to_tsquery('english', ${params.q}) or f.content ilike ${likePattern(params.q)})`,
    );
  }
  if (params.readable) filters.push(params.readable);
  const where = sql.join(filters, sql` and `);
  const [rows, counted] = await Promise.all([
    tenant.read<Record<string, unknown>>(sql`select ${listColumns(params.asOf)} from facts f ${joinFactMember} where ${where}
          order by f.committed_at desc, f.id desc limit ${params.limit} offset ${params.offset}`,
    ),
    tenant.read<{ n: number }>(sql`select count(*)::int as n from facts f where ${where}`),
  ]);
  return { rows: rows.map(listRow), total: Number(counted[0]?.n ?? 0) };
}

/** Current facts whose TTL runs out within the window, soonest first. */
export async function listExpiringFacts(
  tenant: TenantDb,
  params: { withinMs: number; scope?: string; readable?: SQL; limit: number; now: Date },
): Promise<FactListRow[]> {
  const filters: SQL[] = [
    sql`f.workspace_id = ${tenant.workspaceId}`,
    sql`f.erased_at is null`,
    sql`f.valid_until is null`,
    sql`f.expires_at > ${ts(params.now)}`,
    sql`f.expires_at <= ${ts(new Date(params.now.getTime() + params.withinMs))}`,
  ];
  if (params.scope) filters.push(scopeFilter(params.scope));
  if (params.readable) filters.push(params.readable);
  const rows = await tenant.read<Record<string, unknown>>(sql`select ${listColumns()} from facts f ${joinFactMember} where ${sql.join(filters, sql` and `)}
        order by f.expires_at, f.id limit ${params.limit}`,
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
  const filters: SQL[] = [sql`f.workspace_id = ${tenant.workspaceId}`, sql`f.erased_at is null`, sql`f.durability = 'durable'`];
  const end = sql`case when f.valid_until is null and f.expires_at <= ${ts(params.now)} then f.expires_at else f.valid_until end`;
  if (params.until) filters.push(sql`f.valid_from <= ${ts(params.until)}`);
  if (params.since) filters.push(sql`(${end} is null or ${end} >= ${ts(params.since)})`);
  if (params.scope) filters.push(scopeFilter(params.scope));
  if (params.readable) filters.push(params.readable);
  const rows = await tenant.read<Record<string, unknown>>(sql`select * from (
          select f.id, f.lineage_id, f.scope, f.content, f.agent_id, m.display_name as member, f.citations, f.valid_from, ${end} as valid_until,
            ${closedByCase(end)} as closed_by
          from facts f ${joinFactMember} where ${sql.join(filters, sql` and `)}
          order by f.valid_from desc, f.id desc
          limit ${params.limit}
        ) w
        order by w.scope, w.valid_from, w.id`,
  );
  return rows.map((r) => ({
    ...(r as unknown as TimelineRow),
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
  const filters: SQL[] = [
    sql`f.workspace_id = ${tenant.workspaceId}`,
    sql`f.committed_at >= ${ts(params.since)}`,
    sql`f.committed_at <= ${ts(params.now)}`,
  ];
  if (params.readable) filters.push(params.readable);
  const rows = await tenant.read<Record<string, unknown>>(sql`select f.agent_id, string_agg(distinct m.display_name, ', ') as member, count(*)::int as commits,
          count(*) filter (where exists (
            select 1 from conflict_facts cf where cf.workspace_id = f.workspace_id and cf.fact_id = f.id
          ))::int as conflicts,
          count(*) filter (where f.provenance is not null)::int as verified,
          max(f.committed_at) as last_commit_at
        from facts f ${joinFactMember} where ${sql.join(filters, sql` and `)}
        group by f.agent_id
        order by count(*) desc, f.agent_id`,
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

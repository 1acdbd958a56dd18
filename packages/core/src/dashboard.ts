/**
 * What the dashboard reads (SPEC §7): the knowledge base (current facts, or those valid at an
 * instant), expiring facts, validity windows for the timeline, and agent activity. Querystring
 * schemas live here so the REST routes validate once, at the boundary; every list applies the
 * caller's scope read permissions in the query itself, so totals never count hidden facts.
 */
import {
  agentActivity,
  DURABILITIES,
  FACT_TYPES,
  forWorkspace,
  listExpiringFacts,
  listFactsPage,
  listValidityWindows,
  readableScopeSql,
  type Database,
  type FactListRow,
} from '@engram/db';
import { z } from 'zod';
import { scopeReadRules } from './access.ts';
import type { MemberPrincipal } from './auth.ts';
import { showCitations } from './facts/citations.ts';
import { AgentId, Scope } from './facts/schemas.ts';
import type { KnowledgeFact } from './responses.ts';
import { Instant } from './input.ts';

const DAY_MS = 86_400_000;


/** A whole number from a querystring, with bounds that say what is allowed. */
const whole = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .default(fallback);

/** Empty querystring parameters (`?scope=`) mean "no filter", as a cleared form field sends them. */
const dropEmpty = (query: unknown) =>
  query && typeof query === 'object' ? Object.fromEntries(Object.entries(query).filter(([, v]) => v !== '')) : query;

const untilAfterSince = (q: { since?: string; until?: string }) => !q.since || !q.until || new Date(q.until) > new Date(q.since);
const UNTIL_AFTER_SINCE = { path: ['until'], error: 'must be after since' };

/** `GET /api/v1/facts` querystring. */
export const FactListQuery = z.preprocess(
  dropEmpty,
  z
    .object({
      scope: Scope.optional().describe('Only this scope and below ("payments" includes "payments/webhooks").'),
      agent_id: AgentId.optional().describe('Only facts of this agent.'),
      fact_type: z.enum(FACT_TYPES, { error: 'must be "observation", "inference" or "decision"' }).optional(),
      durability: z.enum(DURABILITIES, { error: 'must be "durable" or "ephemeral"' }).optional(),
      since: Instant.optional().describe('Only facts committed at or after this instant.'),
      until: Instant.optional().describe('Only facts committed before this instant.'),
      q: z.string().trim().min(1).max(200, { error: 'must be at most 200 characters' }).optional().describe('Search words (full text, or a piece of the content).'),
      as_of: Instant.optional().describe('Facts that were current at this instant, instead of now.'),
      limit: whole(1, 200, 50).describe('Page size (default 50, at most 200).'),
      offset: whole(0, 100_000, 0).describe('Facts to skip (paging).'),
    })
    .strict()
    .refine(untilAfterSince, UNTIL_AFTER_SINCE),
);
export type FactListQuery = z.output<typeof FactListQuery>;


const iso = (d: Date | null) => (d ? d.toISOString() : null);

function knowledgeFact(r: FactListRow): KnowledgeFact {
  return {
    id: r.id,
    lineage_id: r.lineage_id,
    content: r.content,
    scope: r.scope,
    agent_id: r.agent_id,
    member: r.member,
    fact_type: r.fact_type,
    confidence: r.confidence,
    committed_at: r.committed_at.toISOString(),
    valid_until: iso(r.valid_until),
    expires_at: iso(r.expires_at),
    durability: r.durability,
    verified: r.provenance !== null,
    provenance: r.provenance,
    corroboration: r.corroborating_agents,
    has_open_conflict: r.has_open_conflict,
    ...(r.citations?.length ? { citations: showCitations(r.citations) } : {}),
    ...(r.verified_at ? { verified_at: r.verified_at.toISOString() } : {}),
  };
}

const readableFor = (principal: MemberPrincipal, now: Date) => readableScopeSql(scopeReadRules(principal, now));

/** The knowledge base: current facts (or those valid at `as_of`), newest first, one page. */
export async function listKnowledgeFacts(db: Database, principal: MemberPrincipal, query: FactListQuery, now = new Date()) {
  const page = await listFactsPage(forWorkspace(db, principal.workspaceId), {
    scope: query.scope,
    agentId: query.agent_id,
    factType: query.fact_type,
    durability: query.durability,
    since: query.since ? new Date(query.since) : undefined,
    until: query.until ? new Date(query.until) : undefined,
    q: query.q,
    asOf: query.as_of ? new Date(query.as_of) : undefined,
    readable: readableFor(principal, now),
    limit: query.limit,
    offset: query.offset,
    now,
  });
  return { facts: page.rows.map(knowledgeFact), total: page.total, limit: query.limit, offset: query.offset };
}

/** `GET /api/v1/facts/expiring` querystring. */
export const ExpiringQuery = z.preprocess(
  dropEmpty,
  z
    .object({
      within_days: whole(1, 365, 7).describe('Facts whose TTL runs out within this many days (default 7).'),
      scope: Scope.optional().describe('Only this scope and below.'),
      limit: whole(1, 500, 200).describe('At most this many facts (default 200).'),
    })
    .strict(),
);
export type ExpiringQuery = z.output<typeof ExpiringQuery>;

/** Current facts whose TTL runs out within `within_days`, soonest first. */
export async function listExpiring(db: Database, principal: MemberPrincipal, query: ExpiringQuery, now = new Date()) {
  const rows = await listExpiringFacts(forWorkspace(db, principal.workspaceId), {
    withinMs: query.within_days * DAY_MS,
    scope: query.scope,
    readable: readableFor(principal, now),
    limit: query.limit,
    now,
  });
  return { within_days: query.within_days, facts: rows.map(knowledgeFact) };
}

/** `GET /api/v1/timeline` querystring. */
export const TimelineQuery = z.preprocess(
  dropEmpty,
  z
    .object({
      scope: Scope.optional().describe('Only this scope and below.'),
      since: Instant.optional().describe('Only windows still open at or after this instant.'),
      until: Instant.optional().describe('Only windows that opened at or before this instant.'),
      limit: whole(1, 2000, 500).describe('At most this many windows, the most recently opened (default 500).'),
    })
    .strict()
    .refine(untilAfterSince, UNTIL_AFTER_SINCE),
);
export type TimelineQuery = z.output<typeof TimelineQuery>;


/** Validity windows of durable facts, current and closed, for a Gantt chart per scope. */
export async function readTimeline(db: Database, principal: MemberPrincipal, query: TimelineQuery, now = new Date()) {
  const rows = await listValidityWindows(forWorkspace(db, principal.workspaceId), {
    since: query.since ? new Date(query.since) : undefined,
    until: query.until ? new Date(query.until) : undefined,
    scope: query.scope,
    readable: readableFor(principal, now),
    limit: query.limit + 1,
    now,
  });
  // One more than asked, to know whether the limit cut anything; the oldest-starting one goes.
  const truncated = rows.length > query.limit;
  const kept = truncated ? dropOldest(rows) : rows;
  return {
    since: query.since ?? null,
    until: query.until ?? null,
    facts: kept.map((r) => ({
      id: r.id,
      lineage_id: r.lineage_id,
      scope: r.scope,
      content: r.content,
      agent_id: r.agent_id,
      member: r.member,
      valid_from: r.valid_from.toISOString(),
      valid_until: iso(r.valid_until),
      closed_by: r.closed_by,
      ...(r.citations?.length ? { citations: showCitations(r.citations) } : {}),
    })),
    truncated,
  };
}

function dropOldest<T extends { id: string; valid_from: Date }>(rows: T[]): T[] {
  let oldest = rows[0]!;
  for (const r of rows) {
    const t = r.valid_from.getTime();
    if (t < oldest.valid_from.getTime() || (t === oldest.valid_from.getTime() && r.id < oldest.id)) oldest = r;
  }
  return rows.filter((r) => r !== oldest);
}

/** `GET /api/v1/agents/activity` querystring. */
export const ActivityQuery = z.preprocess(
  dropEmpty,
  z.object({ days: whole(1, 365, 30).describe('The window, in days up to now (default 30).') }).strict(),
);
export type ActivityQuery = z.output<typeof ActivityQuery>;


const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Per agent over the last `days`: commit rate, conflict rate, verification rate; busiest first. */
export async function agentActivityReport(db: Database, principal: MemberPrincipal, query: ActivityQuery, now = new Date()) {
  const since = new Date(now.getTime() - query.days * DAY_MS);
  const rows = await agentActivity(forWorkspace(db, principal.workspaceId), { since, now, readable: readableFor(principal, now) });
  return {
    days: query.days,
    since: since.toISOString(),
    agents: rows.map((r) => ({
      agent_id: r.agent_id,
      member: r.member,
      commits: r.commits,
      commits_per_day: round(r.commits / query.days, 2),
      conflicts: r.conflicts,
      conflict_rate: round(r.conflicts / r.commits, 4),
      verified: r.verified,
      verification_rate: round(r.verified / r.commits, 4),
      last_commit_at: r.last_commit_at.toISOString(),
    })),
  };
}

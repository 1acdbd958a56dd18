/**
 * Reading what the detector found: `engram_conflicts` (grouped by scope, most severe first) and
 * the detection status of a workspace.
 */
import { CONFLICT_KINDS, detectionQueueStatus, forWorkspace, listConflictViews, toDate, type ConflictView, type Database } from '@engram/db';
import { z } from 'zod';
import { canRead, coversScope } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';
import { EngramError } from '../errors.ts';
import { showCitations } from '../facts/citations.ts';
import { Scope } from '../facts/schemas.ts';
import { ConflictItem, MAX_LISTED_FACTS, type ConflictsOutput } from '../responses.ts';
import { describeBacklog } from './backlog.ts';
import { detectiveBudget } from './narrative/pass.ts';

/** Conflicts listed per call by default, and at most. */
const DEFAULT_CONFLICTS_LISTED = 500;
const MAX_CONFLICTS_LISTED = 5_000;

export const ConflictsInput = z
  .object({
    scope: Scope.optional().describe('Only conflicts with a fact in this scope or below.'),
    status: z
      .enum(['open', 'resolved', 'dismissed', 'all'], { error: 'must be "open", "resolved", "dismissed" or "all"' })
      .default('open')
      .describe('Which conflicts: "open" (default), "resolved" (by a person, or settled by the detector: resolution_type "detector", which engram_resolve can overrule), "dismissed" or "all".'),
    kind: z
      .enum(CONFLICT_KINDS, { error: `must be one of ${CONFLICT_KINDS.join(', ')}` })
      .optional()
      .describe('Only one kind: reversal, ambiguity, stale, value_mismatch, cross_scope or probable_update (a later fact says this one probably changed: is it still true?).'),
    limit: z.coerce
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be at least 1' })
      .max(MAX_CONFLICTS_LISTED, { error: `must be at most ${MAX_CONFLICTS_LISTED}` })
      .default(DEFAULT_CONFLICTS_LISTED)
      .describe(`Most conflicts listed, newest first (default ${DEFAULT_CONFLICTS_LISTED}, at most ${MAX_CONFLICTS_LISTED}).`),
  })
  .strict();
export type ConflictsInput = z.output<typeof ConflictsInput>;


const SEVERITY_RANK = { high: 0, medium: 1, low: 2 } as const;
const rank = (c: ConflictView) => SEVERITY_RANK[c.severity as keyof typeof SEVERITY_RANK] ?? 3;

/** The scope a conflict is listed under: that of its newest fact. */
const homeScope = (c: ConflictView) => c.facts.at(-1)?.scope ?? '';

/** Conflicts the member may see (every fact readable), filtered, grouped by scope, most severe first. */
export async function listConflicts(db: Database, principal: MemberPrincipal, input: ConflictsInput): Promise<ConflictsOutput> {
  const views = await listConflictViews(forWorkspace(db, principal.workspaceId), { status: input.status, kind: input.kind, limit: input.limit });
  const visible = views.filter(
    (c) =>
      c.facts.every((f) => canRead(principal, f.scope)) &&
      (!input.scope || c.facts.some((f) => coversScope(input.scope!, f.scope))),
  );
  const groups = new Map<string, ConflictView[]>();
  for (const c of visible) groups.set(homeScope(c), [...(groups.get(homeScope(c)) ?? []), c]);
  const sorted = [...groups.entries()]
    .map(([scope, list]) => ({ scope, conflicts: list.sort((a, b) => rank(a) - rank(b) || b.detected_at.localeCompare(a.detected_at)) }))
    .sort((a, b) => rank(a.conflicts[0]!) - rank(b.conflicts[0]!) || a.scope.localeCompare(b.scope));
  const open = visible.filter((c) => c.status === 'open').length;
  return {
    total: visible.length,
    groups: sorted.map((g) => ({
      scope: g.scope,
      conflicts: g.conflicts.map(conflictItem),
    })),
    ...(input.status === 'open' && open > 0
      ? {
          next_prompt: `There ${open === 1 ? 'is 1 open conflict' : `are ${open} open conflicts`} in team memory. Do not rely on the facts involved until settled; ask the user the conflict's question if it bears on the task.`,
        }
      : {}),
  };
}

/** A conflict as `engram_conflicts` lists it: its newest facts, and how many older ones are left out. */
const conflictItem = (c: ConflictView): ConflictItem =>
  ConflictItem.parse({
    ...c,
    facts: c.facts.slice(-MAX_LISTED_FACTS).map(({ citations, ...f }) => ({ ...f, ...(citations?.length ? { citations: showCitations(citations) } : {}) })),
    facts_omitted: Math.max(0, c.facts.length - MAX_LISTED_FACTS),
  });

const conflictNotFound = (id: string) =>
  new EngramError('not_found', `Conflict ${id} was not found in this workspace. Take the conflict_id from engram_conflicts.`);

/**
 * One conflict by id, in any status, shaped as `engram_conflicts` lists it (the
 * `engram://conflicts/{id}` MCP resource). A conflict with a fact the member may not read is not
 * found, as for `engram_resolve`: whether it exists is not the member's to learn.
 */
export async function readConflict(db: Database, principal: MemberPrincipal, conflictId: string, now = new Date()): Promise<ConflictItem> {
  if (!z.uuid().safeParse(conflictId).success) throw conflictNotFound(conflictId);
  const [view] = await listConflictViews(forWorkspace(db, principal.workspaceId), { status: 'all', conflictId, limit: 1 });
  if (!view || !view.facts.every((f) => canRead(principal, f.scope, now))) throw conflictNotFound(conflictId);
  return conflictItem(view);
}

/** `GET /api/v1/detection/status`. */
export async function detectionStatus(db: Database, principal: MemberPrincipal, llm: { enabled: boolean; model: string }) {
  const { counts, backlog, runs, totals } = await detectionQueueStatus(db, principal.workspaceId);
  const budget = await detectiveBudget(db, forWorkspace(db, principal.workspaceId));
  const iso = (v: unknown) => toDate(v)?.toISOString() ?? null;
  const state = !llm.enabled ? 'off' : budget.paused ? 'paused' : 'on';
  return {
    llm_enabled: llm.enabled,
    model: llm.enabled ? llm.model : null,
    narrative_state: state,
    narrative:
      state === 'off'
        ? 'The narrative detective is off: this server has no OPENAI_API_KEY. Deterministic checks still run.'
        : state === 'paused'
          ? `The narrative detective is ${budget.message}.`
          : `The narrative detective (${llm.model}) runs after the deterministic checks.`,
    tokens_today: budget.spent,
    daily_token_budget: budget.limit,
    pending_jobs: counts.pending,
    running_jobs: counts.running,
    // failed_jobs, stuck and retrying work, and what to do about it; stalled runs hold a lapsed lease.
    ...describeBacklog(backlog, principal.engramId),
    stalled_runs: backlog.stalledRuns,
    last_run_at: iso(totals?.last_run_at),
    runs_total: totals?.runs ?? 0,
    tokens: { prompt: totals?.prompt_tokens ?? 0, completion: totals?.completion_tokens ?? 0 },
    recent_runs: runs.map((r) => ({
      run_id: r.id,
      status: r.status,
      started_at: iso(r.started_at),
      finished_at: iso(r.finished_at),
      duration_ms: r.duration_ms,
      jobs_coalesced: r.jobs_coalesced,
      facts_read: r.facts_read,
      conflicts_raised: r.conflicts_raised,
      facts_retired: r.facts_retired,
      llm_calls: r.llm_calls,
      prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens,
      narrative: r.narrative,
      story_facts: r.story_facts,
      batches: r.batches,
      failed_batches: r.failed_batches,
      error: r.error,
    })),
  };
}

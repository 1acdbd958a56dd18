/**
 * Settling a conflict (SPEC §5 `engram_resolve`, and the dashboard's conflict queue). Time is the
 * only versioning primitive, so settling never deletes: the facts that lose get their validity
 * window closed (marked as a resolution's doing), and the conflict records how it was settled.
 *
 * - `winner`: one of the conflict's facts is kept; every other current fact of it is closed.
 * - `merge`: a fact that says it right was committed first (or, from the dashboard, is committed
 *   here); every current fact of the conflict is closed in its favour.
 * - `dismissed`: not a real conflict. Nothing is closed; the detector never raises the set again.
 *
 * Resolving twice the same way answers the first result; another way is a `conflict` error.
 */
import {
  closeFactsForResolution,
  conflictFactsForResolution,
  conflictForResolution,
  factForResolution,
  forWorkspace,
  markConflictResolved,
  recordDetectionFeedback,
  reopenSettlement,
  unflagAgents,
  resolveSettledConflicts,
  type ConflictForResolution,
  type ResolutionFact,
  type TenantDb,
} from '@engram/db';
import { z } from 'zod';
import { assertCanWrite, canRead } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';
import { EngramError, InvalidInputError } from '../errors.ts';
import { commitFact } from '../facts/commit.ts';
import type { FactServices } from '../facts/services.ts';
import { contentHash } from '../facts/normalize.ts';
import { CommitInput, MAX_CONTENT_LENGTH, Scope } from '../facts/schemas.ts';
import { findSecret } from '../facts/secrets.ts';
import { PERSON_RESOLUTIONS, type ResolveOutput } from '../responses.ts';

const ResolutionType = z
  .enum(PERSON_RESOLUTIONS, { error: 'must be "winner", "merge" or "dismissed"' })
  .describe('"winner" keeps one of the conflict\'s facts, "merge" keeps a fact you committed that combines them, "dismissed" says it was never a real conflict.');

const ResolutionText = z
  .string({ error: 'is required: one or two sentences on why, for the team (e.g. "Checked config/prod.yaml: the timeout is 30 s")' })
  .trim()
  .min(1, { error: 'must not be empty: say why, e.g. "Checked config/prod.yaml: the timeout is 30 s"' })
  .max(2000, { error: 'must be at most 2000 characters' })
  .describe('Why it is settled this way, in a sentence or two: what the user said or what you verified. Shown to the team.');

const WinningClaimId = z
  .uuid({ error: 'must be a fact_id (a UUID)' })
  .describe('"winner": the fact_id of the conflict\'s fact to keep. "merge": the fact_id of the merged fact you committed. Omit for "dismissed".');

type WinnerFields = { resolution_type: string; winning_claim_id?: string | undefined; merged_content?: string | undefined };

/** The cross-field rules of a resolution: which fields each resolution type needs. */
function checkResolutionFields(input: WinnerFields, ctx: z.RefinementCtx, options: { mergedContent: boolean }): void {
  const problem = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
  const { resolution_type: type, winning_claim_id: winner, merged_content: merged } = input;
  if (type === 'winner' && !winner) {
    problem('winning_claim_id', 'is required when resolution_type is "winner": pass the fact_id of the conflict\'s fact to keep');
  }
  if (type === 'merge' && !options.mergedContent && !winner) {
    problem(
      'winning_claim_id',
      'is required when resolution_type is "merge": commit the merged fact with engram_commit first and pass the fact_id it returns',
    );
  }
  if (type === 'merge' && options.mergedContent && !winner && merged === undefined) {
    problem('merged_content', 'is required when resolution_type is "merge" without winning_claim_id: the text of the merged fact');
  }
  if (type === 'merge' && winner && merged !== undefined) {
    problem('merged_content', 'must be omitted when winning_claim_id is given: pass either the merged fact\'s id or its text, not both');
  }
  if (type === 'dismissed' && winner) {
    problem('winning_claim_id', 'must be omitted when resolution_type is "dismissed": dismissing keeps every fact as it is');
  }
  if (type !== 'merge' && merged !== undefined) {
    problem('merged_content', 'is only for resolution_type "merge"');
  }
}

/** `engram_resolve` arguments. */
export const ResolveInput = z
  .object({
    conflict_id: z.uuid({ error: 'must be the conflict_id (a UUID) from engram_conflicts' }).describe('The conflict to settle, from engram_conflicts.'),
    resolution_type: ResolutionType,
    resolution: ResolutionText,
    winning_claim_id: WinningClaimId.optional(),
  })
  .strict()
  .superRefine((input, ctx) => checkResolutionFields(input, ctx, { mergedContent: false }));
export type ResolveInput = z.output<typeof ResolveInput>;

/**
 * Body of `POST /api/v1/conflicts/:id/resolve`: the tool's arguments, and for `merge` the merged
 * text itself (`merged_content`, committed as the caller into `scope`) instead of a fact id.
 */
export const ResolveRequest = z
  .object({
    resolution_type: ResolutionType,
    resolution: ResolutionText,
    winning_claim_id: WinningClaimId.optional(),
    merged_content: z
      .string({ error: 'must be the text of the merged fact' })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(MAX_CONTENT_LENGTH, { error: `must be at most ${MAX_CONTENT_LENGTH} characters` })
      .optional()
      .describe('"merge" only: the merged claim, committed as you and kept as the winner.'),
    scope: Scope.optional().describe('Scope of merged_content; default the scope of the conflict\'s newest fact.'),
  })
  .strict()
  .superRefine((input, ctx) => {
    checkResolutionFields(input, ctx, { mergedContent: true });
    if (input.scope !== undefined && input.merged_content === undefined) {
      ctx.addIssue({ code: 'custom', path: ['scope'], message: 'is only used with merged_content; omit it' });
    }
  });
export type ResolveRequest = z.output<typeof ResolveRequest>;


/** A resolution as the domain takes it (from the tool, or the REST route with the id from the path). */
export type ResolveCommand = ResolveInput & { merged_content?: string; scope?: string };

const isCurrent = (f: ResolutionFact, now: Date) =>
  f.valid_until === null && !f.erased && (f.expires_at === null || f.expires_at.getTime() > now.getTime());

const conflictNotFound = (id: string) =>
  new EngramError(
    'not_found',
    `Conflict ${id} was not found in this workspace. Take the conflict_id from engram_conflicts (or GET /api/v1/conflicts).`,
  );

const short = (text: string | null) => (text && text.length > 200 ? `${text.slice(0, 200)}…` : (text ?? ''));

/** Says how a conflict was already settled, for a request that would settle it differently. */
function alreadyResolvedError(conflict: ConflictForResolution): EngramError {
  const when = conflict.resolved_at ? ` on ${conflict.resolved_at.toISOString()}` : '';
  const why = conflict.resolution ? ` ("${short(conflict.resolution)}")` : '';
  const how =
    conflict.status === 'dismissed'
      ? `already dismissed as not a real conflict${when}${why}`
      : conflict.resolution_type === 'winner'
        ? `already resolved${when}: fact ${conflict.winning_fact_id} was kept as the winner${why}`
        : conflict.resolution_type === 'merge'
          ? `already resolved${when} by a merge into fact ${conflict.winning_fact_id}${why}`
          : `already resolved automatically${when}: a later fact superseded all but one side`;
  return new EngramError(
    'conflict',
    `Conflict ${conflict.id} is ${how}, so it cannot be resolved another way. If team memory is still wrong, commit a correction with engram_commit (corrects_lineage).`,
    {
      status: conflict.status,
      resolution_type: conflict.resolution_type,
      winning_fact_id: conflict.winning_fact_id,
      resolved_at: conflict.resolved_at?.toISOString() ?? null,
    },
  );
}

/** The conflict and its facts, locked or not; a conflict with a fact the caller may not read is not found. */
async function visibleConflict(tenant: TenantDb, principal: MemberPrincipal, conflictId: string, options: { lock: boolean; now: Date }) {
  const conflict = await conflictForResolution(tenant, conflictId, { lock: options.lock });
  if (!conflict) throw conflictNotFound(conflictId);
  const facts = await conflictFactsForResolution(tenant, conflictId);
  if (!facts.every((f) => canRead(principal, f.scope, options.now))) throw conflictNotFound(conflictId);
  return { conflict, facts };
}

/** Throws unless the fact can be what a resolution keeps: current, with content. */
function assertKeepable(fact: ResolutionFact, now: Date): void {
  if (isCurrent(fact, now)) return;
  const closed = fact.valid_until ?? fact.expires_at;
  throw new EngramError(
    'conflict',
    `Fact ${fact.id} (winning_claim_id) is no longer current${closed ? ` (its window closed at ${closed.toISOString()})` : ''}, so it cannot be kept. ` +
      'Keep a current fact, or commit the right claim with engram_commit and resolve with "merge" and its fact_id.',
  );
}

function outcomeNote(type: ResolveInput['resolution_type'], winner: string | null, closed: number, settled: number): string {
  const also = settled > 0 ? ` ${settled} other open conflict(s) became settled as a result.` : '';
  if (type === 'dismissed') {
    return 'Dismissed: every fact stays as it was, and the detector will not raise this set of facts again.';
  }
  const kept = type === 'winner' ? `Kept fact ${winner}` : `Kept the merged fact ${winner}`;
  return `${kept}; closed ${closed} fact(s), which stay in history (engram_query with include_history).${also}`;
}

/**
 * Settles a conflict for a member. One transaction closes the losing windows, records the outcome
 * and the detector feedback, and settles other open conflicts left with fewer than two current
 * facts. `merged_content` (dashboard) is first committed through the commit pipeline as the caller.
 */
export async function resolveConflict(
  services: FactServices,
  principal: MemberPrincipal,
  command: ResolveCommand,
  now = new Date(),
): Promise<ResolveOutput> {
  if (principal.role === 'reader') {
    throw new EngramError('forbidden', 'Your token is read-only (reader role): it cannot resolve conflicts.');
  }
  const leaked = findSecret(command.resolution);
  if (leaked) {
    throw new EngramError(
      'secret_detected',
      `resolution appears to contain ${leaked.label} (pattern: ${leaked.name}). Remove it: the resolution is stored and shown to the team.`,
      { field: 'resolution', pattern: leaked.name },
    );
  }
  const tenant = forWorkspace(services.db, principal.workspaceId);
  const type = command.resolution_type;
  const winningId =
    command.merged_content === undefined ? (command.winning_claim_id ?? null) : await commitMergedContent(services, tenant, principal, command, now);

  const outcome = await tenant.transaction(async (tx) => {
    let { conflict, facts } = await visibleConflict(tx, principal, command.conflict_id, { lock: true, now });
    // The detector's own settlement is a person's to overrule: undone first, then settled their way.
    if (conflict.resolution_type === 'detector') {
      for (const scope of new Set(facts.map((f) => f.scope))) assertCanWrite(principal, scope, now);
      await reopenSettlement(tx, conflict.id);
      ({ conflict, facts } = await visibleConflict(tx, principal, command.conflict_id, { lock: true, now }));
    }
    if (conflict.status !== 'open') {
      const same = conflict.resolution_type === type && (type === 'dismissed' || conflict.winning_fact_id === winningId);
      if (!same) throw alreadyResolvedError(conflict);
      return {
        status: conflict.status,
        winner: conflict.winning_fact_id,
        closed: type === 'dismissed' ? [] : facts.filter((f) => f.retired_by === 'resolution' && f.retired_for_fact_id === conflict.winning_fact_id).map((f) => f.id).sort(),
        resolution: conflict.resolution ?? command.resolution,
        resolvedAt: conflict.resolved_at ?? now,
        settled: 0,
        already: true,
      };
    }

    let winner: ResolutionFact | null = null;
    if (type === 'winner') {
      winner = facts.find((f) => f.id === winningId) ?? null;
      if (!winner) {
        throw new InvalidInputError([
          {
            field: 'winning_claim_id',
            message: `must be one of this conflict's facts (${facts.map((f) => f.id).join(', ')}); to keep a fact outside the conflict, use resolution_type "merge"`,
          },
        ]);
      }
    } else if (type === 'merge') {
      winner = facts.find((f) => f.id === winningId) ?? (await factForResolution(tx, winningId!));
      if (!winner || !canRead(principal, winner.scope, now)) {
        throw new EngramError(
          'not_found',
          `Fact ${winningId} (winning_claim_id) was not found in this workspace. Commit the merged fact with engram_commit first and pass the fact_id it returns.`,
        );
      }
      if (winner.durability === 'ephemeral') {
        throw new InvalidInputError([
          {
            field: 'winning_claim_id',
            message: `fact ${winner.id} is ephemeral and would expire; make it durable with engram_promote first (or commit the merged fact as durable)`,
          },
        ]);
      }
    }
    if (winner) assertKeepable(winner, now);

    const toClose = winner ? facts.filter((f) => f.id !== winner.id && isCurrent(f, now)) : [];
    // Closing a fact is a write to its scope. Dismissing (or keeping a winner whose rivals are all
    // closed already) changes how every fact of the conflict is judged: it needs all their scopes.
    for (const scope of new Set((toClose.length > 0 ? toClose : facts).map((f) => f.scope))) assertCanWrite(principal, scope, now);

    const closed = winner ? await closeFactsForResolution(tx, toClose.map((f) => f.id), { at: now, forFactId: winner.id }) : [];
    const status: 'resolved' | 'dismissed' = type === 'dismissed' ? 'dismissed' : 'resolved';
    const marked = await markConflictResolved(tx, conflict.id, {
      status,
      resolutionType: type,
      resolution: command.resolution,
      winningFactId: winner?.id ?? null,
      memberId: principal.memberId,
      at: now,
    });
    if (!marked) throw new EngramError('conflict', `Conflict ${conflict.id} changed while it was being resolved; try again.`);
    await recordDetectionFeedback(tx, {
      conflictId: conflict.id,
      factSetKey: conflict.fact_set_key,
      feedback: type === 'dismissed' ? 'false_positive' : 'true_positive',
      memberId: principal.memberId,
      at: now,
    });
    if (type === 'dismissed') await unflagAgents(tx, conflict.id);
    // Closing windows can leave other open conflicts with a single current fact: settled, as the
    // detector marks them after its own retirements.
    const settled = await resolveSettledConflicts(tx, now, closed);
    return { status, winner: winner?.id ?? null, closed, resolution: command.resolution, resolvedAt: now, settled, already: false };
  });

  if (!outcome.already) {
    services.log.info(
      { workspace_id: principal.workspaceId, conflict_id: command.conflict_id, resolution_type: type, closed: outcome.closed.length },
      'conflict resolved',
    );
  }
  return {
    conflict_id: command.conflict_id,
    status: outcome.status,
    resolution_type: type,
    winning_fact_id: outcome.winner,
    closed_fact_ids: outcome.closed,
    already_resolved: outcome.already,
    resolution: outcome.resolution,
    resolved_at: outcome.resolvedAt.toISOString(),
    settled_conflicts: outcome.settled,
    note: outcome.already
      ? `Already resolved this way on ${outcome.resolvedAt.toISOString()}; nothing changed.`
      : outcomeNote(type, outcome.winner, outcome.closed.length, outcome.settled),
  };
}

/**
 * `merge` with `merged_content`: checks first what would stop the resolution (so a refused one
 * leaves no stray fact), then commits the text as the caller. Returns the merged fact's id. For a
 * conflict already merged into a fact with this very text, that fact's id (the repeat is then
 * answered as already resolved).
 */
async function commitMergedContent(
  services: FactServices,
  tenant: TenantDb,
  principal: MemberPrincipal,
  command: ResolveCommand,
  now: Date,
): Promise<string> {
  const content = command.merged_content!;
  const { conflict, facts } = await visibleConflict(tenant, principal, command.conflict_id, { lock: false, now });
  if (conflict.status !== 'open') {
    const merged = conflict.resolution_type === 'merge' && conflict.winning_fact_id ? await factForResolution(tenant, conflict.winning_fact_id) : null;
    if (merged && merged.content_hash === contentHash(content)) return merged.id;
    throw alreadyResolvedError(conflict);
  }
  const scope = command.scope ?? facts.at(-1)?.scope;
  if (!scope) throw new InvalidInputError([{ field: 'scope', message: 'is required: this conflict has no facts to take a scope from' }]);
  for (const s of new Set(facts.filter((f) => isCurrent(f, now)).map((f) => f.scope))) assertCanWrite(principal, s, now);
  const committed = await commitFact(
    services,
    principal,
    CommitInput.parse({
      content,
      scope,
      confidence: 1,
      fact_type: 'decision',
      // A person wrote it while settling a conflict: not one of the team's coding agents.
      agent_id: 'resolution',
      provenance: `Merged by a member to resolve conflict ${command.conflict_id}`,
    }),
    now,
  );
  if (!committed.fact_id) throw new EngramError('internal', 'The merged fact was not stored.');
  return committed.fact_id;
}

/**
 * Data access for settling conflicts (`engram_resolve`, the dashboard's conflict queue), through a
 * TenantDb: the conflict under a row lock, the facts it holds, closing the losers' windows,
 * recording the outcome and the detector feedback. Callers run these in one transaction.
 */
import { and, asc, eq, gt, inArray, isNotNull, isNull, ne, notExists } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { closedAt, f } from './fact-rows.ts';
import { agents, conflictFacts, conflicts, detectionFeedback, facts } from './schema.ts';
import type { TenantDb } from './tenant.ts';
import { anyUuid, columnsNamed, increment, qb, toDate, ts } from './values.ts';

/** A conflict as a resolution reads it. */
export interface ConflictForResolution {
  id: string;
  status: 'open' | 'resolved' | 'dismissed';
  fact_set_key: string;
  resolution_type: 'winner' | 'merge' | 'dismissed' | 'detector' | null;
  resolution: string | null;
  winning_fact_id: string | null;
  resolved_at: Date | null;
}

/** A fact of a conflict (or a merge result) with what decides whether it can be kept or closed. */
export interface ResolutionFact {
  id: string;
  scope: string;
  content_hash: string;
  committed_at: Date;
  valid_until: Date | null;
  expires_at: Date | null;
  durability: 'durable' | 'ephemeral';
  erased: boolean;
  retired_by: string | null;
  retired_for_fact_id: string | null;
}

const resolutionFactSelection = {
  ...columnsNamed(f, ['id', 'scope', 'content_hash', 'committed_at', 'valid_until', 'expires_at', 'durability', 'retired_by', 'retired_for_fact_id']),
  erased: isNotNull(f.erasedAt).as('erased'),
};

function normalizeFact(r: Record<string, unknown>): ResolutionFact {
  return {
    ...(r as unknown as ResolutionFact),
    committed_at: toDate(r.committed_at)!,
    valid_until: toDate(r.valid_until),
    expires_at: toDate(r.expires_at),
    erased: Boolean(r.erased),
  };
}

/**
 * The conflict with this id, or null. With `lock`, its row stays locked until the transaction
 * ends, so two resolutions of one conflict run one after the other.
 */
export async function conflictForResolution(
  tenant: TenantDb,
  conflictId: string,
  options: { lock: boolean },
): Promise<ConflictForResolution | null> {
  const query = qb
    .select(columnsNamed(conflicts, ['id', 'status', 'fact_set_key', 'resolution_type', 'resolution', 'winning_fact_id', 'resolved_at']))
    .from(conflicts)
    .where(tenant.where(conflicts, eq(conflicts.id, conflictId)));
  const [row] = await tenant.read<Record<string, unknown>>(options.lock ? query.for('update') : query);
  if (!row) return null;
  return { ...(row as unknown as ConflictForResolution), resolved_at: toDate(row.resolved_at) };
}

/** Every fact of a conflict, oldest first. */
export async function conflictFactsForResolution(tenant: TenantDb, conflictId: string): Promise<ResolutionFact[]> {
  const rows = await tenant.read<Record<string, unknown>>(
    qb
      .select(resolutionFactSelection)
      .from(conflictFacts)
      .innerJoin(f, and(eq(f.id, conflictFacts.factId), eq(f.workspaceId, conflictFacts.workspaceId)))
      .where(tenant.where(conflictFacts, eq(conflictFacts.conflictId, conflictId)))
      .orderBy(asc(f.committedAt), asc(f.id)),
  );
  return rows.map(normalizeFact);
}

/** One fact by id, as a resolution reads it (the merge result), or null. */
export async function factForResolution(tenant: TenantDb, factId: string): Promise<ResolutionFact | null> {
  const [row] = await tenant.read<Record<string, unknown>>(qb.select(resolutionFactSelection).from(f).where(tenant.where(f, eq(f.id, factId))));
  return row ? normalizeFact(row) : null;
}

/**
 * Closes the windows of these facts that are still open, marked as a resolution's doing in favour
 * of `forFactId` (the kept or merged fact). Returns the ids it closed.
 */
export async function closeFactsForResolution(
  tenant: TenantDb,
  factIds: readonly string[],
  params: { at: Date; forFactId: string },
): Promise<string[]> {
  if (factIds.length === 0) return [];
  const rows = await tenant
    .update(
      facts,
      { validUntil: closedAt(ts(params.at)), retiredBy: 'resolution', retiredForFactId: params.forFactId },
      anyUuid(facts.id, factIds),
      isNull(facts.validUntil),
    )
    .returning({ id: facts.id });
  return rows.map((r) => r.id).sort();
}

/** Records how a conflict was settled. Only an open conflict changes; returns whether it did. */
export async function markConflictResolved(
  tenant: TenantDb,
  conflictId: string,
  outcome: {
    status: 'resolved' | 'dismissed';
    resolutionType: 'winner' | 'merge' | 'dismissed';
    resolution: string;
    winningFactId: string | null;
    memberId: string | null;
    at: Date;
  },
): Promise<boolean> {
  const rows = await tenant
    .update(
      conflicts,
      {
        status: outcome.status,
        resolutionType: outcome.resolutionType,
        resolution: outcome.resolution,
        winningFactId: outcome.winningFactId,
        resolvedByMemberId: outcome.memberId,
        resolvedAt: outcome.at,
      },
      eq(conflicts.id, conflictId),
      eq(conflicts.status, 'open'),
    )
    .returning({ id: conflicts.id });
  return rows.length > 0;
}

/** A conflict's settlement taken back: open again, with no outcome. */
const UNSETTLED = { status: 'open', resolutionType: null, resolution: null, resolvedAt: null, resolvedByMemberId: null, winningFactId: null } as const;

/** Another version of a fact (`facts`), for asking whether its words are current again. */
const restatement = alias(facts, 'o');

/**
 * Undoes a detector's settlement so a person can settle it their way: the facts it retired for
 * the fact it kept become current again (marked `restored`, so the detector does not settle the
 * pair again), and the conflict is open; a retired fact restated word for word since stays history
 * (the restatement is current in its place). Returns whether it was one to reopen.
 */
export async function reopenSettlement(tenant: TenantDb, conflictId: string): Promise<boolean> {
  const rows = await tenant.run((db) => {
    // One statement: every part of it reads the rows as they were before it, so `settled` holds the kept fact.
    const settled = db.$with('settled').as(
      qb
        .select({ id: conflicts.id, kept: conflicts.winningFactId })
        .from(conflicts)
        .where(tenant.where(conflicts, eq(conflicts.id, conflictId), eq(conflicts.resolutionType, 'detector'))),
    );
    const reopened = db.$with('reopened').as(
      db.update(conflicts).set(UNSETTLED).from(settled).where(tenant.where(conflicts, eq(conflicts.id, settled.id))).returning({ id: conflicts.id }),
    );
    const restored = db.$with('restored').as(
      db
        .update(facts)
        .set({ validUntil: null, retiredBy: 'restored' })
        .from(settled)
        .where(
          tenant.where(
            facts,
            eq(facts.retiredBy, 'detector'),
            eq(facts.retiredForFactId, settled.kept),
            inArray(
              facts.id,
              qb.select({ id: conflictFacts.factId }).from(conflictFacts).where(tenant.where(conflictFacts, eq(conflictFacts.conflictId, settled.id))),
            ),
            // Restated word for word since (a current fact of its scope with its content): the restatement stands for it.
            notExists(
              qb
                .select({ id: restatement.id })
                .from(restatement)
                .where(
                  and(
                    eq(restatement.workspaceId, facts.workspaceId),
                    eq(restatement.scope, facts.scope),
                    eq(restatement.contentHash, facts.contentHash),
                    isNull(restatement.validUntil),
                    ne(restatement.id, facts.id),
                  ),
                ),
            ),
          ),
        ),
    );
    return db.with(settled, reopened, restored).select({ id: reopened.id }).from(reopened);
  });
  return rows.length > 0;
}

/**
 * Records what a human said about a detection: `false_positive` (dismissed) or `true_positive`
 * (settled with a winner or a merge), keyed by the conflict's fact set.
 */
export async function recordDetectionFeedback(
  tenant: TenantDb,
  feedback: { conflictId: string; factSetKey: string; feedback: 'true_positive' | 'false_positive'; memberId: string | null; at: Date },
): Promise<void> {
  await tenant.insert(detectionFeedback, {
    conflictId: feedback.conflictId,
    factSetKey: feedback.factSetKey,
    feedback: feedback.feedback,
    memberId: feedback.memberId,
    recordedAt: feedback.at,
  });
}

/**
 * Takes back the trust a false alarm cost: raising a conflict counted one flagged commit against
 * each agent in it, and a dismissal says none of them was wrong. (Never below zero: facts added to
 * a conflict after it was raised were not counted.)
 */
export async function unflagAgents(tenant: TenantDb, conflictId: string): Promise<void> {
  const involved = qb
    .selectDistinct({ agentId: f.agentId })
    .from(conflictFacts)
    .innerJoin(f, eq(f.id, conflictFacts.factId))
    .where(tenant.where(conflictFacts, eq(conflictFacts.conflictId, conflictId)));
  await tenant.update(agents, { flaggedCommits: increment(agents.flaggedCommits, -1) }, inArray(agents.agentId, involved), gt(agents.flaggedCommits, 0));
}

/** The detector feedback recorded for a conflict, oldest first. */
export async function detectionFeedbackOf(
  tenant: TenantDb,
  conflictId: string,
): Promise<{ fact_set_key: string; feedback: 'true_positive' | 'false_positive'; member_id: string | null }[]> {
  return tenant.read(
    qb
      .select(columnsNamed(detectionFeedback, ['fact_set_key', 'feedback', 'member_id']))
      .from(detectionFeedback)
      .where(tenant.where(detectionFeedback, eq(detectionFeedback.conflictId, conflictId)))
      .orderBy(asc(detectionFeedback.recordedAt), asc(detectionFeedback.id)),
  );
}

/**
 * Data access for citations and verifications (issue 57), through a TenantDb: the current facts
 * that cite code (what `engram check` compares), the verifications of facts, and the stale
 * questions a changed citation or an outdated verification raises.
 */
import { and, asc, desc, eq, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { m } from './access.ts';
import { f, unexpiredAt } from './fact-rows.ts';
import { conflictFacts, conflicts, facts, factVerifications, type FactCitation } from './schema.ts';
import type { TenantDb } from './tenant.ts';
import { columnsNamed, qb, toDate } from './values.ts';

/** A current fact that cites code, as `engram check` reads it. */
export interface CitedFactRow {
  id: string;
  lineage_id: string;
  content: string;
  scope: string;
  citations: FactCitation[];
  committed_at: Date;
  verified_at: Date | null;
}

/** The workspace's current facts that cite code, oldest first, a page after `afterId`. */
export async function citedFacts(tenant: TenantDb, params: { afterId?: string; limit: number; now: Date }): Promise<CitedFactRow[]> {
  const rows = await tenant.read<Record<string, unknown>>(
    qb
      .select(columnsNamed(f, ['id', 'lineage_id', 'content', 'scope', 'citations', 'committed_at', 'verified_at']))
      .from(f)
      .where(
        tenant.where(
          f,
          isNotNull(f.citations),
          isNull(f.validUntil),
          unexpiredAt(params.now),
          isNull(f.erasedAt),
          params.afterId ? gt(f.id, params.afterId) : undefined,
        ),
      )
      .orderBy(asc(f.id))
      .limit(params.limit),
  );
  return rows.map((r) => ({
    ...(r as unknown as CitedFactRow),
    citations: (typeof r.citations === 'string' ? JSON.parse(r.citations) : r.citations) as FactCitation[],
    committed_at: toDate(r.committed_at)!,
    verified_at: toDate(r.verified_at),
  }));
}

/**
 * Gives a current fact citations when it has none: a commit that restates a fact with the code it
 * checked adds what it cites instead of dropping it. Returns whether it did.
 */
export async function attachCitations(tenant: TenantDb, factId: string, citations: readonly FactCitation[]): Promise<boolean> {
  const rows = await tenant
    .update(facts, { citations: [...citations] }, eq(facts.id, factId), isNull(facts.citations))
    .returning({ id: facts.id });
  return rows.length > 0;
}

/** One verification of a fact. */
export interface NewVerification {
  factId: string;
  status: 'still_true' | 'outdated' | 'unsure';
  evidence: string | null;
  commit: string | null;
  source: 'agent' | 'check';
  memberId: string | null;
  agentId: string | null;
  at: Date;
}

/**
 * Records a verification; a `still_true` one also becomes the fact's `verified_at` (never moved
 * back). One statement. Returns the verification's id.
 */
export async function recordVerification(tenant: TenantDb, v: NewVerification): Promise<string> {
  const [row] = await tenant.run((db) => {
    const verified = db.$with('verified').as(
      db
        .update(facts)
        .set({ verifiedAt: v.at })
        .where(tenant.where(facts, eq(facts.id, v.factId), or(isNull(facts.verifiedAt), lt(facts.verifiedAt, v.at)))),
    );
    return (v.status === 'still_true' ? db.with(verified) : db)
      .insert(factVerifications)
      .values({
        workspaceId: tenant.workspaceId,
        factId: v.factId,
        status: v.status,
        evidence: v.evidence,
        commit: v.commit,
        source: v.source,
        memberId: v.memberId,
        agentId: v.agentId,
        createdAt: v.at,
      })
      .returning({ id: factVerifications.id });
  });
  return row!.id;
}

/** A verification as people and agents see it. */
export interface VerificationRow {
  id: string;
  fact_id: string;
  status: 'still_true' | 'outdated' | 'unsure';
  evidence: string | null;
  commit: string | null;
  source: 'agent' | 'check';
  member_id: string | null;
  member: string | null;
  agent_id: string | null;
  created_at: Date;
}

const verificationSelection = {
  ...columnsNamed(factVerifications, ['id', 'fact_id', 'status', 'evidence', 'commit', 'source', 'member_id', 'agent_id', 'created_at']),
  display_name: m.displayName,
};

/** The verifications of a fact, newest first, at most `limit`. */
export async function verificationsOf(tenant: TenantDb, factId: string, limit: number): Promise<VerificationRow[]> {
  const rows = await tenant.read<Record<string, unknown>>(
    qb
      .select(verificationSelection)
      .from(factVerifications)
      .leftJoin(m, and(eq(m.workspaceId, factVerifications.workspaceId), eq(m.id, factVerifications.memberId)))
      .where(tenant.where(factVerifications, eq(factVerifications.factId, factId)))
      .orderBy(desc(factVerifications.createdAt), asc(factVerifications.id))
      .limit(limit),
  );
  return rows.map(({ display_name: member, ...r }) => ({
    ...(r as unknown as VerificationRow),
    member: (member as string | null) ?? null,
    created_at: toDate(r.created_at)!,
  }));
}

/** The latest verification of a fact, if any. */
export async function latestVerification(tenant: TenantDb, factId: string): Promise<VerificationRow | null> {
  const [row] = await verificationsOf(tenant, factId, 1);
  return row ?? null;
}

/** A stale question about one fact. */
export interface StaleConflict {
  factId: string;
  /** Unique per workspace (see conflicts.fact_set_key): the same question is never raised twice. */
  key: string;
  question: string;
  explanation: string;
  detectedBy: 'citation_check' | 'agent_verify';
  severity: 'high' | 'medium' | 'low';
}

/**
 * Raises a `stale` conflict on one fact, unless one with the same key was ever raised or one is
 * open on the fact already. Returns the new conflict's id, or the open one's (`raised` false).
 */
export async function raiseStaleConflict(tenant: TenantDb, c: StaleConflict): Promise<{ id: string | null; raised: boolean }> {
  const w = tenant.workspaceId;
  const [row] = await tenant.rows<{ id: string | null; raised: boolean }>(
    sql`with open as (
          select cf.conflict_id as id from conflict_facts cf
          join conflicts k on k.id = cf.conflict_id and k.workspace_id = cf.workspace_id
          where cf.workspace_id = ${w} and cf.fact_id = ${c.factId} and k.kind = 'stale' and k.status = 'open'
          limit 1
        ),
        created as (
          insert into conflicts (workspace_id, kind, question, explanation, detected_by, severity, fact_set_key)
          select ${w}, 'stale', ${c.question}, ${c.explanation}, ${c.detectedBy}, ${c.severity}, ${c.key}
          where not exists (select 1 from open)
          on conflict (workspace_id, fact_set_key) do nothing
          returning id
        ),
        linked as (
          insert into conflict_facts (workspace_id, conflict_id, fact_id)
          select ${w}, id, ${c.factId}::uuid from created
        )
        select coalesce((select id from created), (select id from open)) as id, exists (select 1 from created) as raised`,
  );
  return { id: row?.id ?? null, raised: Boolean(row?.raised) };
}

/** The settlement (a resolved conflict) that closed `factId` in favour of `winnerId`, if any. */
export async function settlementOf(tenant: TenantDb, factId: string, winnerId: string): Promise<string | null> {
  const [row] = await tenant.read<{ id: string }>(
    qb
      .select({ id: conflicts.id })
      .from(conflictFacts)
      .innerJoin(conflicts, and(eq(conflicts.id, conflictFacts.conflictId), eq(conflicts.workspaceId, conflictFacts.workspaceId)))
      .where(
        tenant.where(conflictFacts, eq(conflictFacts.factId, factId), eq(conflicts.winningFactId, winnerId), eq(conflicts.status, 'resolved')),
      )
      .orderBy(desc(conflicts.detectedAt))
      .limit(1),
  );
  return row?.id ?? null;
}

/**
 * Data access for the detector and for reading conflicts, through a TenantDb: the facts that share
 * slots with the facts that triggered a run, recording what a run decided (retirements, conflicts),
 * and listing conflicts with their facts.
 */
import { createHash } from 'node:crypto';
import { and, count, countDistinct, desc, eq, gt, gte, isNull, sql, sum, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { factMember, m } from './access.ts';
import type { Database } from './database.ts';
import { f } from './fact-rows.ts';
import { anyUuid, columnsNamed, increment, qb, textArrayLiteral, toDate, ts, uuidArrayLiteral } from './values.ts';
import { agents, conflictFacts, conflicts, detectionRuns, factKeys, type CONFLICT_STATUSES, type FactCitation, type FactEntity } from './schema.ts';
import type { TenantDb } from './tenant.ts';

/** A fact as the detector reads it. */
export interface DetectorFact {
  id: string;
  lineage_id: string;
  content: string;
  scope: string;
  agent_id: string;
  entities: FactEntity[];
  match_keys: string[];
  committed_at: Date;
  valid_until: Date | null;
  retired_by: string | null;
  retired_for_fact_id: string | null;
  durability: 'durable' | 'ephemeral';
}


function normalize(rows: Record<string, unknown>[]): DetectorFact[] {
  return rows.map((r) => ({
    ...(r as unknown as DetectorFact),
    committed_at: toDate(r.committed_at)!,
    valid_until: toDate(r.valid_until),
  }));
}

/**
 * The match keys travel as JSON: the driver reads a text[] character by character (3-3.5 µs for a
 * fact's twenty keys against 1 µs for JSON.parse), and a run reads tens of thousands of facts.
 */
const DETECTOR_COLUMNS = sql.raw(
  ['id', 'lineage_id', 'content', 'scope', 'agent_id', 'entities', 'match_keys', 'committed_at', 'valid_until', 'retired_by', 'retired_for_fact_id', 'durability']
    .map((c) => (c === 'match_keys' ? 'array_to_json(f.match_keys) as match_keys' : `f.${c}`))
    .join(', '),
);

/**
 * Facts read per statement. A detection group reads thousands of facts with their entities, and a
 * statement's whole result is received and parsed in one turn of the event loop, every request
 * waiting: this bounds that turn. A page of 250 is a few hundred kilobytes, a few milliseconds of
 * parsing (docs/performance/2026-12-02-constants.md).
 */
export const FACTS_PER_READ = 250;

/** Facts (as `f`) the detector compares: durable, not erased. */
const durableLive = and(eq(f.durability, 'durable'), isNull(f.erasedAt));

/**
 * The facts with these ids (a run's triggers, the facts their keys found), a page at a time, each
 * looked up by primary key (a lateral probe per id: the plan does not depend on statistics);
 * `durableOnly` leaves out ephemeral and erased facts.
 */
export async function factsByIds(tenant: TenantDb, ids: readonly string[], options: { durableOnly?: boolean } = {}): Promise<DetectorFact[]> {
  const facts: DetectorFact[] = [];
  for (let start = 0; start < ids.length; start += FACTS_PER_READ) {
    const page = ids.slice(start, start + FACTS_PER_READ);
    const rows = await tenant.read(sql`select ${DETECTOR_COLUMNS}
          from unnest(${uuidArrayLiteral(page)}::uuid[]) as ids(id)
          cross join lateral (select * from facts f where f.id = ids.id) f
          where ${and(eq(f.workspaceId, tenant.workspaceId), options.durableOnly ? durableLive : undefined)}`);
    for (const fact of normalize(rows)) facts.push(fact);
  }
  return facts;
}

/**
 * Durable facts sharing a match key with these — current ones, and the most recent history (for
 * reversals) — the newest `perKey` for each key, so a crowded attribute cannot stall a run. Their
 * ids are found first (a range scan of the key index per key), then the facts are read by id a
 * page at a time (factsByIds): one plan whatever the statistics say. Written as `f.id in (...)`,
 * on tables nothing had analyzed yet (a new workspace's first minutes) the subquery was probed once
 * per fact of the workspace: 1.9 s for a run's 1,600 keys at 1,000 facts, 6 ms this way (analyzed
 * or not).
 *
 * A commit asking whether a claim moved on since an older fact (`since`) reads, in one statement,
 * only the facts committed after that fact's instant (the same facts the newest `perKey` would
 * include, found by a range scan that stops at it: a handful of rows instead of every key's
 * twenty), less those a human judged compatible with it (a conflict of the two, dismissed).
 */
export async function factsMatching(
  tenant: TenantDb,
  keys: readonly string[],
  perKey: number,
  since?: { id: string; committedAt: Date },
): Promise<DetectorFact[]> {
  if (keys.length === 0) return [];
  const newest = sql`select distinct fk.fact_id from unnest(${textArrayLiteral(keys)}::text[]) as k(key)
            cross join lateral (
              select fact_id from fact_keys
              where ${and(eq(factKeys.workspaceId, tenant.workspaceId), since ? gt(factKeys.committedAt, since.committedAt) : undefined)} and key = k.key
              order by committed_at desc nulls last -- the index order: a range scan, no sort
              limit ${perKey}
            ) fk`;
  if (!since) {
    const found = await tenant.read<{ fact_id: string }>(newest);
    return factsByIds(tenant, found.map((r) => r.fact_id), { durableOnly: true });
  }
  return normalize(
    await tenant.read(sql`select ${DETECTOR_COLUMNS}
          from (${newest}) found
          cross join lateral (select * from facts f where f.id = found.fact_id) f
          where ${and(eq(f.workspaceId, tenant.workspaceId), durableLive)}
            -- Computed once (an InitPlan), before the facts are read: the plan above stays as it is.
            and f.id <> all(array(
              select other.fact_id from conflict_facts mine
              join conflicts c on c.id = mine.conflict_id and c.status = 'dismissed'
              join conflict_facts other on other.conflict_id = mine.conflict_id
              where mine.fact_id = ${since.id} and mine.workspace_id = ${tenant.workspaceId}))`),
  );
}

/** One fact the detector retires: a later fact settled its slot. */
export interface RetirementRecord {
  factId: string;
  byFactId: string;
  at: Date;
  /** Why the detector could settle it with nothing raised (shown with the settlement). */
  reason: string;
}

/** A conflict the detector raises. */
export interface ConflictRecord {
  kind: 'reversal' | 'ambiguity' | 'stale' | 'value_mismatch' | 'cross_scope' | 'probable_update';
  detectedBy: 'narrative_llm' | 'tier0_entity' | 'tier2_numeric' | 'tier2b_cross_scope' | 'narrative_rules' | 'agent_verify';
  severity: 'high' | 'medium' | 'low';
  question: string;
  explanation: string | null;
  factIds: string[];
  /**
   * A settlement the detector made (a fact's window closed with nothing asked): recorded as a
   * resolved conflict, listed with the others and undone like a resolution.
   */
  settledBy?: { factId: string; reason: string; at: Date };
}

/** The key that makes a set of facts one conflict, in any order (a digest: sets can be large). */
export const factSetKey = (ids: readonly string[]) =>
  createHash('sha256').update([...new Set(ids)].sort().join(',')).digest('hex').slice(0, 40);

/**
 * `ids(id) × l(conflict_id) × c(status)`: each of the facts' conflicts (`factIds` a uuid[] expression,
 * or the ids), for a FROM clause. Each fact's
 * links are looked up by its id and each conflict by its own: OFFSET 0 keeps every lookup a
 * subquery of one table, whose only sensible plan is its index whatever the statistics. Joined
 * plainly, a planner that took the conflict tables for small (never analyzed) started from the
 * workspace's conflicts and read its conflict_facts once for each of them.
 */
export const conflictsOfFacts = (workspaceId: string, factIds: SQL | readonly string[]) => sql`unnest(${
  Array.isArray(factIds) ? uuidArrayLiteral(factIds) : factIds
}::uuid[]) as ids(id)
  cross join lateral (select cf.conflict_id from conflict_facts cf where cf.workspace_id = ${workspaceId} and cf.fact_id = ids.id offset 0) l
  cross join lateral (select c.status, c.kind from conflicts c where c.id = l.conflict_id offset 0) c`;

/**
 * Closes settled facts' windows (marked as the detector's doing, so they can be restored) and notes
 * on each settling fact the first fact it updated. One statement for all of them: a run retires
 * hundreds of facts in a busy workspace, and a round trip each was a fifth of its time. A fact both
 * retired and settling another (A → B → C) is one row change. Returns the facts whose windows it
 * closed (a fact closed meanwhile is left as it is, and is not among them).
 */
export async function applyRetirements(tenant: TenantDb, retirements: readonly RetirementRecord[]): Promise<string[]> {
  if (retirements.length === 0) return [];
  const w = tenant.workspaceId;
  const rows = await tenant.rows<{ id: string }>(sql`with r as (
          select * from unnest(${uuidArrayLiteral(retirements.map((r) => r.factId))}::uuid[], ${uuidArrayLiteral(retirements.map((r) => r.byFactId))}::uuid[],
                               ${textArrayLiteral(retirements.map((r) => r.at.toISOString()))}::timestamptz[]) with ordinality as r(fact_id, by_id, at, n)
        ), live as (
          -- Each by primary key (the window tested outside the lookup: see resolveSettledConflicts).
          select r.* from r cross join lateral (select f.valid_until from facts f where f.workspace_id = ${w} and f.id = r.fact_id offset 0) f
          where f.valid_until is null
        ), settler as (
          select distinct on (by_id) by_id, fact_id from live order by by_id, n
        ), target as materialized (
          -- Materialized: joined to facts by an id out of a full join, the update read the whole
          -- workspace (a hash join over a scan of facts, whatever the statistics); from a CTE it
          -- looks each id up by primary key.
          select coalesce(l.fact_id, s.by_id) as id, l.at, l.by_id, s.fact_id as first_settled
          from live l full join settler s on s.by_id = l.fact_id
        ), changed as (
          update facts f set
            valid_until = case when t.at is null then f.valid_until else greatest(f.valid_from, t.at) end,
            retired_by = case when t.at is null then f.retired_by else 'detector' end,
            retired_for_fact_id = case when t.at is null then f.retired_for_fact_id else t.by_id end,
            memory_op = case when t.first_settled is not null and f.memory_op = 'add' then 'update' else f.memory_op end,
            supersedes_fact_id = case when t.first_settled is not null and f.memory_op = 'add' then coalesce(f.supersedes_fact_id, t.first_settled) else f.supersedes_fact_id end
          from target t
          where f.workspace_id = ${w} and f.id = t.id and (t.at is null or f.valid_until is null)
          returning f.id, t.at is not null as closed
        )
        select id from changed where closed`);
  return rows.map((r) => r.id);
}

/** Questions of which value holds between two facts. */
/** Kinds that ask which of two values holds: not asked of a fact an open probable update already doubts. */
export const VALUE_QUESTIONS: ReadonlySet<string> = new Set(['value_mismatch', 'ambiguity', 'cross_scope']);

/**
 * Records conflicts. A fact set already raised (in any status, dismissed included) or contained in
 * one already raised is skipped; a probable update only for another probable update, a stale
 * question (or a gone thing's probable update) for a fact an open stale question already asks
 * about, and a question of which of two values holds for a fact an open probable update already
 * doubts. A set that shares two or more
 * facts with an open conflict (other than a probable update) is the same confusion grown: its new
 * facts join that conflict (question and explanation updated) instead of opening another.
 * Otherwise a new conflict is inserted. Returns the ids of new conflicts; the agents of their
 * facts count one more flagged commit.
 */
export async function insertConflicts(tenant: TenantDb, records: readonly ConflictRecord[]): Promise<string[]> {
  const created: string[] = [];
  for (const c of records) {
    const ids = [...new Set(c.factIds)].sort();
    if (ids.length < 2) continue;
    // For a value question, the fact each open probable update doubts (its earlier one); no lookup for other records.
    const doubted = VALUE_QUESTIONS.has(c.kind)
      ? sql`case when c.kind = 'probable_update' and c.status = 'open' then (
              select cf.fact_id::text from conflict_facts cf join facts f on f.workspace_id = cf.workspace_id and f.id = cf.fact_id
              where cf.workspace_id = ${tenant.workspaceId} and cf.conflict_id = l.conflict_id order by f.committed_at, f.id limit 1) end`
      : sql`null::text`;
    const overlapping = await tenant.read<{ id: string; status: string; kind: string; shared: number; facts: string[]; doubted: string | null }>(sql`select l.conflict_id as id, c.status, c.kind, count(*)::int as shared, array_agg(ids.id::text) as facts,
            ${doubted} as doubted
          from ${conflictsOfFacts(tenant.workspaceId, ids)}
          group by l.conflict_id, c.status, c.kind
          order by count(*) desc`,
    );
    // Raised before; a probable update only by another (a reversal through its pair does not ask it).
    if (overlapping.some((o) => Number(o.shared) === ids.length && (c.kind !== 'probable_update' || o.kind === 'probable_update'))) continue;
    // A fact already asked about as stale (an open question) is not asked again for another later fact, as stale
    // or as using a thing said to be gone (the narrative rules' probable update); a settlement is a record, not a
    // question, and is always kept.
    const doubt = c.kind === 'stale' || (c.kind === 'probable_update' && c.detectedBy === 'narrative_rules');
    if (doubt && !c.settledBy && overlapping.some((o) => o.kind === 'stale' && o.status === 'open' && Number(o.shared) === 1 && o.facts.includes(c.factIds[0]!))) continue;
    // Nor is a fact an open probable update doubts ("is it still true?") asked again by a later fact disagreeing with it.
    if (VALUE_QUESTIONS.has(c.kind) && ids.length === 2 && !c.settledBy && overlapping.some((o) => o.doubted !== null && Number(o.shared) === 1 && o.facts[0] === o.doubted)) continue;
    const settled = c.settledBy;
    // A probable update is a question about one pair ("is the older fact still true?") and a
    // settlement a record of one: neither grows another conflict nor is grown into one, so a
    // reversal through that pair is raised beside its question instead of replacing it.
    const grown = settled || c.kind === 'probable_update' ? undefined : overlapping.find((o) => o.status === 'open' && o.kind !== 'probable_update' && Number(o.shared) >= 2);
    if (grown) {
      await tenant.insert(conflictFacts, ids.map((factId) => ({ conflictId: grown.id, factId }))).onConflictDoNothing();
      const all = await tenant.read<{ fact_id: string }>(
        qb.select(columnsNamed(conflictFacts, ['fact_id'])).from(conflictFacts).where(tenant.where(conflictFacts, eq(conflictFacts.conflictId, grown.id))),
      );
      await tenant.update(
        conflicts,
        {
          kind: c.kind,
          question: c.question,
          explanation: c.explanation,
          detectedBy: c.detectedBy,
          severity: c.severity,
          factSetKey: factSetKey(all.map((r) => r.fact_id)),
        },
        eq(conflicts.id, grown.id),
      );
      continue;
    }
    const settlement = settled
      ? { status: 'resolved', resolutionType: 'detector', resolution: settled.reason, winningFactId: settled.factId, resolvedAt: settled.at } as const
      : {};
    const [row] = await tenant
      .insert(conflicts, {
        kind: c.kind,
        question: c.question,
        explanation: c.explanation,
        detectedBy: c.detectedBy,
        severity: c.severity,
        factSetKey: factSetKey(ids),
        ...settlement,
      })
      .onConflictDoNothing({ target: [conflicts.workspaceId, conflicts.factSetKey] })
      .returning({ id: conflicts.id });
    if (!row) continue;
    if (!settled) created.push(row.id);
    await tenant.insert(conflictFacts, ids.map((factId) => ({ conflictId: row.id, factId })));
  }
  await flagAgents(tenant, created);
  return created;
}

/**
 * Each agent with a fact in the new conflicts counts one more flagged commit per conflict, in one
 * statement and in agent order, the order commits upsert the same rows in (no deadlock). It runs
 * last: the rows stay locked until the transaction ends, and a commit of one of those agents
 * waits for them (with the locks taken conflict by conflict, commits under load waited for whole
 * detection steps: commit p99 1.1-1.3 s at 50 clients in one workspace, against 0.38 s without
 * the worker).
 */
async function flagAgents(tenant: TenantDb, conflictIds: readonly string[]): Promise<void> {
  if (conflictIds.length === 0) return;
  await tenant.run((db) => {
    const flagged = db.$with('flagged').as(
      qb
        .select({ agentId: f.agentId, n: countDistinct(conflictFacts.conflictId).as('n') })
        .from(conflictFacts)
        .innerJoin(f, and(eq(f.workspaceId, conflictFacts.workspaceId), eq(f.id, conflictFacts.factId)))
        .where(tenant.where(conflictFacts, anyUuid(conflictFacts.conflictId, conflictIds)))
        .groupBy(f.agentId),
    );
    const locked = db.$with('locked').as(
      qb
        .select({ agentId: agents.agentId, n: flagged.n })
        .from(agents)
        .innerJoin(flagged, eq(flagged.agentId, agents.agentId))
        .where(tenant.where(agents))
        .orderBy(agents.agentId)
        .for('update', { of: agents }),
    );
    return db
      .with(flagged, locked)
      .update(agents)
      .set({ flaggedCommits: increment(agents.flaggedCommits, locked.n) })
      .from(locked)
      .where(tenant.where(agents, eq(agents.agentId, locked.agentId)));
  });
}

/**
 * Open conflicts that a settlement made moot (fewer than two of their facts still current; none, for a question about one fact) are
 * marked resolved, saying so. Given the facts just closed, only the conflicts naming one of them
 * are read (a run retiring facts step by step would otherwise read every open conflict each step);
 * without, every open conflict of the workspace (facts also close by correction, deletion, expiry).
 */
export async function resolveSettledConflicts(tenant: TenantDb, now: Date, closedFactIds?: readonly string[]): Promise<number> {
  if (closedFactIds?.length === 0) return 0;
  // The open conflicts naming a closed fact (looked up from the facts), or every open conflict;
  // of those, the ones with fewer than two current facts, each counted from its own links (one
  // table per subquery, as in conflictsOfFacts; the window is tested outside the lookup, which
  // could otherwise take an index of current facts that starts at the workspace).
  const named = closedFactIds
    ? sql`select distinct l.conflict_id as id from ${conflictsOfFacts(tenant.workspaceId, closedFactIds)} where c.status = 'open'`
    : qb.select({ id: conflicts.id }).from(conflicts).where(tenant.where(conflicts, eq(conflicts.status, 'open')));
  const rows = await tenant.rows<{ id: string }>(sql`with named as materialized (${named}),
        moot as materialized (
          -- A question about one fact (a stale citation) is moot once that fact is history.
          select n.id from named n
          cross join lateral (select count(*) filter (where f.valid_until is null) as current, count(*) as linked
                 from (select cf.fact_id from conflict_facts cf where cf.conflict_id = n.id offset 0) l
                 cross join lateral (select f.valid_until from facts f where f.id = l.fact_id offset 0) f) k
          where k.current < least(2, k.linked)
        )
        update conflicts c set status = 'resolved', resolved_at = ${ts(now)},
          resolution = 'Settled automatically: a later fact superseded all but one side.'
        from moot
        where c.workspace_id = ${tenant.workspaceId} and c.id = moot.id and c.status = 'open'
        returning c.id`,
  );
  return rows.length;
}

/** How many conflicts each of these facts has been part of (the forgetting curve keeps those). */
export async function conflictCounts(tenant: TenantDb, factIds: readonly string[]): Promise<Map<string, number>> {
  if (factIds.length === 0) return new Map();
  const rows = await tenant.read<{ fact_id: string; n: number | string }>(
    qb
      .select({ fact_id: conflictFacts.factId, n: count().as('n') })
      .from(conflictFacts)
      .where(tenant.where(conflictFacts, anyUuid(conflictFacts.factId, factIds)))
      .groupBy(conflictFacts.factId),
  );
  return new Map(rows.map((r) => [r.fact_id, Number(r.n)]));
}

/** A conflict with its facts, as engram_conflicts and the API show it. */
export interface ConflictView {
  conflict_id: string;
  kind: string;
  severity: string;
  status: string;
  question: string;
  explanation: string | null;
  detected_by: string;
  detected_at: string;
  resolved_at: string | null;
  resolution_type: string | null;
  resolution: string | null;
  winning_fact_id: string | null;
  facts: {
    fact_id: string;
    lineage_id: string;
    content: string;
    scope: string;
    agent_id: string;
    /** The display name of the member whose agent committed it (null: anonymous, or unnamed). */
    member: string | null;
    committed_at: string;
    valid_until: string | null;
    citations: FactCitation[] | null;
  }[];
}

/** Conflicts of the workspace, newest first, with every fact of each. */
export async function listConflictViews(
  tenant: TenantDb,
  filters: { status?: string; kind?: string; conflictId?: string; limit?: number },
): Promise<ConflictView[]> {
  const c = alias(conflicts, 'c');
  const cf = alias(conflictFacts, 'cf');
  const rows = await tenant.read<Record<string, unknown>>(
    qb
      .select({
        ...columnsNamed(c, [
          'id', 'kind', 'severity', 'status', 'question', 'explanation', 'detected_by', 'detected_at', 'resolved_at', 'resolution_type',
          'resolution', 'winning_fact_id',
        ]),
        // Each conflict's facts as one JSON array: no builder aggregates into JSON.
        facts: sql`coalesce(json_agg(json_build_object(
                 'fact_id', ${f.id}, 'lineage_id', ${f.lineageId}, 'content', ${f.content}, 'scope', ${f.scope},
                 'agent_id', ${f.agentId}, 'member', ${m.displayName}, 'committed_at', ${f.committedAt}, 'valid_until', ${f.validUntil},
                 'citations', ${f.citations}
               ) order by ${f.committedAt}) filter (where ${f.id} is not null), '[]')`.as('facts'),
      })
      .from(c)
      .leftJoin(cf, and(eq(cf.conflictId, c.id), eq(cf.workspaceId, c.workspaceId)))
      .leftJoin(f, and(eq(f.id, cf.factId), eq(f.workspaceId, c.workspaceId)))
      .leftJoin(m, factMember)
      .where(
        tenant.where(
          c,
          filters.status && filters.status !== 'all' ? eq(c.status, filters.status as (typeof CONFLICT_STATUSES)[number]) : undefined,
          filters.kind ? eq(c.kind, filters.kind as ConflictRecord['kind']) : undefined,
          filters.conflictId ? eq(c.id, filters.conflictId) : undefined,
        ),
      )
      .groupBy(c.id)
      .orderBy(desc(c.detectedAt))
      .limit(filters.limit ?? 200),
  );
  const stamp = (v: unknown) => (v == null ? null : toDate(v)!.toISOString());
  return rows.map((r) => {
    const facts = (typeof r.facts === 'string' ? JSON.parse(r.facts) : r.facts) as Record<string, unknown>[];
    return {
      conflict_id: String(r.id),
      kind: String(r.kind),
      severity: String(r.severity),
      status: String(r.status),
      question: String(r.question),
      explanation: (r.explanation as string | null) ?? null,
      detected_by: String(r.detected_by),
      detected_at: stamp(r.detected_at)!,
      resolved_at: stamp(r.resolved_at),
      resolution_type: (r.resolution_type as string | null) ?? null,
      resolution: (r.resolution as string | null) ?? null,
      winning_fact_id: (r.winning_fact_id as string | null) ?? null,
      facts: facts.map((f) => ({
        fact_id: String(f.fact_id),
        lineage_id: String(f.lineage_id),
        content: String(f.content),
        scope: String(f.scope),
        agent_id: String(f.agent_id),
        member: (f.member as string | null) ?? null,
        committed_at: stamp(f.committed_at)!,
        valid_until: stamp(f.valid_until),
        citations: (f.citations as FactCitation[] | null) ?? null,
      })),
    };
  });
}

/**
 * Undoes a detector retirement: the fact becomes current again, marked `restored` (with the fact
 * that had settled it) so the detector does not settle the pair again, and a detection job is
 * enqueued so the disagreement is raised as a conflict for a human instead. A fact whose very
 * words are current again in its scope (restated after it was settled) stays history: the
 * restatement stands for it, and a second current copy would break facts_current_content_key.
 */
export async function restoreRetiredFact(tenant: TenantDb, factId: string): Promise<boolean> {
  const rows = await tenant.rows<{ id: string }>(sql`with restored as (
          update facts f set valid_until = null, retired_by = 'restored'
          where f.workspace_id = ${tenant.workspaceId} and f.id = ${factId} and f.retired_by = 'detector' and f.valid_until is not null
            and not exists (select 1 from facts o where o.workspace_id = f.workspace_id and o.scope = f.scope and o.content_hash = f.content_hash
                              and o.valid_until is null and o.id <> f.id)
          returning f.id, f.retired_for_fact_id
        ),
        job as (
          insert into detection_jobs (workspace_id, trigger_fact_id, reason)
          select ${tenant.workspaceId}, id, 'restore' from restored
        ),
        -- The settlement becomes the open question it would have been.
        reopened as (
          update conflicts c set status = 'open', resolution_type = null, resolution = null, resolved_at = null,
            resolved_by_member_id = null, winning_fact_id = null
          from restored r
          where c.workspace_id = ${tenant.workspaceId} and c.resolution_type = 'detector' and c.winning_fact_id = r.retired_for_fact_id
            and exists (select 1 from conflict_facts cf where cf.workspace_id = ${tenant.workspaceId} and cf.conflict_id = c.id and cf.fact_id = r.id)
          returning c.id
        )
        select id from restored`,
  );
  return rows.length > 0;
}

export type { Database };

/** A current fact as the forgetting curve weighs it. */
export interface NarrativeCandidate {
  id: string;
  committed_at: Date;
  /** Conflicts the fact has been part of. */
  conflicts: number;
  /** Length of its content, to fit the story to its budget before reading contents. */
  chars: number;
}

/** Every current durable fact of the workspace, oldest first, with its conflict count. */
export async function narrativeCandidates(tenant: TenantDb, now: Date): Promise<NarrativeCandidate[]> {
  // Epoch milliseconds rather than timestamps: 100,000 of them convert in a fraction of the time.
  const rows = await tenant.read<{ id: string; ms: number; conflicts: number; chars: number }>(sql`select f.id, (extract(epoch from f.committed_at) * 1000)::float8 as ms, coalesce(c.n, 0)::int as conflicts, length(f.content)::int as chars
        from facts f
        left join (
          select cf.fact_id, count(*) as n from conflicts k join conflict_facts cf on cf.conflict_id = k.id
          where k.workspace_id = ${tenant.workspaceId} group by cf.fact_id
        ) c on c.fact_id = f.id
        where f.workspace_id = ${tenant.workspaceId} and f.valid_until is null and f.durability = 'durable'
          and f.erased_at is null and (f.expires_at is null or f.expires_at > ${ts(now)})`,
  );
  // In no particular order: the curve orders what it keeps (sorting 100,000 rows spilled to disk).
  return rows.map((r) => ({ id: r.id, committed_at: new Date(Number(r.ms)), conflicts: Number(r.conflicts), chars: Number(r.chars) }));
}

/** The facts a story shows (a superseded one with the end of its window). */
export async function storyFacts(
  tenant: TenantDb,
  ids: readonly string[],
): Promise<{ id: string; content: string; scope: string; committed_at: Date; valid_until: Date | null }[]> {
  if (ids.length === 0) return [];
  const rows = await tenant.read<{ id: string; content: string; scope: string; committed_at: unknown; valid_until: unknown }>(
    qb.select(columnsNamed(f, ['id', 'content', 'scope', 'committed_at', 'valid_until'])).from(f).where(tenant.where(f, anyUuid(f.id, ids))),
  );
  return rows.map((r) => ({ ...r, committed_at: toDate(r.committed_at)!, valid_until: toDate(r.valid_until) }));
}

/** Tokens the workspace's detection runs spent since `since` (for the daily budget). */
export async function tokensSpentSince(tenant: TenantDb, since: Date): Promise<number> {
  const [row] = await tenant.read<{ prompt: number | string | null; completion: number | string | null }>(
    qb
      .select({ prompt: sum(detectionRuns.promptTokens).as('prompt'), completion: sum(detectionRuns.completionTokens).as('completion') })
      .from(detectionRuns)
      .where(tenant.where(detectionRuns, gte(detectionRuns.startedAt, since))),
  );
  return Number(row?.prompt ?? 0) + Number(row?.completion ?? 0);
}

/** How many conflicts wait for a human. */
export async function countOpenConflicts(tenant: TenantDb): Promise<number> {
  const [row] = await tenant.read<{ n: number | string }>(
    qb.select({ n: count().as('n') }).from(conflicts).where(tenant.where(conflicts, eq(conflicts.status, 'open'))),
  );
  return Number(row?.n ?? 0);
}

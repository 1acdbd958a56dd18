/**
 * One detection run over a workspace: the deterministic tiers for the slots its trigger facts
 * touch, applied in one transaction (settled facts retired, new conflicts raised, conflicts that a
 * settlement made moot resolved).
 */
import {
  applyRetirements,
  factsByIds,
  factsMatching,
  forWorkspace,
  insertConflicts,
  resolveSettledConflicts,
  restoreRetiredFact,
  type ConflictRecord,
  type Database,
  type DetectorFact,
  type RetirementRecord,
  type RunStats,
} from '@engram/db';
import type { Logger } from '../logger.ts';
import { yieldTurn } from '../turns.ts';
import { analysisCost, analysisSteps, indexingSteps } from './deterministic.ts';
import { probesOf } from './per-fact.ts';
import { withAnnouncedUpdates } from './announced.ts';
import { analyzeStatements } from './statements.ts';
import { viewOf } from '../language/index.ts';
import { NarrativeFailure, runNarrativePass, type NarrativeDetective } from './narrative/pass.ts';

/** Most facts a run reads per slot key (newest first); a slot's timeline keeps its newest 100 claims. */
const FACTS_PER_KEY = 200;
/**
 * Most facts per key by meaning (`duration~latency`), statement (`neg:staging`), dependency or
 * name: these are broad, and the newest few are what a new fact is read against.
 */
const FACTS_PER_MEANING_KEY = 50;

export interface DetectionServices {
  db: Database;
  log: Logger;
}

export interface RunInput {
  runId: string;
  workspaceId: string;
  triggerFactIds: readonly string[];
  /** The run's recorded start (the narrative pass measures fact ages from it); else now. */
  startedAt?: Date;
}

/**
 * Triggers read together, and analysed together. A run groups its triggers by shared slot; each
 * group, up to TRIGGERS_READ_TOGETHER triggers, reads its slots once (a busy workspace's backlog
 * restates the same few subjects: one at a time, a run read each crowded slot once per trigger).
 * A slot key reads at most FACTS_PER_KEY facts however many triggers share it, so a big group
 * reads little more than a small one (a backlog read in groups of 400 read about a third of the
 * rows it read in groups of 25). Analysis is synchronous, and a crowded slot's timeline costs tens
 * of milliseconds, so with an in-process worker a big step stalls every request the process
 * serves. So what was read is analysed at most TRIGGERS_ANALYSED_TOGETHER triggers at a time,
 * yielding in between, each step seeing the retirements the one before applied; the slot index is
 * built once per group. A step also stops once its triggers' analysis would meet
 * ANALYSIS_STEP_CLAIMS claims (see analysisCost: a count, so a run splits its work the same way on
 * any machine); one trigger is what a step can least be. Figures:
 * docs/performance/2026-12-02-constants.md.
 */
const TRIGGERS_READ_TOGETHER = 400;
const TRIGGERS_ANALYSED_TOGETHER = 8;
/**
 * Claims met by one analysis step at most (unless its first trigger alone meets more): it bounds
 * how long a step holds the process, about 10-20 ms at the cost per claim measured by
 * `npm run bench:drain` (docs/performance/2026-12-02-constants.md).
 */
const ANALYSIS_STEP_CLAIMS = 20_000;
/**
 * Longest the reading of claims and statements, the slot index and the analysis hold the process
 * between two yields to the requests it serves: a slice of time, not a count of facts or claims,
 * since what each costs varies with the facts.
 */
const READING_SLICE_MS = 4;

/** The slot and meaning keys a trigger is read by. */
const keysOf = (f: DetectorFact) => [...new Set([...f.match_keys, ...probesOf(f)])];
/** Keys of a claim (`c:duration:timeout@billing-api`), read deep, as opposed to keys by statement, dependency, value or mention. */
const isSlotKey = (k: string) => k.startsWith('c:');

/**
 * Triggers in groups that share no slot key with each other (each group: triggers linked by a
 * shared slot). Triggers of one slot share its timeline, so analysing them together costs about
 * what one costs; triggers tied only by a broad key (meaning, statement) would each bring
 * timelines of their own, and a step that large holds the process.
 */
export function groupBySharedSlots(triggers: readonly DetectorFact[]): DetectorFact[][] {
  const groupOfKey = new Map<string, number>();
  const parent: number[] = [];
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  triggers.forEach((trigger, i) => {
    parent.push(i);
    for (const key of keysOf(trigger).filter(isSlotKey)) {
      const other = groupOfKey.get(key);
      if (other === undefined) groupOfKey.set(key, i);
      else parent[find(i)] = find(other);
    }
  });
  const groups = new Map<number, DetectorFact[]>();
  triggers.forEach((trigger, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), trigger]));
  return [...groups.values()];
}

/**
 * The deterministic pass of a run: its triggers grouped by shared slot, each group read once with
 * its slots, then analysed and applied in steps, so no step holds the process (and the requests it
 * serves) for long, and each step sees what the one before settled.
 */
export async function runDeterministicPass(
  services: DetectionServices,
  input: RunInput,
  now = new Date(),
): Promise<RunStats> {
  const tenant = forWorkspace(services.db, input.workspaceId);
  const totals = { factsRead: 0, conflictsRaised: 0, factsRetired: 0 };
  const order = new Map(input.triggerFactIds.map((id, i) => [id, i]));
  const read = await factsByIds(tenant, input.triggerFactIds);
  // In the run's order (the database returns them in any), grouped by shared slots across the whole
  // run; each step reads its triggers' rows again, with their slots.
  const current = read.filter((f) => f.valid_until === null && f.durability === 'durable').sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const chunks = <T>(list: readonly T[], size: number) => Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
  for (const group of groupBySharedSlots(current).flatMap((g) => chunks(g, TRIGGERS_READ_TOGETHER))) {
    // Slot keys read deep (a slot's timeline); keys by meaning and by statement read the newest few.
    const keys = [...new Set(group.flatMap(keysOf))];
    const slotKeys = keys.filter(isSlotKey);
    const otherKeys = keys.filter((k) => !slotKeys.includes(k));
    const [rows, bySlot, byMeaning] = await Promise.all([
      factsByIds(tenant, group.map((t) => t.id)),
      factsMatching(tenant, slotKeys, FACTS_PER_KEY),
      factsMatching(tenant, otherKeys, FACTS_PER_MEANING_KEY),
    ]);
    // A trigger an earlier step (or anything since the run began) settled is history now.
    const triggers = rows.filter((t) => t.valid_until === null && t.durability === 'durable').sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    if (triggers.length === 0) continue;
    // The triggers' own rows stand for them, so a retirement noted below is seen by every step.
    const facts = [...new Map([...bySlot, ...byMeaning, ...triggers].map((f) => [f.id, f])).values()];
    const byId = new Map(facts.map((f) => [f.id, f]));
    totals.factsRead += facts.length;
    // Each fact's claims and statements are read once, a slice of time at a time between requests
    // (all at once, inside the first step, the first step of a group of 1,500-2,600 facts held the
    // process for 60-80 ms).
    let sliceStart = performance.now();
    const sliceUsed = () => performance.now() - sliceStart >= READING_SLICE_MS;
    // The work of the slice (not the database's answers it waited for) is what yielding accounts for.
    const nextSlice = async (worked = performance.now() - sliceStart) => {
      await yieldTurn(worked);
      sliceStart = performance.now();
    };
    // Runs a computation in steps to its end, a slice of time at a time.
    const inSlices = async <T>(steps: Generator<void, T>): Promise<T> => {
      for (let step = steps.next(); ; step = steps.next()) {
        if (step.done) return step.value;
        if (sliceUsed()) await nextSlice();
      }
    };
    for (const fact of facts) {
      viewOf(fact);
      if (sliceUsed()) await nextSlice();
    }
    // The slot index, likewise a slice of time at a time (in one piece it held the process for
    // 70-110 ms under a 50-client load).
    const index = await inSlices(indexingSteps(facts));
    for (let at = 0; at < triggers.length; ) {
      // The triggers still current (an earlier step may have settled some), up to the step's budget.
      const live: DetectorFact[] = [];
      for (let cost = 0; at < triggers.length && live.length < TRIGGERS_ANALYSED_TOGETHER; at++) {
        const trigger = triggers[at]!;
        if (trigger.valid_until !== null) continue;
        const own = analysisCost(trigger, index);
        if (live.length > 0 && cost + own > ANALYSIS_STEP_CLAIMS) break;
        live.push(trigger);
        cost += own;
      }
      if (live.length === 0) continue;
      const triggerIds = new Set(live.map((t) => t.id));
      // The analysis too (one trigger of a crowded slot is ten thousand comparisons).
      const outcome = withAnnouncedUpdates(mergeOutcomes(await inSlices(analysisSteps(facts, triggerIds, index)), analyzeStatements(facts, triggerIds)), facts, triggerIds);
      // Nothing to apply: no transaction (most steps of a busy workspace's backlog).
      if (outcome.retirements.length === 0 && outcome.conflicts.length === 0) {
        await nextSlice();
        continue;
      }
      const worked = performance.now() - sliceStart;
      const { retired, raised } = await tenant.transaction(async (tx) => {
        // A reversal comes back to a value the detector had settled away: that fact is true again.
        for (const c of outcome.conflicts) {
          if (c.kind !== 'reversal') continue;
          for (const id of c.factIds) {
            const fact = byId.get(id);
            if (fact?.retired_by !== 'detector' || fact.valid_until === null || !(await restoreRetiredFact(tx, id))) continue;
            fact.valid_until = null;
            fact.retired_by = 'restored';
          }
        }
        const closed = new Set(await applyRetirements(tx, outcome.retirements));
        // Each settlement is recorded as the detector's doing, listed with the conflicts and undone like a resolution.
        const settlements = outcome.retirements.filter((r) => closed.has(r.factId)).map((r) => settlementRecord(r, byId));
        const created = await insertConflicts(tx, [...outcome.conflicts, ...settlements]);
        if (closed.size > 0) await resolveSettledConflicts(tx, now, [...closed]);
        return { retired: closed.size, raised: created.length };
      });
      // What this step retired is history for the next (the database closed it, or found it closed).
      for (const r of outcome.retirements) {
        const fact = byId.get(r.factId);
        if (fact && fact.valid_until === null) {
          fact.valid_until = r.at;
          fact.retired_by = 'detector';
          fact.retired_for_fact_id = r.byFactId;
        }
      }
      totals.conflictsRaised += raised;
      totals.factsRetired += retired;
      await nextSlice(worked);
    }
  }
  // Conflicts whose facts closed outside the detector (a correction, a deletion, an expiry) are
  // settled too, once per run.
  await resolveSettledConflicts(tenant, now);
  if (totals.factsRetired > 0 || totals.conflictsRaised > 0) {
    services.log.info(
      { workspace_id: input.workspaceId, run_id: input.runId, retired: totals.factsRetired, raised: totals.conflictsRaised },
      'detection applied',
    );
  }
  return totals;
}

/** A settlement as it is listed: a resolved conflict of the two facts, kept by the later one. */
function settlementRecord(r: RetirementRecord, byId: ReadonlyMap<string, DetectorFact>): ConflictRecord {
  const clip = (f: DetectorFact | undefined) => (f ? (f.content.length > 160 ? `${f.content.slice(0, 157)}…` : f.content) : 'a later fact');
  return {
    kind: 'probable_update',
    detectedBy: 'narrative_rules',
    severity: 'low',
    factIds: [r.factId, r.byFactId],
    question: `Settled by the detector: "${clip(byId.get(r.factId))}" was replaced by "${clip(byId.get(r.byFactId))}". If the earlier fact still holds, undo it.`,
    explanation: `The detector retired the earlier fact because ${r.reason}.`,
    settledBy: { factId: r.byFactId, reason: `Settled by the detector: ${r.reason}.`, at: r.at },
  };
}

/**
 * The slot tiers' and the statement tiers' decisions as one: a fact retires once, and a conflict
 * naming a fact that the *other* tier retired in the same step is not raised (a reversal names
 * the earlier fact its own tier settled, on purpose).
 */
export function mergeOutcomes(
  slots: { retirements: RetirementRecord[]; conflicts: ConflictRecord[] },
  statements: { retirements: RetirementRecord[]; conflicts: ConflictRecord[] },
): { retirements: RetirementRecord[]; conflicts: ConflictRecord[] } {
  const bySlots = new Set(slots.retirements.map((r) => r.factId));
  const byStatements = new Set(statements.retirements.map((r) => r.factId));
  return {
    retirements: [...slots.retirements, ...statements.retirements.filter((r) => !bySlots.has(r.factId))],
    conflicts: [
      ...slots.conflicts.filter((c) => !c.factIds.some((id) => byStatements.has(id) && !bySlots.has(id))),
      // One conflict per confusion: a question whose facts a slot conflict already holds (not a probable update's) adds nothing.
      ...statements.conflicts.filter((c) => !c.factIds.some((id) => bySlots.has(id)) &&
        (c.kind === 'probable_update' || !slots.conflicts.some((k) => k.kind !== 'probable_update' && c.factIds.every((id) => k.factIds.includes(id))))),
    ],
  };
}

/**
 * One detection run: the deterministic tiers, then — when the server has a detective — the
 * narrative pass. A narrative failure fails the run (its job is retried; what was found is kept
 * and never raised twice) with the tokens it spent on record.
 */
export async function runDetection(
  services: DetectionServices & { detective?: NarrativeDetective },
  input: RunInput,
  now = new Date(),
): Promise<RunStats> {
  const deterministic = await runDeterministicPass(services, input, now);
  if (!services.detective) return deterministic;
  const tenant = forWorkspace(services.db, input.workspaceId);
  const merge = (narrative: Partial<RunStats>): RunStats => ({
    ...deterministic,
    ...narrative,
    factsRead: deterministic.factsRead + (narrative.storyFacts ?? 0),
    conflictsRaised: deterministic.conflictsRaised + (narrative.conflictsRaised ?? 0),
    factsRetired: deterministic.factsRetired,
  });
  try {
    return merge(await runNarrativePass({ ...services, tenant }, services.detective, { ...input, now: input.startedAt ?? now }));
  } catch (error) {
    if (error instanceof NarrativeFailure) throw new NarrativeFailure(error.message, merge(error.stats));
    throw error;
  }
}

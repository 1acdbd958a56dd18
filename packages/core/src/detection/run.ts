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
  type ConflictRecord,
  type Database,
  type DetectorFact,
  type RetirementRecord,
  type RunStats,
} from '@engram/db';
import type { Logger } from '../logger.ts';
import { probeKeysOf } from '../facts/entities.ts';
import { analyzeSlots } from './deterministic.ts';
import { analyzeStatements } from './statements.ts';
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
 * Most triggers analysed in one step. Analysis is synchronous, and a crowded slot's timeline costs
 * tens of milliseconds, so with an in-process worker a big step stalls every request the process
 * serves: at 10,000 facts (npm run bench) steps of 100 unrelated triggers gave commits a p99 of
 * 163 ms and queries 211 ms; steps of 1 give 20 ms and 16 ms. So a step is one trigger, or the
 * triggers of the run that share a slot key, up to this many: their slots are read and analysed
 * once, together (a busy workspace's backlog restates the same few subjects; one at a time, a run
 * read each crowded slot once per trigger).
 */
const TRIGGERS_PER_STEP = 25;
/** Trigger rows read per statement when a run starts. */
const TRIGGERS_READ_AT_ONCE = 500;

/** The slot and meaning keys a trigger is read by. */
const keysOf = (f: DetectorFact) => [...new Set([...f.match_keys, ...probeKeysOf(f.entities)])];
/** Slot keys (`count:auth:pool`) as opposed to keys by meaning, statement, dependency or value. */
const isSlotKey = (k: string) => /^[a-z_]+:[^:]/.test(k) && !k.startsWith('pos:') && !k.startsWith('neg:') && !k.startsWith('dep:') && !k.startsWith('val:');

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
 * The deterministic pass of a run, in steps: each step's triggers (one, or several sharing a slot)
 * are read with their slots, analysed and applied before the next, so no step holds the process
 * (and the requests it serves) for long, and each step sees what the one before settled.
 */
export async function runDeterministicPass(
  services: DetectionServices,
  input: RunInput,
  now = new Date(),
): Promise<RunStats> {
  const tenant = forWorkspace(services.db, input.workspaceId);
  const totals = { factsRead: 0, conflictsRaised: 0, factsRetired: 0 };
  const order = new Map(input.triggerFactIds.map((id, i) => [id, i]));
  const read: DetectorFact[] = [];
  for (let start = 0; start < input.triggerFactIds.length; start += TRIGGERS_READ_AT_ONCE) {
    read.push(...(await factsByIds(tenant, input.triggerFactIds.slice(start, start + TRIGGERS_READ_AT_ONCE))));
  }
  // In the run's order (the database returns them in any), grouped by shared slots across the whole
  // run; each step reads its triggers' rows again, with their slots.
  const current = read.filter((f) => f.valid_until === null && f.durability === 'durable').sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const steps = groupBySharedSlots(current).flatMap((group) =>
    Array.from({ length: Math.ceil(group.length / TRIGGERS_PER_STEP) }, (_, i) => group.slice(i * TRIGGERS_PER_STEP, (i + 1) * TRIGGERS_PER_STEP)),
  );
  for (const step of steps) {
    // Slot keys read deep (a slot's timeline); keys by meaning and by statement read the newest few.
    const keys = [...new Set(step.flatMap(keysOf))];
    const slotKeys = keys.filter(isSlotKey);
    const otherKeys = keys.filter((k) => !slotKeys.includes(k));
    const [rows, bySlot, byMeaning] = await Promise.all([
      factsByIds(tenant, step.map((t) => t.id)),
      factsMatching(tenant, slotKeys, FACTS_PER_KEY),
      factsMatching(tenant, otherKeys, FACTS_PER_MEANING_KEY),
    ]);
    // A trigger an earlier step (or anything since the run began) settled is history now.
    const triggers = rows.filter((t) => t.valid_until === null && t.durability === 'durable').sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    if (triggers.length === 0) continue;
    const facts = [...new Map([...bySlot, ...byMeaning, ...triggers].map((f) => [f.id, f])).values()];
    const triggerIds = new Set(triggers.map((t) => t.id));
    const outcome = mergeOutcomes(analyzeSlots(facts, triggerIds), analyzeStatements(facts, triggerIds));
    const { retired, raised } = await tenant.transaction(async (tx) => {
      const closed = await applyRetirements(tx, outcome.retirements);
      const created = await insertConflicts(tx, outcome.conflicts);
      if (closed > 0) await resolveSettledConflicts(tx, now);
      return { retired: closed, raised: created.length };
    });
    totals.factsRead += facts.length;
    totals.conflictsRaised += raised;
    totals.factsRetired += retired;
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (totals.factsRetired > 0 || totals.conflictsRaised > 0) {
    services.log.info(
      { workspace_id: input.workspaceId, run_id: input.runId, retired: totals.factsRetired, raised: totals.conflictsRaised },
      'detection applied',
    );
  }
  return totals;
}

/**
 * The slot tiers' and the statement tiers' decisions as one: a fact retires once, and a conflict
 * naming a fact that the *other* tier retired in the same step is not raised (a reversal names
 * the earlier fact its own tier settled, on purpose).
 */
function mergeOutcomes(
  slots: { retirements: RetirementRecord[]; conflicts: ConflictRecord[] },
  statements: { retirements: RetirementRecord[]; conflicts: ConflictRecord[] },
): { retirements: RetirementRecord[]; conflicts: ConflictRecord[] } {
  const bySlots = new Set(slots.retirements.map((r) => r.factId));
  const byStatements = new Set(statements.retirements.map((r) => r.factId));
  return {
    retirements: [...slots.retirements, ...statements.retirements.filter((r) => !bySlots.has(r.factId))],
    conflicts: [
      ...slots.conflicts.filter((c) => !c.factIds.some((id) => byStatements.has(id) && !bySlots.has(id))),
      ...statements.conflicts.filter((c) => !c.factIds.some((id) => bySlots.has(id))),
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

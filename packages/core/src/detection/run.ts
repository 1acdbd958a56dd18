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
  type Database,
  type RunStats,
} from '@engram/db';
import type { Logger } from '../logger.ts';
import { analyzeSlots } from './deterministic.ts';

/** Most facts a run reads per match key (newest first); a slot's timeline keeps its newest 100 claims. */
const FACTS_PER_KEY = 200;

export interface DetectionServices {
  db: Database;
  log: Logger;
}

export interface RunInput {
  runId: string;
  workspaceId: string;
  triggerFactIds: readonly string[];
}

/** The deterministic pass of a run. */
export async function runDeterministicPass(services: DetectionServices, input: RunInput, now = new Date()): Promise<RunStats> {
  const tenant = forWorkspace(services.db, input.workspaceId);
  const triggers = (await factsByIds(tenant, input.triggerFactIds)).filter(
    (f) => f.valid_until === null && f.durability === 'durable',
  );
  const keys = [...new Set(triggers.flatMap((f) => f.match_keys))];
  const inSlots = await factsMatching(tenant, keys, FACTS_PER_KEY);
  const known = new Set(inSlots.map((f) => f.id));
  const facts = [...inSlots, ...triggers.filter((t) => !known.has(t.id))];
  const outcome = analyzeSlots(facts, new Set(triggers.map((t) => t.id)));

  const { retired, raised } = await tenant.transaction(async (tx) => {
    const closed = await applyRetirements(tx, outcome.retirements);
    const created = await insertConflicts(tx, outcome.conflicts);
    if (closed > 0) await resolveSettledConflicts(tx, now);
    return { retired: closed, raised: created.length };
  });
  if (retired > 0 || raised > 0) {
    services.log.info({ workspace_id: input.workspaceId, run_id: input.runId, retired, raised }, 'detection applied');
  }
  return { factsRead: facts.length, conflictsRaised: raised, factsRetired: retired };
}

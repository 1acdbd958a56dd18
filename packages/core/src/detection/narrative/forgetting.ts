/**
 * The forgetting curve (SPEC §6, seed 000): which current facts the detective reads. Each fact is
 * kept with a probability by age — 0.30 under a day, 0.15 up to a week, 0.07 beyond — doubled per
 * earlier conflict it was part of (at most 1); trigger facts are always kept; when fewer than two
 * survive, the last ten facts are read instead.
 *
 * The draw for a fact is a hash of the run's seed and the fact's id, so a run is replayed exactly
 * from its recorded seed (and `now`), whatever order the facts are read in.
 */
import { hash32, hash32With } from '../../hash32.ts';

export interface CurveFact {
  id: string;
  committed_at: Date;
  /** How many conflicts the fact has been part of. */
  conflicts: number;
}

const HOUR = 3_600_000;
export const KEEP_UNDER_A_DAY = 0.3;
export const KEEP_UNDER_A_WEEK = 0.15;
export const KEEP_OLDER = 0.07;
/** When fewer than two facts survive, the detective reads this many of the newest instead. */
export const FALLBACK_FACTS = 10;

/** The probability a fact of this age and conflict history is kept. */
export function keepProbability(ageMs: number, conflicts: number): number {
  const base = ageMs < 24 * HOUR ? KEEP_UNDER_A_DAY : ageMs < 7 * 24 * HOUR ? KEEP_UNDER_A_WEEK : KEEP_OLDER;
  return Math.min(1, base * 2 ** conflicts);
}

/**
 * The fact's draw in [0, 1) for this seed: a fast non-cryptographic hash of `seed:id` (nothing here
 * is secret), uniform and cheap enough for 100,000 facts in a few milliseconds (sha256 took 170 ms).
 */
export function draw(seed: string, factId: string): number {
  return hash32(`${seed}:${factId}`) / 2 ** 32;
}

export interface Survivor<F extends CurveFact> {
  fact: F;
  /** The fact's draw divided by its keep probability: below 1 means kept; lower is kept more surely. */
  rank: number;
  trigger: boolean;
  /** Evidence for a trigger (always shown, like the triggers). */
  evidence?: boolean;
}

/** Applies the curve; survivors come oldest first. */
export function applyForgetting<F extends CurveFact>(
  facts: readonly F[],
  options: { seed: string; now: Date; triggerIds: ReadonlySet<string> },
): Survivor<F>[] {
  // draw(seed, id), with the seed's share of the hash computed once (100,000 facts per run).
  const drawOf = hash32With(`${options.seed}:`);
  const now = options.now.getTime();
  const rankValue = (fact: F) => drawOf(fact.id) / 2 ** 32 / keepProbability(now - fact.committed_at.getTime(), fact.conflicts);
  const rankOf = (fact: F) => ({ fact, rank: rankValue(fact), trigger: options.triggerIds.has(fact.id) });
  // Objects only for the kept facts (most of 100,000 are not); for all of them only in the fallback.
  let kept: Survivor<F>[] = [];
  for (const fact of facts) {
    const rank = rankValue(fact);
    const trigger = options.triggerIds.has(fact.id);
    if (trigger || rank < 1) kept.push({ fact, rank, trigger });
  }
  if (kept.length < 2) {
    const ranked = facts.map(rankOf);
    const newest = [...ranked].sort((a, b) => b.fact.committed_at.getTime() - a.fact.committed_at.getTime()).slice(0, FALLBACK_FACTS);
    const ids = new Set(newest.map((r) => r.fact.id));
    kept = ranked.filter((r) => ids.has(r.fact.id) || r.trigger || r.rank < 1);
  }
  return kept.sort((a, b) => a.fact.committed_at.getTime() - b.fact.committed_at.getTime() || a.fact.id.localeCompare(b.fact.id));
}

/**
 * The deterministic tiers alone, in this process, with no database: the part of a detection run
 * that grows with how crowded a workspace's slots are, timed without a database's noise.
 *
 *   npm run bench:tiers                              # 3,000 facts, then 300 triggers, 5 runs
 *   npm run bench:tiers -- --size 10000 --burst 1800 --runs 2
 *
 * Reads `--size` facts of the benchmark story (test/bench/story.ts, the facts `npm run bench:drain`
 * seeds) and `--burst` more, one a minute, as at commit. The first facts are the workspace's
 * history; the burst is analysed in commit order eight triggers at a time (a run's step), over one
 * index of every fact, each step's retirements applied before the next. Prints each run's time
 * and a digest of every retirement and conflict, so two builds can be checked for the same
 * outcomes as well as timed.
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { analyzeSlots, analyzeStatements, indexSlots, mergeOutcomes, withAnnouncedUpdates } from '@engram/core';
import type { DetectorFact } from '@engram/db';
import { detectorFact } from '../support/detector-facts.ts';
import { fmt, median } from './stats.ts';
import { factText } from './story.ts';

const { values: args } = parseArgs({
  options: { size: { type: 'string', default: '3000' }, burst: { type: 'string', default: '300' }, runs: { type: 'string', default: '5' } },
});
const [SIZE, BURST, RUNS] = [Number(args.size), Number(args.burst), Number(args.runs)];
if (![SIZE, BURST, RUNS].every((n) => Number.isInteger(n) && n >= 1)) throw new Error('--size, --burst and --runs must be whole numbers of at least 1');

/** Triggers analysed together, as a run's step analyses them (TRIGGERS_ANALYSED_TOGETHER in detection/run.ts). */
const STEP = 8;
const texts = [...Array.from({ length: SIZE }, (_, n) => factText(n)), ...Array.from({ length: BURST }, (_, i) => factText(1_000_000 + i))];
const facts = (): DetectorFact[] =>
  texts.map((t, i) =>
    detectorFact(t.content, { scope: t.scope, agent: `bench-agent-${i % 50}`, hoursAgo: (texts.length - i) / 60, id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }),
  );

const times: number[] = [];
let digest = '';
for (let run = 1; run <= RUNS; run++) {
  const all = facts();
  const byId = new Map(all.map((f) => [f.id, f]));
  const outcomes: string[] = [];
  const started = performance.now();
  const index = indexSlots(all);
  for (let at = SIZE; at < all.length; at += STEP) {
    const triggerIds = new Set(all.slice(at, at + STEP).filter((f) => f.valid_until === null).map((f) => f.id));
    const slots = analyzeSlots(all, triggerIds, index);
    const outcome = withAnnouncedUpdates(mergeOutcomes(slots, analyzeStatements(all, triggerIds)), all, triggerIds);
    for (const r of outcome.retirements) {
      const fact = byId.get(r.factId)!;
      if (fact.valid_until !== null) continue;
      Object.assign(fact, { valid_until: r.at, retired_by: 'detector', retired_for_fact_id: r.byFactId });
      outcomes.push(`retired ${r.factId} by ${r.byFactId}: ${r.reason}`);
    }
    for (const c of outcome.conflicts) outcomes.push(`${c.kind} ${c.factIds.join(',')}: ${c.question}`);
  }
  times.push(performance.now() - started);
  digest = createHash('sha256').update(outcomes.join('\n')).digest('hex').slice(0, 12);
  process.stdout.write(`run ${run}: ${fmt(times.at(-1)!)}, ${outcomes.filter((o) => o.startsWith('retired')).length} retired, ${outcomes.filter((o) => !o.startsWith('retired')).length} conflicts, outcomes ${digest}\n`);
}
process.stdout.write(`The tiers over ${BURST.toLocaleString('en')} triggers after ${SIZE.toLocaleString('en')} facts: median ${fmt(median(times))} of ${RUNS} runs (outcomes ${digest})\n`);

/**
 * The deterministic tiers over story sets in this process, with no service and no database: a
 * few seconds for every set, for working on rules. Each story's facts (and the filler) are read
 * as at commit, analysed in import order eight triggers at a time (as a run analyses them), the
 * retirements applied between steps, and the outcome scored as `npm run eval:detection` scores
 * it. What the database adds is left out: a conflict set raised before is skipped here by its
 * kind and facts only (insertConflicts also skips a question an open one already asks), so a
 * set may show a false alarm or two more than the service. The service's eval is the measure of
 * record; this is the loop to try a rule in.
 *
 *   npm run eval:detection:fast -- [FILE ...] [--problems]
 *
 * Without FILE, the dev sets of test/data/detection. A sealed set's totals only, never its problems.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { analysisSteps, analyzeStatements, indexingSteps, mergeOutcomes, withAnnouncedUpdates } from '@engram/core';
import { VALUE_QUESTIONS } from '@engram/db';
import { detectorFact } from '../support/detector-facts.ts';
import { formatKindTable, formatProblems, loadStories, scoreStory, summarize, type Story, type StoryObservation, type StoryFact, type StoryOutcome } from './stories.ts';

const DATA = path.join(import.meta.dirname, '../data/detection');
const SEALED = path.join(DATA, 'sealed');
const { values, positionals } = parseArgs({ allowPositionals: true, options: { problems: { type: 'boolean', default: false } } });
const files = positionals.length > 0 ? positionals : fs.readdirSync(DATA).filter((f) => f.endsWith('-stories.json')).sort().map((f) => path.join(DATA, f));

/** Triggers analysed together, as a detection run's step analyses them (TRIGGERS_ANALYSED_TOGETHER). */
const STEP = 8;

const finish = <T>(steps: Generator<void, T>): T => {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
};

function observe(story: Story, filler: readonly StoryFact[]): StoryObservation {
  const written = [...story.facts, ...filler];
  const facts = written.map((f) => detectorFact(f.content, { scope: f.scope, agent: f.agent_id, hoursAgo: f.age_hours }));
  const keyOf = new Map(facts.map((f, i) => [f.id, written[i]!.key]));
  const byId = new Map(facts.map((f) => [f.id, f]));
  const keys = (ids: readonly string[]) => [...new Set(ids.map((id) => keyOf.get(id)!))].sort();
  const conflicts: StoryObservation['conflicts'] = [];
  const raised = new Set<string>();
  // The earlier fact of each open probable update: insertConflicts asks no value question of a fact one already doubts.
  const doubted = new Set<string>();
  for (let at = 0; at < facts.length; at += STEP) {
    const triggerIds = new Set(facts.slice(at, at + STEP).filter((f) => f.valid_until === null).map((f) => f.id));
    if (triggerIds.size === 0) continue;
    const slots = finish(analysisSteps(facts, triggerIds, finish(indexingSteps(facts))));
    const outcome = withAnnouncedUpdates(mergeOutcomes(slots, analyzeStatements(facts, triggerIds)), facts, triggerIds);
    for (const r of outcome.retirements) {
      const fact = byId.get(r.factId)!;
      if (fact.valid_until !== null) continue;
      Object.assign(fact, { valid_until: r.at, retired_by: 'detector', retired_for_fact_id: r.byFactId });
      conflicts.push({ keys: keys([r.factId, r.byFactId]), kind: 'probable_update', question: `Settled: ${r.reason}`, status: 'resolved', settled: true });
    }
    for (const c of outcome.conflicts) {
      const signature = `${c.kind} ${keys(c.factIds).join(',')}`;
      if (raised.has(signature)) continue;
      const ids = [...new Set(c.factIds)];
      if (VALUE_QUESTIONS.has(c.kind) && ids.length === 2 && ids.some((id) => doubted.has(id))) continue;
      raised.add(signature);
      if (c.kind === 'probable_update') doubted.add(ids.sort((a, b) => +byId.get(a)!.committed_at - +byId.get(b)!.committed_at)[0]!);
      conflicts.push({ keys: keys(c.factIds), kind: c.kind, question: c.question, status: 'open', settled: false });
    }
  }
  return { conflicts, current: new Set(facts.filter((f) => f.valid_until === null).map((f) => keyOf.get(f.id)!)) };
}

const sets: { name: string; outcomes: StoryOutcome[]; totalsOnly: boolean }[] = [];
for (const file of files) {
  const set = loadStories(file);
  const fillerKeys = new Set(set.filler.map((f) => f.key));
  const sealed = path.resolve(file).startsWith(SEALED + path.sep);
  const outcomes = set.stories.map((story) => scoreStory(story, fillerKeys, observe(story, set.filler)));
  sets.push({ name: `${sealed ? 'sealed/' : ''}${path.basename(file).replace(/-stories\.json$/, '')}`, outcomes, totalsOnly: sealed });
  if (values.problems && !sealed) process.stdout.write(`== ${path.basename(file)}\n${formatProblems(outcomes, summarize(outcomes))}\n`);
}
process.stdout.write(`${formatKindTable(sets)}\n`);

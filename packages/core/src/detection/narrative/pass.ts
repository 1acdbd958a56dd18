/**
 * The narrative pass of a detection run (SPEC §6): after the deterministic tiers, the detective
 * reads a sample of the workspace's current facts as a story — the forgetting curve seeded from
 * the run id, the run's new facts always in it, a story budget that keeps the cost per run bounded
 * however large the workspace grows — in batches sent in parallel under a cap, and what it finds
 * becomes conflicts (deduplicated against every conflict ever raised).
 */
import {
  forWorkspace,
  recordedRun,
  insertConflicts,
  narrativeCandidates,
  storyFacts,
  tokensSpentSince,
  workspaceSettings,
  type ConflictRecord,
  type Database,
  type NarrativeCandidate,
  type RunStats,
  type TenantDb,
} from '@engram/db';
import type OpenAI from 'openai';
import { createOpenAIClient } from '../../embeddings/factory.ts';
import type { Logger } from '../../logger.ts';
import { DEFAULT_SETTINGS } from '../../management.ts';
import { yieldTurn } from '../../turns.ts';
import { askDetective, type CallOutcome, type DetectiveCallOptions } from './ask-detective.ts';
import { gatherEvidence } from './evidence.ts';
import { applyForgetting, type Survivor } from './forgetting.ts';
import { batchStory, composeStory, fillBudget, type StoryLine } from './story.ts';

/** How the detective is set up on this server. */
export interface NarrativeDetective {
  client: OpenAI;
  call: DetectiveCallOptions;
  /** Most characters of story per run (the cost bound), across its batches. */
  storyChars: number;
  /** Story characters a run starts from, and adds per trigger fact, up to `storyChars`. */
  baseStoryChars: number;
  storyCharsPerTrigger: number;
  /** Most characters per batch. */
  batchChars: number;
  /** Lines each batch repeats from the one before. */
  overlapLines: number;
  /** Batches in flight at once. */
  concurrency: number;
}

export interface NarrativeInput {
  runId: string;
  workspaceId: string;
  triggerFactIds: readonly string[];
  /** The run's start: the curve's ages are measured from it (recorded, so a run replays exactly). */
  now: Date;
}

/** The story of a run, rebuilt from its seed: what the detective was (or would be) shown. */
export interface Story {
  lines: StoryLine[];
  batches: StoryLine[][];
  /** Survivors of the curve left out to stay within the story budget. */
  omitted: number;
  survivors: number;
  /** Facts shown as evidence for the triggers. */
  evidence: number;
}

/** A narrative pass that could not finish: its conflicts so far are stored, its job is retried. */
export class NarrativeFailure extends Error {
  readonly stats: Partial<RunStats>;
  constructor(message: string, stats: Partial<RunStats>) {
    super(message);
    this.name = 'NarrativeFailure';
    this.stats = stats;
  }
}

const CHARS_PER_LINE_OVERHEAD = 40;

type StoryDetective = Pick<NarrativeDetective, 'storyChars' | 'baseStoryChars' | 'storyCharsPerTrigger' | 'batchChars' | 'overlapLines'>;

/** The story budget of a run with this many trigger facts: it grows with the run's new facts, up to the cap. */
export const storyBudget = (detective: StoryDetective, triggers: number) =>
  Math.min(detective.storyChars, detective.baseStoryChars + detective.storyCharsPerTrigger * triggers);

/** Evidence per trigger and per run (see evidence.ts): a hot subject cannot flood the prompt. */
export const EVIDENCE_FACTS_PER_TRIGGER = 10;
export const EVIDENCE_CHARS_PER_TRIGGER = 1_800;
export const EVIDENCE_FACTS_PER_RUN = 60;

/**
 * Builds the story the detective reads for a run — deterministic given the seed, `now`, the
 * triggers and the workspace's facts, so a recorded run replays exactly. Evidence first: the
 * triggers and every fact they relate to (the same claim and its recent history, the other side
 * of a statement, shared names, facts depending on what changed, near neighbours by meaning),
 * bounded; then the forgetting curve's sample of the rest fills the remaining budget.
 */
export async function buildStory(
  tenant: TenantDb,
  detective: StoryDetective,
  input: { seed: string; now: Date; triggerFactIds: readonly string[] },
): Promise<Story> {
  const triggerIds = new Set(input.triggerFactIds);
  const budget = storyBudget(detective, triggerIds.size);
  // The background's candidates and the triggers' evidence are read at once (two connections).
  const [candidates, evidence] = await Promise.all([
    narrativeCandidates(tenant, input.now),
    gatherEvidence(tenant, input.triggerFactIds, {
      perTrigger: EVIDENCE_FACTS_PER_TRIGGER,
      perRun: EVIDENCE_FACTS_PER_RUN,
      charsPerTrigger: EVIDENCE_CHARS_PER_TRIGGER,
      charsPerRun: Math.max(EVIDENCE_CHARS_PER_TRIGGER, Math.min(detective.storyChars / 2, EVIDENCE_CHARS_PER_TRIGGER * triggerIds.size)),
    }),
  ]);
  const evidenceIds = new Set(evidence.map((e) => e.id));
  await yieldTurn();
  // The curve samples the background only: the evidence is in whatever the draws say.
  const survivors = applyForgetting(
    candidates.filter((c) => !evidenceIds.has(c.id)),
    { seed: input.seed, now: input.now, triggerIds },
  );
  const conflictsOf = new Map(candidates.filter((c) => evidenceIds.has(c.id)).map((c) => [c.id, c.conflicts]));
  const shown: Survivor<NarrativeCandidate>[] = [
    ...survivors,
    ...evidence
      .filter((e) => !triggerIds.has(e.id))
      .map((e) => ({ fact: { id: e.id, committed_at: e.committed_at, conflicts: conflictsOf.get(e.id) ?? 0, chars: e.chars }, rank: 0, trigger: false, evidence: true })),
  ];
  await yieldTurn();
  // Read contents only for the facts that can fit (by their length), most wanted first.
  // JSON escaping can lengthen a content a little: estimate generously, compose exactly below.
  const lineCost = (s: Survivor<NarrativeCandidate>) => Math.ceil(s.fact.chars * 1.1) + CHARS_PER_LINE_OVERHEAD;
  const wanted = fillBudget(shown, new Set(), budget * 1.1, lineCost);
  const contents = new Map((await storyFacts(tenant, wanted.map((s) => s.fact.id))).map((f) => [f.id, f]));
  const full = wanted
    .filter((s) => contents.has(s.fact.id))
    .map((s) => ({ ...s, fact: { ...contents.get(s.fact.id)!, conflicts: s.fact.conflicts } }))
    .sort((a, b) => a.fact.committed_at.getTime() - b.fact.committed_at.getTime() || a.fact.id.localeCompare(b.fact.id));
  await yieldTurn();
  const { lines, omitted } = composeStory(full, {
    budgetChars: budget,
    related: new Set(),
    universe: (function* () {
      for (const c of candidates) yield c.id;
    })(),
  });
  return {
    lines,
    batches: batchStory(lines, { maxChars: detective.batchChars, overlapLines: detective.overlapLines }),
    omitted: shown.length - wanted.length + omitted,
    survivors: survivors.length,
    evidence: evidence.length,
  };
}

/**
 * The story a recorded run showed (or, with the narrative pass off, would have shown): rebuilt
 * from its seed, start and triggers. Null when there is no such run or it recorded no seed.
 */
export async function replayStory(db: Database, detective: StoryDetective, runId: string): Promise<Story | null> {
  const run = await recordedRun(db, runId);
  if (!run?.seed) return null;
  return buildStory(forWorkspace(db, run.workspaceId), detective, { seed: run.seed, now: run.startedAt, triggerFactIds: run.triggerFactIds });
}

const SEVERITY = { reversal: 'high', ambiguity: 'high', stale: 'medium' } as const;

/** The workspace's detective tokens today (UTC) against its daily budget. */
export async function detectiveBudget(db: Database, tenant: TenantDb, now = new Date()) {
  const settings = { ...DEFAULT_SETTINGS, ...(await workspaceSettings(db, tenant.workspaceId)) };
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const spent = await tokensSpentSince(tenant, dayStart);
  const limit = settings.detective_daily_token_budget;
  const paused = spent >= limit;
  return {
    spent,
    limit,
    paused,
    message: paused
      ? `paused: the workspace spent ${spent} of its ${limit} daily detective tokens (the narrative pass resumes at 00:00 UTC; deterministic checks keep running; an owner can raise detective_daily_token_budget)`
      : null,
  };
}

/** Runs the detective over the run's story and stores what it finds. */
export async function runNarrativePass(
  services: { db: Database; log: Logger; tenant: TenantDb },
  detective: NarrativeDetective,
  input: NarrativeInput,
): Promise<Partial<RunStats>> {
  const { tenant, log } = services;
  const budget = await detectiveBudget(services.db, tenant, input.now);
  if (budget.paused) return { narrative: budget.message };

  const story = await buildStory(tenant, detective, { seed: input.runId, now: input.now, triggerFactIds: input.triggerFactIds });
  const stats: Partial<RunStats> = {
    seed: input.runId,
    narrative: 'ran',
    storyFacts: story.lines.length,
    batches: story.batches.length,
    failedBatches: 0,
    llmCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
  };
  if (story.lines.length < 2) return { ...stats, narrative: 'ran: fewer than two current facts, nothing to read' };

  const outcomes = await mapLimited(story.batches, detective.concurrency, (batch) =>
    askDetective(detective.client, batch.map((l) => l.text).join('\n'), detective.call),
  );
  const conflicts: ConflictRecord[] = [];
  const failures: string[] = [];
  outcomes.forEach((outcome: CallOutcome, i) => {
    stats.llmCalls! += outcome.attempts;
    stats.promptTokens! += outcome.promptTokens;
    stats.completionTokens! += outcome.completionTokens;
    if (!outcome.reply) {
      failures.push(`batch ${i + 1} of ${story.batches.length}: ${outcome.error ?? 'no reply'}`);
      return;
    }
    // Ids are this batch's: anything else the model names is dropped.
    const inBatch = new Map(story.batches[i]!.map((l) => [l.shortId.toLowerCase(), l.factId]));
    for (const confusion of outcome.reply.confusions) {
      const factIds = [...new Set(confusion.fact_ids.map((id) => inBatch.get(id.replace(/^\[|\]$/g, '').toLowerCase())).filter((id): id is string => !!id))];
      if (factIds.length < 2) continue;
      conflicts.push({
        kind: confusion.kind,
        detectedBy: 'narrative_llm',
        severity: SEVERITY[confusion.kind],
        question: confusion.question,
        explanation: `Found by the narrative detective (${detective.call.model}) reading ${story.lines.length} facts of the workspace's story.`,
        factIds,
      });
    }
  });
  const raised = conflicts.length ? await tenant.transaction((tx) => insertConflicts(tx, conflicts)) : [];
  stats.conflictsRaised = raised.length;
  if (failures.length) {
    stats.failedBatches = failures.length;
    log.warn({ workspace_id: input.workspaceId, run_id: input.runId, failures }, 'narrative batches failed');
    throw new NarrativeFailure(`narrative detective: ${failures.join('; ')}`, stats);
  }
  return stats;
}

/** Maps with at most `limit` promises in flight, results in input order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}

/** Story batch size (SPEC §6: at most 24,000 characters) and overlap. */
export const BATCH_CHARS = 24_000;
export const OVERLAP_LINES = 5;
/**
 * A run's story: 1,500 characters (about 400 tokens) plus 1,000 per new fact, up to
 * ENGRAM_DETECTIVE_STORY_CHARS — a lone commit gets a short story around itself, a burst a longer
 * one, and no run costs more than the cap however large the workspace grows.
 */
export const BASE_STORY_CHARS = 1_500;
export const STORY_CHARS_PER_TRIGGER = 1_000;

/** The detective this server runs, or undefined when it has no OPENAI_API_KEY (the narrative pass is off). */
export function createDetective(
  config: { openai: { apiKey: string | undefined; baseUrl: string | undefined; detectiveModel: string; detectiveStoryChars: number; detectiveConcurrency: number } },
  overrides: Partial<DetectiveCallOptions> = {},
): NarrativeDetective | undefined {
  const client = createOpenAIClient(config);
  if (!client) return undefined;
  return {
    client,
    call: { model: config.openai.detectiveModel, timeoutMs: 60_000, attempts: 4, ...overrides },
    storyChars: config.openai.detectiveStoryChars,
    baseStoryChars: BASE_STORY_CHARS,
    storyCharsPerTrigger: STORY_CHARS_PER_TRIGGER,
    batchChars: BATCH_CHARS,
    overlapLines: OVERLAP_LINES,
    concurrency: config.openai.detectiveConcurrency,
  };
}

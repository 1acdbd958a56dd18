/**
 * What the narrative detective costs: prompt tokens sent per commit, amortized, as the workspace
 * grows.
 *
 *   npm run bench:detective                              # 1,000 / 10,000 / 100,000 facts
 *   npm run bench:detective -- --sizes 10000 --burst 100 --lone 10
 *
 * For each size: seeds a workspace (test/bench/seed.ts; facts a minute apart, so ages span
 * minutes to ~70 days at 100,000), starts the real detection worker with the real detective
 * against a local OpenAI-compatible server that counts tokens with gpt-4o-mini's tokenizer
 * (o200k_base) and answers "no confusions", then
 *   - a burst: `--burst` commits through the commit pipeline from 8 concurrent agents, and waits
 *     for detection to drain: prompt tokens of every run it caused / commits;
 *   - lone commits: `--lone` commits, each after the previous one's run finished (the worst case:
 *     no coalescing), with the median prompt tokens and the median time to build one such run's
 *     story (evidence and background, without the model call);
 *   - the seed design for comparison: the whole forgetting-curve story (no budget) sent on every
 *     commit, counted the same way.
 * Needs Postgres with pgvector where it may create databases (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  applyForgetting,
  batchStory,
  BATCH_CHARS,
  buildStory,
  commitFact,
  CommitInput,
  composeStory,
  createDetective,
  OVERLAP_LINES,
  silentLogger,
  startDetectionWorker,
  SYSTEM_PROMPT,
  userPrompt,
} from '@engram/core';
import { loadConfig } from '@engram/config';
import { forWorkspace, narrativeCandidates, queryRows, storyFacts } from '@engram/db';
import { sql } from 'drizzle-orm';
import { chatReply, countTokens, startFakeOpenAI } from '../support/fake-openai.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import { BENCH_SECRET, factText, seededWorkspace } from './seed.ts';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    burst: { type: 'string', default: '100' },
    lone: { type: 'string', default: '10' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const BURST = Number(args.burst);
const LONE = Number(args.lone);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const AGENTS = 8;

const fake = await startFakeOpenAI();
fake.defaultChat = (body) => chatReply(body, '{"confusions":[]}');
const config = loadConfig({ ENGRAM_SECRET: BENCH_SECRET, OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: fake.baseUrl, LOG_LEVEL: 'silent' });
const detective = createDetective(config)!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rows: string[][] = [];

for (const size of SIZES) {
  const url = await createScratchDatabase(ADMIN_URL, 'engram_bench_detective');
  const { handle, workspaceId, principal, services } = await seededWorkspace(url, size, { name: 'detective cost bench', maxConnections: 8 });
  try {
    const worker = startDetectionWorker({ db: handle.db, log: silentLogger, detective }, { pollMs: 50 });
    let serial = size;
    const commit = async (agent: number) => {
      const { content, scope } = factText(serial++);
      return commitFact(services, principal, CommitInput.parse({ content, scope, confidence: 0.9, agent_id: `agent-${agent}` }));
    };
    const drained = async () => {
      for (;;) {
        const [left] = await queryRows<{ n: number }>(
          handle.db,
          sql`select count(*)::int as n from detection_jobs where workspace_id = ${workspaceId} and status in ('pending', 'running')`,
        );
        if (Number(left!.n) === 0) return;
        await sleep(50);
      }
    };
    const spentSince = async (since: Date) => {
      const [r] = await queryRows<{ runs: number; calls: number; prompt: number; completion: number; story: number; failed: number; ms: number }>(
        handle.db,
        sql`select count(*)::int as runs, coalesce(sum(llm_calls), 0)::int as calls, coalesce(sum(prompt_tokens), 0)::int as prompt,
                   coalesce(sum(completion_tokens), 0)::int as completion, coalesce(sum(story_facts), 0)::int as story,
                   count(*) filter (where status = 'failed')::int as failed,
                   coalesce(percentile_cont(0.5) within group (order by duration_ms), 0)::int as ms
            from detection_runs where workspace_id = ${workspaceId} and started_at >= ${since.toISOString()}::timestamptz`,
      );
      return { runs: Number(r!.runs), calls: Number(r!.calls), prompt: Number(r!.prompt), completion: Number(r!.completion), story: Number(r!.story), failed: Number(r!.failed), medianRunMs: Number(r!.ms) };
    };

    // The burst: BURST commits from AGENTS agents at once, as fast as the pipeline takes them.
    const burstStart = new Date();
    let next = 0;
    await Promise.all(
      Array.from({ length: AGENTS }, async (_, agent) => {
        while (next < BURST) {
          next++;
          await commit(agent);
        }
      }),
    );
    await drained();
    const burst = await spentSince(burstStart);

    // Lone commits: each waits for the previous one's run. Meanwhile, how long the event loop (which
    // serves requests when the worker runs in-process) is held at a time.
    const loneStart = new Date();
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const loneIds: string[] = [];
    const lonePrompt: number[] = [];
    for (let i = 0; i < LONE; i++) {
      const before = new Date();
      const out = await commit(i % AGENTS);
      if (out.fact_id) loneIds.push(out.fact_id);
      await sleep(400); // past the debounce, so the run is this commit's alone
      await drained();
      lonePrompt.push((await spentSince(before)).prompt);
    }
    loop.disable();
    const lone = await spentSince(loneStart);
    const loopMaxMs = Math.round(loop.max / 1e6);
    await worker.stop();

    // Building one lone commit's story (evidence and background), without the model call.
    const tenantForStory = forWorkspace(handle.db, workspaceId);
    const buildMs: number[] = [];
    for (const id of loneIds) {
      const started = performance.now();
      await buildStory(tenantForStory, detective, { seed: `bench-${id}`, now: new Date(), triggerFactIds: [id] });
      buildMs.push(performance.now() - started);
    }
    const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;

    // The seed design: the whole curve story, on every commit.
    const tenant = forWorkspace(handle.db, workspaceId);
    const now = new Date();
    const survivors = applyForgetting(await narrativeCandidates(tenant, now), { seed: 'baseline', now, triggerIds: new Set() });
    const contents = new Map((await storyFacts(tenant, survivors.map((s) => s.fact.id))).map((f) => [f.id, f]));
    const full = survivors.map((s) => ({ ...s, fact: { ...contents.get(s.fact.id)!, conflicts: s.fact.conflicts } }));
    const { lines } = composeStory(full, { budgetChars: Number.POSITIVE_INFINITY, related: new Set() });
    const batches = batchStory(lines, { maxChars: BATCH_CHARS, overlapLines: OVERLAP_LINES });
    const seedDesign = batches.reduce((n, b) => n + countTokens(SYSTEM_PROMPT) + countTokens(userPrompt(b.map((l) => l.text).join('\n'))) + 9, 0);

    rows.push([
      size.toLocaleString('en-US'),
      `${burst.runs} run${burst.runs === 1 ? '' : 's'}, ${burst.calls} calls${burst.failed ? `, ${burst.failed} failed` : ''}`,
      String(Math.round(burst.prompt / BURST)),
      String(Math.round(burst.completion / BURST)),
      String(Math.round(lone.prompt / LONE)),
      String(medianOf(lonePrompt)),
      `${Math.round(medianOf(buildMs))} ms`,
      `${lone.medianRunMs} ms`,
      `${loopMaxMs} ms`,
      `${survivors.length.toLocaleString('en-US')} facts, ${batches.length} batches`,
      String(seedDesign),
    ]);
    process.stdout.write(`${size} facts: burst ${JSON.stringify(burst)}, lone ${JSON.stringify(lone)}, event loop max ${loopMaxMs} ms, seed design ${seedDesign} tokens/commit\n`);
  } finally {
    await handle.close();
    await dropScratchDatabase(ADMIN_URL, url);
  }
}
await fake.close();

const header = ['facts', `burst of ${BURST} commits`, 'prompt tok/commit', 'completion tok/commit', `lone commit prompt tok (${LONE}, mean)`, 'lone commit prompt tok (median)', 'story build (median)', 'lone run median (both passes)', 'event loop held (max)', 'seed design story', 'seed design prompt tok/commit'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const format = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
process.stdout.write(`\nNarrative detective cost (${detective.call.model} tokenizer o200k_base; story cap ${detective.storyChars} chars, ${detective.baseStoryChars} + ${detective.storyCharsPerTrigger}/new fact):\n`);
process.stdout.write(`${format(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${rows.map(format).join('\n')}\n`);

/**
 * Retrieval benchmark on public conversations (BEAM, Coding held out; see docs/retrieval.md): does
 * `engram_query` put the turns that answer a question in its top 10, against BM25 and Postgres
 * full text search over the same facts?
 *
 *   npm run eval:retrieval -- [--variant long|short|both] [--limit-conversations N] [--one-workspace] [--json]
 *                             [--url URL --admin-token TOKEN] [--data FILE] [--concurrency 2]
 *
 * Each conversation gets a workspace per variant, as an agent's team would: its user turns are
 * imported over HTTP with their times (long: a turn is a fact; short: a sentence is a fact), the
 * service's detection is left to settle (so what the detector retires is retired when queried),
 * then every question is asked over MCP with `limit: 10`, and again with `include_history`.
 * Without --url, a service runs in this process on a fresh in-memory embedded database with its
 * detection worker and no LLM (deterministic tiers only, local embeddings).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { configFor, loadConfig } from '@engram/config';
import type { QueryOutput } from '@engram/core';
import { createLogger, startServer } from '@engram/server';
import { raiseLimits } from '../bench/limits.ts';
import { bm25Ranker, formatVariant, K, quantile, scoreRanking, summarize, byAbility, type Scored, type Summary, type SystemResult } from './retrieval-metrics.ts';
import { factsOf, goldKeys, loadRetrievalSet, oneConversation, type Conversation, type EvalFact, type Variant } from './retrieval-set.ts';
import { call } from './runner.ts';

const { values } = parseArgs({
  options: {
    variant: { type: 'string', default: 'both' },
    'limit-conversations': { type: 'string' },
    data: { type: 'string', default: path.join(import.meta.dirname, '../data/retrieval/beam-dev.json') },
    url: { type: 'string' },
    'admin-token': { type: 'string' },
    json: { type: 'boolean', default: false },
    // Conversations imported at once; queries always run one at a time (their latency is measured).
    concurrency: { type: 'string', default: '2' },
    // Longest wait for one workspace's detection to settle.
    'detection-timeout': { type: 'string', default: '900' },
    // Every conversation in one workspace, asked without a scope: a workspace of 1,500 facts or more, as a team's grows.
    'one-workspace': { type: 'boolean', default: false },
  },
});
if (!['long', 'short', 'both'].includes(values.variant)) {
  process.stderr.write('--variant must be long, short or both\n');
  process.exit(2);
}
const variants: Variant[] = values.variant === 'both' ? ['long', 'short'] : [values.variant as Variant];
const set = loadRetrievalSet(values.data);
const chosen = set.conversations.slice(0, values['limit-conversations'] ? Number(values['limit-conversations']) : undefined);
const conversations = values['one-workspace'] ? [oneConversation(chosen)] : chosen;
const log = (line: string) => process.stderr.write(`${line}\n`);

// ---- the service ----

let baseUrl = values.url;
let adminToken = values['admin-token'] ?? process.env.ENGRAM_ADMIN_TOKEN;
let stop = async () => {};
if (!baseUrl) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-retrieval-'));
  adminToken = randomBytes(24).toString('base64url');
  const config = configFor({
    logLevel: 'warn',
    host: '127.0.0.1',
    port: 0,
    dataDir,
    database: { kind: 'pglite', dataDir: 'memory://' },
    secret: randomBytes(32).toString('base64url'),
    adminToken,
    publicUrl: undefined,
    inProcessWorker: true,
    // No key: the figures are the deterministic service's, reproducible and free to run.
    openai: loadConfig({}).openai,
    embeddings: loadConfig({}).embeddings,
    anonymousLimits: { requestsPerMinute: 100_000, signupsPerHour: 100_000 },
  });
  // The service logs to stderr: stdout carries the tables or the --json document alone.
  const server = await startServer(config, createLogger(config, process.stderr));
  baseUrl = server.baseUrl;
  stop = async () => {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
} else if (!adminToken) {
  process.stderr.write('--url needs the operator token: pass --admin-token or set ENGRAM_ADMIN_TOKEN.\n');
  process.exit(2);
}
const service = { baseUrl };

// ---- one conversation in its workspace ----

/** Facts per import request (the service takes up to 1,000). */
const IMPORT_CHUNK = 200;

interface Loaded {
  conversation: Conversation;
  facts: EvalFact[];
  /** Facts the service refused on import, with its reason. */
  dropped: { key: string; reason: string }[];
  /** Service fact id → the keys imported as it (identical facts are stored once). */
  keysOf: Map<string, string[]>;
  /** Keys whose fact the detector retired. */
  retired: Set<string>;
  conflicts: number;
  failedJobs: number;
  token: string;
  mcpUrl: string;
  seconds: number;
}

interface ImportProblem {
  field?: string;
  message: string;
}

/**
 * Imports facts in order, IMPORT_CHUNK at a time. A request refused for some of its facts (a secret
 * in pasted text, content over the length limit) names them (`facts.N.content`): those are dropped
 * and the rest sent again.
 */
/** Times one import request is retried when the service answers 503 (a machine too busy for its deadline). */
const IMPORT_RETRIES = 5;

async function importFacts(token: string, scope: string, facts: EvalFact[], keysOf: Map<string, string[]>, dropped: Loaded['dropped']) {
  for (let start = 0; start < facts.length; start += IMPORT_CHUNK) {
    let pending = facts.slice(start, start + IMPORT_CHUNK);
    let retries = 0;
    while (pending.length > 0) {
      const res = await fetch(`${baseUrl}/api/v1/facts/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ facts: pending.map((f) => ({ content: f.content, scope, agent_id: 'user', committed_at: f.committed_at })) }),
      });
      const text = await res.text();
      if (res.ok) {
        // A service may also answer with a fact refused in place (`refused: true`) rather than the request.
        (JSON.parse(text) as { facts: ({ id: string } | { refused: true; problems?: ImportProblem[] })[] }).facts.forEach((r, i) => {
          const key = pending[i]!.key;
          if ('id' in r) keysOf.set(r.id, [...(keysOf.get(r.id) ?? []), key]);
          else dropped.push({ key, reason: (r.problems ?? []).map((p) => `${p.field?.replace(/^facts\.\d+\./, '') ?? ''} ${p.message}`.trim()).join('; ') || 'refused' });
        });
        break;
      }
      // Unavailable (a busy machine past the deadline): retried as the answer says. An import is
      // idempotent (the same content at the same time is the same fact), so nothing is stored twice.
      if (res.status === 503 && retries < IMPORT_RETRIES) {
        retries++;
        const wait = Number((JSON.parse(text) as { error?: { details?: { retry_after_seconds?: number } } }).error?.details?.retry_after_seconds ?? 2);
        log(`${scope}: import answered 503, retrying in ${wait} s (${retries} of ${IMPORT_RETRIES})`);
        await new Promise((r) => setTimeout(r, wait * 1000));
        continue;
      }
      const problems = res.status === 400 ? ((JSON.parse(text) as { error?: { details?: { problems?: ImportProblem[] } } }).error?.details?.problems ?? []) : [];
      const refused = new Map<number, string>();
      for (const p of problems) {
        const index = /^facts\.(\d+)\./.exec(p.field ?? '')?.[1];
        if (index !== undefined) refused.set(Number(index), `${p.field!.replace(/^facts\.\d+\./, '')} ${p.message}`);
      }
      if (refused.size === 0) throw new Error(`import answered ${res.status}: ${text.slice(0, 500)}`);
      for (const [i, reason] of refused) dropped.push({ key: pending[i]!.key, reason });
      pending = pending.filter((_, i) => !refused.has(i));
    }
  }
}

async function waitForDetection(token: string, label: string): Promise<number> {
  const deadline = Date.now() + Number(values['detection-timeout']) * 1000;
  for (;;) {
    const status = await call<{ pending_jobs: number; running_jobs: number; failed_jobs: number }>(service, token, 'GET', '/api/v1/detection/status');
    if (status.pending_jobs === 0 && status.running_jobs === 0) return status.failed_jobs;
    if (Date.now() > deadline) throw new Error(`${label}: detection did not settle in time (${JSON.stringify(status)}); is a worker running?`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function load(conversation: Conversation, variant: Variant): Promise<Loaded> {
  const started = performance.now();
  const label = `${conversation.id} ${variant}`;
  const facts = factsOf(conversation, variant);
  const workspace = await call<{ owner_token: string; mcp_url: string }>(service, adminToken!, 'POST', '/api/v1/admin/workspaces', { name: `retrieval ${label}` });
  const token = workspace.owner_token;
  // The benchmark asks far more than an agent would in a minute; the defaults would throttle it.
  await raiseLimits(baseUrl!, token);
  const scope = `beam/${conversation.id.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const keysOf = new Map<string, string[]>();
  const dropped: Loaded['dropped'] = [];
  await importFacts(token, scope, facts, keysOf, dropped);
  const failedJobs = await waitForDetection(token, label);
  const journal = await call<string>(service, token, 'GET', '/api/v1/facts/since');
  const retired = new Set<string>();
  for (const line of journal.split('\n').filter(Boolean)) {
    const entry = JSON.parse(line) as { id: string; valid_until: string | null };
    if (entry.valid_until !== null) for (const key of keysOf.get(entry.id) ?? []) retired.add(key);
  }
  const conflicts = await call<{ groups: { conflicts: unknown[] }[] }>(service, token, 'GET', '/api/v1/conflicts?status=all');
  const seconds = (performance.now() - started) / 1000;
  log(`${label}: ${facts.length} facts, ${dropped.length} refused, ${keysOf.size} stored, ${retired.size} retired, ${seconds.toFixed(1)} s`);
  return {
    conversation,
    facts,
    dropped,
    keysOf,
    retired,
    conflicts: conflicts.groups.reduce((n, g) => n + g.conflicts.length, 0),
    failedJobs,
    token,
    mcpUrl: workspace.mcp_url,
    seconds,
  };
}

// ---- the systems ----

interface Asked {
  engram: Scored[];
  history: Scored[];
  latencyMs: { engram: number[]; history: number[] };
  returned: number[];
}

/** Every question of the conversation over MCP, as its agent would ask it. */
async function askEngram(loaded: Loaded): Promise<Asked> {
  const client = new Client({ name: 'engram-retrieval-eval', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(loaded.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${loaded.token}` } } }));
  const asked: Asked = { engram: [], history: [], latencyMs: { engram: [], history: [] }, returned: [] };
  try {
    for (const q of loaded.conversation.questions) {
      const gold = goldKeys(q, loaded.facts);
      for (const mode of ['engram', 'history'] as const) {
        const started = performance.now();
        const result = await client.callTool({
          name: 'engram_query',
          arguments: { topic: q.question.slice(0, 1000), limit: K, ...(mode === 'history' ? { include_history: true } : {}) },
        });
        asked.latencyMs[mode].push(performance.now() - started);
        if (result.isError) throw new Error(`engram_query failed: ${JSON.stringify(result.content).slice(0, 300)}`);
        const results = (result.structuredContent as QueryOutput).results;
        if (mode === 'engram') asked.returned.push(results.length);
        asked[mode].push({ ability: q.ability, score: scoreRanking(results.map((r) => loaded.keysOf.get(r.fact_id) ?? []), gold) });
      }
    }
  } finally {
    await client.close();
  }
  return asked;
}

const storedFacts = (loaded: Loaded) => {
  const refused = new Set(loaded.dropped.map((d) => d.key));
  return loaded.facts.filter((f) => !refused.has(f.key));
};

function askBm25(loaded: Loaded): Scored[] {
  const rank = bm25Ranker(storedFacts(loaded));
  return loaded.conversation.questions.map((q) => ({ ability: q.ability, score: scoreRanking(rank(q.question), goldKeys(q, loaded.facts)) }));
}

/**
 * Postgres full text search on a scratch table (PGlite, in this process): the question's lexemes
 * (english configuration) OR-ed into one tsquery, matches ranked by ts_rank_cd, ties by turn order.
 */
async function askPostgres(all: Loaded[]): Promise<Scored[][]> {
  const pg = await PGlite.create();
  try {
    await pg.exec('create table facts (conversation text not null, ord int not null, key text not null, tsv tsvector not null)');
    for (const loaded of all) {
      const facts = storedFacts(loaded);
      for (let i = 0; i < facts.length; i += 500) {
        const chunk = facts.slice(i, i + 500);
        await pg.query(
          `insert into facts select $1, o, k, to_tsvector('english', c) from unnest($2::int[], $3::text[], $4::text[]) as t(o, k, c)`,
          [loaded.conversation.id, chunk.map((_, j) => i + j), chunk.map((f) => f.key), chunk.map((f) => f.content)],
        );
      }
    }
    await pg.exec('create index on facts using gin (tsv); analyze facts');
    const out: Scored[][] = [];
    for (const loaded of all) {
      const scored: Scored[] = [];
      for (const q of loaded.conversation.questions) {
        // Lexemes are quoted as tsquery input wants them: quotes and backslashes doubled.
        const rows = await pg.query<{ key: string }>(
          `with q as (
             select (select string_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')
                     from unnest(to_tsvector('english', $2)))::tsquery as q
           )
           select key from facts, q where conversation = $1 and tsv @@ q.q
           order by ts_rank_cd(tsv, q.q) desc, ord limit ${K}`,
          [loaded.conversation.id, q.question],
        );
        scored.push({ ability: q.ability, score: scoreRanking(rows.rows.map((r) => [r.key]), goldKeys(q, loaded.facts)) });
      }
      out.push(scored);
    }
    return out;
  } finally {
    await pg.close();
  }
}

// ---- the run ----

const SYSTEMS = ['engram_query', 'engram_query +history', 'BM25', 'Postgres FTS'] as const;

interface VariantRun {
  variant: Variant;
  systems: SystemResult[];
  facts: number;
  stored: number;
  dropped: Loaded['dropped'];
  retired: number;
  goldRetired: number;
  conflicts: number;
  failedJobs: number;
  latencyMs: { engram_p50: number; engram_p95: number; history_p50: number; history_p95: number };
  meanReturned: number;
  seconds: { load: number; engram: number; baselines: number };
}

async function runVariant(variant: Variant): Promise<VariantRun> {
  const started = performance.now();
  const loaded: Loaded[] = new Array<Loaded>(conversations.length);
  let next = 0;
  const lane = async () => {
    while (next < conversations.length) {
      const i = next++;
      loaded[i] = await load(conversations[i]!, variant);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Number(values.concurrency)) }, lane));
  const loadSeconds = (performance.now() - started) / 1000;

  const engramStarted = performance.now();
  const asked: Asked[] = [];
  for (const l of loaded) asked.push(await askEngram(l));
  const engramSeconds = (performance.now() - engramStarted) / 1000;

  const baselinesStarted = performance.now();
  const bm25 = loaded.flatMap(askBm25);
  const postgres = (await askPostgres(loaded)).flat();
  const baselineSeconds = (performance.now() - baselinesStarted) / 1000;

  const goldTurns = new Set(loaded.flatMap((l) => l.conversation.questions.flatMap((q) => goldKeys(q, l.facts).map((k) => `${l.conversation.id}#${k}`))));
  const latency = { engram: asked.flatMap((a) => a.latencyMs.engram), history: asked.flatMap((a) => a.latencyMs.history) };
  const returned = asked.flatMap((a) => a.returned);
  return {
    variant,
    systems: [
      { system: SYSTEMS[0], scored: asked.flatMap((a) => a.engram) },
      { system: SYSTEMS[1], scored: asked.flatMap((a) => a.history) },
      { system: SYSTEMS[2], scored: bm25 },
      { system: SYSTEMS[3], scored: postgres },
    ],
    facts: loaded.reduce((n, l) => n + l.facts.length, 0),
    stored: loaded.reduce((n, l) => n + l.keysOf.size, 0),
    dropped: loaded.flatMap((l) => l.dropped.map((d) => ({ key: `${l.conversation.id}#${d.key}`, reason: d.reason }))),
    retired: loaded.reduce((n, l) => n + l.retired.size, 0),
    goldRetired: loaded.reduce((n, l) => n + [...l.retired].filter((k) => goldTurns.has(`${l.conversation.id}#${k}`)).length, 0),
    conflicts: loaded.reduce((n, l) => n + l.conflicts, 0),
    failedJobs: loaded.reduce((n, l) => n + l.failedJobs, 0),
    latencyMs: {
      engram_p50: quantile(latency.engram, 0.5),
      engram_p95: quantile(latency.engram, 0.95),
      history_p50: quantile(latency.history, 0.5),
      history_p95: quantile(latency.history, 0.95),
    },
    meanReturned: returned.reduce((n, x) => n + x, 0) / Math.max(1, returned.length),
    seconds: { load: loadSeconds, engram: engramSeconds, baselines: baselineSeconds },
  };
}

const runStarted = performance.now();
const runs: VariantRun[] = [];
try {
  for (const variant of variants) runs.push(await runVariant(variant));
} finally {
  await stop();
}
const totalSeconds = (performance.now() - runStarted) / 1000;

/** A summary under the metrics' usual names (fractions, not per cent). */
const asJson = (s: Summary) => ({ questions: s.questions, hit_at_10: s.hit, recall_at_10: s.recall, turn_recall_at_10: s.turnRecall, mrr: s.rr });

if (values.json) {
  const json = {
    data: { file: path.relative(process.cwd(), values.data), source: set.source, conversations: conversations.map((c) => c.id) },
    k: K,
    seconds: totalSeconds,
    variants: runs.map((run) => ({
      variant: run.variant,
      facts: run.facts,
      stored: run.stored,
      refused: run.dropped,
      retired: run.retired,
      gold_retired: run.goldRetired,
      conflicts: run.conflicts,
      failed_jobs: run.failedJobs,
      latency_ms: run.latencyMs,
      mean_results: run.meanReturned,
      seconds: run.seconds,
      systems: run.systems.map((s) => ({
        system: s.system,
        overall: asJson(summarize(s.scored.map((x) => x.score))),
        by_ability: byAbility(s.scored).map((a) => ({ ability: a.ability, ...asJson(a.summary) })),
      })),
    })),
  };
  process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
} else {
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const out = [`BEAM ${set.source.bucket}, ${conversations.length} conversations (${conversations.map((c) => c.id).join(', ')}), top ${K}, ${totalSeconds.toFixed(0)} s`];
  for (const run of runs) {
    out.push(
      '',
      formatVariant(run.variant, run.systems, run.variant === 'short'),
      '',
      `${run.variant}: ${run.facts} facts, ${run.dropped.length} refused on import, ${run.stored} stored (identical facts once), ` +
        `${run.retired} retired by detection (${run.goldRetired} of them gold), ${run.conflicts} conflicts raised, ${run.failedJobs} failed detection jobs.`,
      `${run.variant}: engram_query over MCP p50 ${ms(run.latencyMs.engram_p50)} (p95 ${ms(run.latencyMs.engram_p95)}), ` +
        `+include_history p50 ${ms(run.latencyMs.history_p50)} (p95 ${ms(run.latencyMs.history_p95)}); ${run.meanReturned.toFixed(1)} results per query on average.`,
      `${run.variant}: import and detection ${run.seconds.load.toFixed(0)} s, engram queries ${run.seconds.engram.toFixed(0)} s, baselines ${run.seconds.baselines.toFixed(0)} s.`,
    );
    for (const d of run.dropped) out.push(`  refused ${d.key}: ${d.reason}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

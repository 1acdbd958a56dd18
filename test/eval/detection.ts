/**
 * Evaluates conflict detection on a stories file: per-story outcomes, precision, recall and
 * violated expectations.
 *
 *   npm run eval:detection -- [FILE ...] [--url URL --admin-token TOKEN] [--json] [--verbose]
 *   npm run eval:detection -- [FILE ...] --evidence|--oracle|--live [--sizes 100,1000,10000]
 *   npm run eval:detection -- [FILE ...] --neighbours
 *
 * Without FILE, every story set in test/data/detection runs, and a table per set and kind of
 * story follows (confusions found, old facts retired after an update or a deletion request,
 * false alarms). --verbose prints every story's row too. Without --url, a
 * service is started in this process on a fresh in-memory embedded database, with its in-process
 * detection worker; with --url, the stories run against that service (its operator token from
 * --admin-token or ENGRAM_ADMIN_TOKEN; each story creates a workspace there).
 *
 * The embedded service runs the narrative detective when OPENAI_API_KEY is set (OPENAI_BASE_URL,
 * ENGRAM_DETECTIVE_MODEL as for the service), so the same command measures the deterministic
 * tiers alone or with the LLM pass; facts are embedded locally either way.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { configFor, loadConfig } from '@engram/config';
import { createEmbedder } from '@engram/core';
import { createLogger, startServer } from '@engram/server';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.ts';
import { formatEvidenceTable, formatNeighbourSimilarity, measureEvidence, neighbourSimilarity, type EvidenceMode, type EvidenceRow } from './evidence.ts';
import { runStories } from './runner.ts';
import { formatScale, measureScale, type ScaleResult } from './scale.ts';
import { byKind, formatKindTable, formatProblems, formatReport, loadStories, summarize, type EvalSummary, type StoryOutcome } from './stories.ts';

const DATA = path.join(import.meta.dirname, '../data/detection');
/**
 * Every story set, in the order the table shows them: the dev sets rules are built on, then the
 * sealed sets (test/data/detection/sealed), written by authors who never read the rules, which
 * rule writers never open: only their totals are printed.
 */
const SEALED = path.join(DATA, 'sealed');
const ALL_SETS = [
  ...fs.readdirSync(DATA).filter((f) => f.endsWith('-stories.json')).sort().map((f) => ({ name: f.replace(/-stories\.json$/, ''), file: path.join(DATA, f) })),
  ...fs.readdirSync(SEALED).filter((f) => f.endsWith('-stories.json')).sort().map((f) => ({ name: `sealed/${f.replace(/-stories\.json$/, '')}`, file: path.join(SEALED, f) })),
];
const isSealed = (file: string) => path.resolve(file).startsWith(SEALED + path.sep);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    'admin-token': { type: 'string' },
    json: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '4' },
    verbose: { type: 'boolean', default: false },
    // The narrative detective's evaluation (see evidence.ts): which share of the expected
    // confusions had all their facts in one prompt (--evidence), what a model answering exactly
    // those would find (--oracle), or what the configured model finds (--live).
    evidence: { type: 'boolean', default: false },
    oracle: { type: 'boolean', default: false },
    live: { type: 'boolean', default: false },
    sizes: { type: 'string', default: '100,1000,10000' },
    // False alarms at scale: workspaces of this many consistent filler facts ("none" skips them).
    scale: { type: 'string', default: '1000,10000' },
    // Only the scale measurement, no story set.
    'no-stories': { type: 'boolean', default: false },
    // How similar the facts of expected confusions are by embedding, against unrelated facts:
    // what the narrative evidence's neighbour threshold keeps and lets in. No service needed.
    neighbours: { type: 'boolean', default: false },
  },
});
const narrativeMode: EvidenceMode | null = values.live ? 'live' : values.oracle ? 'oracle' : values.evidence ? 'record' : null;
if (values.live && !process.env.OPENAI_API_KEY) {
  process.stderr.write('--live needs OPENAI_API_KEY (and OPENAI_BASE_URL for a server other than OpenAI): it runs the stories against that model.\n');
  process.exit(2);
}
if (narrativeMode && values.url) {
  process.stderr.write('--evidence, --oracle and --live start their own service (they read its detective\'s prompts); drop --url.\n');
  process.exit(2);
}

const sets = positionals.length
  ? positionals.map((file) => ({ name: path.basename(file).replace(/-stories\.json$|\.json$/, ''), file }))
  : ALL_SETS;
const files = values['no-stories'] ? [] : sets.map((set) => ({ ...set, stories: loadStories(set.file) }));

if (values.neighbours) {
  const embedder = createEmbedder(loadConfig(process.env));
  const measured = await neighbourSimilarity(embedder, files.map((f) => f.stories));
  process.stdout.write(`${formatNeighbourSimilarity(embedder.model, measured)}\n`);
  process.exit(0);
}
let baseUrl = values.url;
let adminToken = values['admin-token'] ?? process.env.ENGRAM_ADMIN_TOKEN;
let stop = async () => {};

let fake: FakeOpenAI | undefined;
if (narrativeMode === 'record' || narrativeMode === 'oracle') fake = await startFakeOpenAI();

if (!baseUrl) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-eval-'));
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
    openai: loadConfig(
      fake
        ? { OPENAI_API_KEY: 'sk-scripted', OPENAI_BASE_URL: fake.baseUrl }
        : {
            OPENAI_API_KEY: process.env.OPENAI_API_KEY,
            OPENAI_BASE_URL: process.env.OPENAI_BASE_URL,
            ENGRAM_DETECTIVE_MODEL: process.env.ENGRAM_DETECTIVE_MODEL,
          },
    ).openai,
    embeddings: loadConfig({}).embeddings,
    // Every story is its own workspace, all from this one client: lift the signup limit.
    anonymousLimits: { requestsPerMinute: 100_000, signupsPerHour: 100_000 },
  });
  process.stderr.write(
    config.openai.apiKey
      ? `narrative detective on (${config.openai.detectiveModel}${config.openai.baseUrl ? ` at ${config.openai.baseUrl}` : ''})\n`
      : 'narrative detective off (no OPENAI_API_KEY): deterministic tiers only\n',
  );
  const server = await startServer(config, createLogger(config));
  baseUrl = server.baseUrl;
  stop = async () => {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
} else if (!adminToken) {
  process.stderr.write('--url needs the operator token: pass --admin-token or set ENGRAM_ADMIN_TOKEN.\n');
  process.exit(2);
}

if (narrativeMode) {
  try {
    const sizes = values.sizes.split(',').map(Number);
    const results: { name: string; rows: EvidenceRow[] }[] = [];
    for (const set of files) {
      const rows: EvidenceRow[] = [];
      for (const size of sizes) {
        const started = performance.now();
        rows.push(
          ...(await measureEvidence(
            { baseUrl: baseUrl ?? '', adminToken: adminToken ?? '', mode: narrativeMode, fake, progress: (line) => process.stderr.write(`${set.name} ${line}\n`) },
            set.stories,
            size,
          )),
        );
        process.stderr.write(`${set.name} at ${size} facts: ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
      }
      results.push({ name: set.name, rows });
    }
    process.stdout.write(values.json ? `${JSON.stringify(results, null, 2)}\n` : `${formatEvidenceTable(results, narrativeMode)}\n`);
  } finally {
    await stop();
    await fake?.close();
  }
  process.exit(0);
}

try {
  const results: { name: string; outcomes: StoryOutcome[]; summary: EvalSummary; seconds: number }[] = [];
  for (const set of files) {
    const started = performance.now();
    const outcomes = await runStories({ baseUrl, adminToken: adminToken ?? '', concurrency: Number(values.concurrency) }, set.stories);
    results.push({ name: set.name, outcomes, summary: summarize(outcomes), seconds: (performance.now() - started) / 1000 });
  }
  const sizes = values.scale === 'none' || positionals.length > 0 ? [] : values.scale.split(',').map(Number);
  const scale: ScaleResult[] = [];
  for (const size of sizes) scale.push(await measureScale({ baseUrl: baseUrl ?? '', adminToken: adminToken ?? '' }, size, (line) => process.stderr.write(`scale ${size}: ${line}\n`)));
  // A sealed set is read by its totals only: no story of it is printed.
  const shown = results.map((r) => (isSealed(files.find((f) => f.name === r.name)!.file) ? { ...r, outcomes: r.outcomes, sealed: true } : { ...r, sealed: false }));
  if (values.json) {
    const json = shown.map(({ name, outcomes, summary, sealed }) => ({
      set: name,
      summary,
      by_kind: byKind(outcomes).filter((k) => !sealed || k.kind === 'all'),
      ...(sealed ? {} : { outcomes: outcomes.map(({ observation, ...o }) => ({ ...o, current: [...observation.current].sort(), conflicts: observation.conflicts })) }),
    }));
    process.stdout.write(`${JSON.stringify({ sets: json, scale }, null, 2)}\n`);
  } else {
    for (const r of shown.filter((x) => !x.sealed)) {
      const report = values.verbose ? formatReport(r.outcomes, r.summary) : formatProblems(r.outcomes, r.summary);
      process.stdout.write(`== ${r.name} (${r.outcomes.length} stories, ${r.seconds.toFixed(1)} s)\n${report}\n\n`);
    }
    process.stdout.write(`${formatKindTable(shown.map((r) => ({ name: r.name, outcomes: r.outcomes, totalsOnly: r.sealed })))}\n`);
    // A sealed set's false alarms by the kind of conflict raised: a total, no story.
    for (const r of shown.filter((x) => x.sealed)) {
      const kinds = new Map<string, number>();
      for (const o of r.outcomes) for (const p of o.problems) {
        const kind = /^false alarm: (\w+)/.exec(p)?.[1];
        if (kind) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      if (kinds.size) process.stdout.write(`${r.name}: false alarms by kind: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}\n`);
    }
    if (scale.length) process.stdout.write(`\nFalse alarms at scale (consistent filler):\n${formatScale(scale)}\n`);
  }
} finally {
  await stop();
}

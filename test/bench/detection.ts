/**
 * The deterministic detection pass for one trigger fact in a large workspace.
 *
 *   npm run bench:detection                      # 100,000 facts, 50 triggers, Postgres
 *   npm run bench:detection -- --size 10000 --runs 30
 *
 * Seeds a workspace (the benchmark story of test/bench/seed.ts: ten subjects, the same settings
 * restated with different values, so slots are crowded — far more than a real team's), then for
 * each run commits one new fact through the real commit pipeline and times `runDeterministicPass`
 * for it alone: reading the facts that share its match keys, the tiers, and writing what they
 * decide. Needs Postgres with pgvector where it may create a database (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres).
 */
import { parseArgs } from 'node:util';
import { commitFact, CommitInput, runDeterministicPass, silentLogger } from '@engram/core';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import { seededWorkspace } from './seed.ts';
import { fmt, median, percentile } from './stats.ts';

const { values: args } = parseArgs({ options: { size: { type: 'string', default: '100000' }, runs: { type: 'string', default: '50' } } });
const SIZE = Number(args.size);
const RUNS = Number(args.runs);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// Triggers of every kind: a value for a crowded slot, a new slot, a technology, a version, a statement.
const TRIGGERS = [
  (n: number) => ({ content: `The auth service rate limit is ${5000 + n} req/s per IP`, scope: 'auth/api' }),
  (n: number) => ({ content: `payments requests time out after ${90 + n} seconds`, scope: 'payments/worker' }),
  (n: number) => ({ content: `The reporting exporter writes batches of ${200 + n} rows`, scope: 'reporting' }),
  (n: number) => ({ content: `search uses Memcached for caching with a TTL of ${n + 1} minutes`, scope: 'search/cache' }),
  (n: number) => ({ content: `The orders service runs Postgres ${14 + (n % 4)}`, scope: 'orders/db' }),
  (n: number) => ({ content: `The billing webhook handler does not retry on 4xx responses (${n})`, scope: 'billing/api' }),
];

const url = await createScratchDatabase(ADMIN_URL, 'engram_bench_detect');
const { handle, workspaceId, principal, services } = await seededWorkspace(url, SIZE, { name: 'detection bench', maxConnections: 4 });
try {
  const timings: number[] = [];
  const read: number[] = [];
  const byKind = new Map<number, { ms: number[]; read: number[] }>();
  for (let i = 0; i < RUNS + 5; i++) {
    const trigger = TRIGGERS[i % TRIGGERS.length]!(i);
    const committed = await commitFact(services, principal, CommitInput.parse({ ...trigger, confidence: 0.9, agent_id: `bench-agent-${i}` }));
    const started = performance.now();
    const stats = await runDeterministicPass(
      { db: handle.db, log: silentLogger },
      { runId: `bench-${i}`, workspaceId: workspaceId, triggerFactIds: [committed.fact_id!] },
    );
    if (i >= 5) {
      const ms = performance.now() - started;
      timings.push(ms);
      read.push(stats.factsRead);
      const kind = byKind.get(i % TRIGGERS.length) ?? { ms: [], read: [] };
      kind.ms.push(ms);
      kind.read.push(stats.factsRead);
      byKind.set(i % TRIGGERS.length, kind);
    }
  }
  process.stdout.write(
    `Deterministic pass, one trigger fact, ${SIZE.toLocaleString('en-US')} facts in the workspace (Postgres), ${RUNS} runs:\n` +
      `  median ${fmt(median(timings))}, p90 ${fmt(percentile(timings, 90))}, max ${fmt(Math.max(...timings))}; facts read per run: median ${median(read)}\n` +
      [...byKind.entries()]
        .sort(([a], [b]) => a - b)
        .map(([k, v]) => `  "${TRIGGERS[k]!(0).content}": median ${fmt(median(v.ms))}, ${median(v.read)} facts read\n`)
        .join(''),
  );
} finally {
  await handle.close();
  await dropScratchDatabase(ADMIN_URL, url);
}

/**
 * Commit and query performance on real Postgres, at 10,000 and 100,000 facts in one workspace.
 *
 *   npm run bench                       # sizes 10000,100000
 *   npm run bench -- --sizes 10000 --commits 300 --queries 200
 *   npm run bench -- --sizes 10000 --no-worker    # without the in-process detection worker
 *   npm run bench -- --sizes 10000 "--node-options=--cpu-prof --cpu-prof-dir=prof"   # the server's NODE_OPTIONS
 *   npm run bench -- --concurrency ...            # 1 to 200 concurrent clients: test/bench/concurrency.ts
 *
 * Needs a Postgres with pgvector where it may create a database: BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres. The server runs as its own
 * process (`engram start`); the clients are the SDK's real MCP client. The references: the same
 * fact row inserted directly with postgres.js (prepared, one row per statement, its values computed
 * before the timer starts) for engram_commit;
 * the service's own hybrid SQL (`hybridCandidates`, confined to the workspace as the service runs
 * it, at engram_query's depth for limit 10) for engram_query; and `engram_status` for `tools/list`
 * (both answer from the MCP layer with little or no database work). Each ratio is printed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { embedLocally, LOCAL_EMBEDDING_MODEL } from '@engram/core';
import { createDb, forWorkspace, hybridCandidates, queryRows } from '@engram/db';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { cliEnv, startCli } from '../support/cli.ts';
import { connectMcp, mustCall } from '../support/mcp.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import { raiseLimits } from './limits.ts';
import { insertReferenceRow, referenceRow, type ReferenceRow } from './reference-row.ts';
import { BULK_LIMITS, factText, QUERY_TOPICS, seed } from './seed.ts';
import { fmt, median, percentile } from './stats.ts';

if (process.argv.includes('--concurrency')) {
  await import('./concurrency.ts');
  process.exit();
}

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    commits: { type: 'string', default: '500' },
    concurrent: { type: 'string', default: '1000' },
    queries: { type: 'string', default: '300' },
    keep: { type: 'boolean', default: false },
    // Run the server without its in-process detection worker, to see what detection costs requests.
    'no-worker': { type: 'boolean', default: false },
    // The server's NODE_OPTIONS (e.g. a heap limit, or --cpu-prof to profile it).
    'node-options': { type: 'string' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const SEQUENTIAL_COMMITS = Number(args.commits);
const CONCURRENT_COMMITS = Number(args.concurrent);
const QUERIES = Number(args.queries);
const CLIENTS = 10;

const ADMIN_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_TOKEN = 'bench-admin-token-0123456789-abcdefghijklmnop';
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';


// --- measurement helpers ---------------------------------------------------------------------
async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

interface Row {
  size: number;
  metric: string;
  p50: number | null;
  p99: number | null;
  perSecond: number | null;
}
const rows: Row[] = [];
const report = (row: Row) => {
  rows.push(row);
  process.stderr.write(
    `  [${row.size}] ${row.metric}: ${row.p50 !== null ? `p50 ${fmt(row.p50)}, p99 ${fmt(row.p99!)}` : ''}${row.perSecond !== null ? ` ${row.perSecond.toFixed(0)}/s` : ''}\n`,
  );
};

let serial = 10_000_000;
const commitArgs = () => {
  const n = serial++;
  const { content, scope } = factText(n);
  return { content, scope, confidence: 0.9, agent_id: `bench-${n % 17}` };
};

/** The commit's reference: the same fact row inserted directly (reference-row.ts): the database's cost of one durable commit. */
function directInserter(databaseUrl: string, workspaceId: string) {
  const client = postgres(databaseUrl, { max: CLIENTS, onnotice: () => {} });
  const nextRow = () => {
    const { content, scope } = commitArgs();
    return referenceRow(content, scope);
  };
  const insert = (row: ReferenceRow) => insertReferenceRow(client, workspaceId, row);
  return { nextRow, insert, end: () => client.end() };
}

async function concurrentInsertReference(reference: ReturnType<typeof directInserter>, size: number, count: number): Promise<void> {
  const latencies: number[] = [];
  const prepared = Array.from({ length: count }, reference.nextRow);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let row = prepared.pop(); row; row = prepared.pop()) {
        const ready = row;
        latencies.push(await timed(() => reference.insert(ready)));
      }
    }),
  );
  const elapsed = performance.now() - t0;
  report({ size, metric: `direct insert (postgres.js), ${CLIENTS} concurrent`, p50: median(latencies), p99: percentile(latencies, 99), perSecond: (count / elapsed) * 1000 });
}

const perSecond = (latencies: number[]) => 1000 / (latencies.reduce((a, b) => a + b, 0) / latencies.length);

async function measure(size: number, mcpUrl: string, token: string, databaseUrl: string, workspaceId: string): Promise<void> {
  const clients: Client[] = await Promise.all(Array.from({ length: CLIENTS }, () => connectMcp(mcpUrl, token)));
  const main = clients[0]!;
  const reference = directInserter(databaseUrl, workspaceId);
  const hybrid = await directQuerier(databaseUrl, workspaceId);
  // Warm up the server (JIT, caches, connections) and the references before measuring.
  for (let i = 0; i < 500; i++) await mustCall(main, 'engram_commit', commitArgs());
  for (let i = 0; i < 50; i++) await reference.insert(reference.nextRow());

  // Each call and its reference alternate, so both meet the same state of the database: right
  // after a checkpoint every write also logs whole pages, and measured one after the other the
  // first would pay for that and the second not.
  const sequential: number[] = [];
  const inserts: number[] = [];
  // What each measured commit did: a stored fact costs one statement; a fact another agent already
  // stated (corroborated) or an identical one takes the reads that decide it.
  const outcomes = { stored: 0, corroborated: 0, duplicate: 0 };
  for (let i = 0; i < SEQUENTIAL_COMMITS; i++) {
    let out: { duplicate?: boolean; corroborated?: boolean } = {};
    sequential.push(await timed(async () => (out = await mustCall(main, 'engram_commit', commitArgs()))));
    outcomes[out.corroborated ? 'corroborated' : out.duplicate ? 'duplicate' : 'stored']++;
    const row = reference.nextRow();
    inserts.push(await timed(() => reference.insert(row)));
  }
  process.stderr.write(`  [${size}] sequential commits: ${outcomes.stored} stored, ${outcomes.corroborated} corroborated, ${outcomes.duplicate} duplicates\n`);
  report({ size, metric: 'engram_commit over MCP, sequential', p50: median(sequential), p99: percentile(sequential, 99), perSecond: perSecond(sequential) });
  report({ size, metric: 'direct insert (postgres.js), sequential', p50: median(inserts), p99: percentile(inserts, 99), perSecond: perSecond(inserts) });

  const concurrent: number[] = [];
  const t1 = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < CONCURRENT_COMMITS / CLIENTS; i++) concurrent.push(await timed(() => mustCall(client, 'engram_commit', commitArgs())));
    }),
  );
  report({ size, metric: `engram_commit over MCP, ${CLIENTS} concurrent clients`, p50: median(concurrent), p99: percentile(concurrent, 99), perSecond: (CONCURRENT_COMMITS / (performance.now() - t1)) * 1000 });
  await concurrentInsertReference(reference, size, CONCURRENT_COMMITS);

  for (let i = 0; i < 20; i++) {
    await mustCall(main, 'engram_query', { topic: QUERY_TOPICS[i % QUERY_TOPICS.length]! });
    await hybrid.query(i);
  }
  const queries: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    queries.push(await timed(() => mustCall(main, 'engram_query', { topic: QUERY_TOPICS[i % QUERY_TOPICS.length]!, limit: 10 })));
    direct.push(await timed(() => hybrid.query(i)));
  }
  report({ size, metric: 'engram_query over MCP, sequential', p50: median(queries), p99: percentile(queries, 99), perSecond: null });
  report({ size, metric: 'direct hybrid SQL (hybridCandidates), sequential', p50: median(direct), p99: percentile(direct, 99), perSecond: null });

  const lists: number[] = [];
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) await Promise.all([main.listTools(), mustCall(main, 'engram_status', {})]);
  for (let i = 0; i < QUERIES; i++) {
    lists.push(await timed(() => main.listTools()));
    statuses.push(await timed(() => mustCall(main, 'engram_status', {})));
  }
  report({ size, metric: 'tools/list over MCP, sequential', p50: median(lists), p99: percentile(lists, 99), perSecond: null });
  report({ size, metric: 'engram_status over MCP, sequential', p50: median(statuses), p99: percentile(statuses, 99), perSecond: null });

  await Promise.all(clients.map((c) => c.close()));
  await reference.end();
  await hybrid.close();
}

/** engram_query's depth for limit 10: max(30, limit × 3). */
const QUERY_DEPTH = 30;

/** The query's reference: the service's own hybrid SQL, confined to the workspace as the service runs it. */
async function directQuerier(databaseUrl: string, workspaceId: string) {
  const handle = await createDb({ kind: 'postgres', url: databaseUrl }, { maxConnections: 1 });
  const tenant = forWorkspace(handle.db, workspaceId);
  const embeddings = QUERY_TOPICS.map((topic) => embedLocally(topic));
  const query = (i: number) =>
    hybridCandidates(tenant, {
      embedding: embeddings[i % QUERY_TOPICS.length]!,
      model: LOCAL_EMBEDDING_MODEL,
      topic: QUERY_TOPICS[i % QUERY_TOPICS.length]!,
      includeEphemeral: false,
      window: { kind: 'current' },
      depth: QUERY_DEPTH,
    });
  return { query, close: () => handle.close() };
}

const databaseUrl = await createScratchDatabase(ADMIN_URL, 'engram_bench');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-'));
process.stderr.write(`bench database ${new URL(databaseUrl).pathname.slice(1)}\n`);
const server = await startCli(
  cliEnv({
    DATABASE_URL: databaseUrl,
    ENGRAM_SECRET: SECRET,
    ENGRAM_ADMIN_TOKEN: ADMIN_TOKEN,
    ENGRAM_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ...(args['no-worker'] ? { ENGRAM_IN_PROCESS_WORKER: 'false' } : {}),
    ...(args['node-options'] ? { NODE_OPTIONS: args['node-options'] } : {}),
  }),
);
try {
  const res = await fetch(new URL('/api/v1/admin/workspaces', server.mcpUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  });
  const workspace = (await res.json()) as { owner_token: string; workspace_id: string };
  // The benchmark is one token committing thousands of facts a minute: lift the workspace limits.
  await raiseLimits(new URL('/', server.mcpUrl).toString(), workspace.owner_token);
  let seeded = 0;
  for (const size of SIZES) {
    process.stderr.write(`\n== ${size} facts\n`);
    const handle = await createDb({ kind: 'postgres', url: databaseUrl }, { maxConnections: 1, limits: BULK_LIMITS });
    const [counted] = await queryRows<{ n: number }>(handle.db, sql`select count(*)::int as n from facts`);
    const n = counted?.n ?? 0;
    await handle.close();
    if (n < size) await seed(databaseUrl, workspace.workspace_id, seeded, seeded + (size - n));
    seeded += Math.max(0, size - n);
    await measure(size, server.mcpUrl, workspace.owner_token, databaseUrl, workspace.workspace_id);
  }
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (!args.keep) await dropScratchDatabase(ADMIN_URL, databaseUrl);
}

const header = '| facts | measurement | p50 | p99 | per second |\n| ---: | --- | ---: | ---: | ---: |';
const lines = rows.map(
  (r) =>
    `| ${r.size.toLocaleString('en-US')} | ${r.metric} | ${r.p50 === null ? '' : fmt(r.p50)} | ${r.p99 === null ? '' : fmt(r.p99)} | ${r.perSecond === null ? '' : r.perSecond.toFixed(0)} |`,
);
const ratios = SIZES.map((size) => {
  const find = (start: string, sequential: boolean) => rows.find((r) => r.size === size && r.metric.startsWith(start) && r.metric.includes('sequential') === sequential);
  const ratio = (a: Row | undefined, b: Row | undefined, key: 'p50' | 'p99') => (a?.[key] && b?.[key] ? `${(a[key] / b[key]).toFixed(2)}×` : '—');
  const engram = find('engram_commit', false);
  const direct = find('direct insert', false);
  const [commit, insert, query, hybrid, list, status] = [
    find('engram_commit', true),
    find('direct insert', true),
    find('engram_query', true),
    find('direct hybrid SQL', true),
    find('tools/list', true),
    find('engram_status', true),
  ];
  return [
    `${size.toLocaleString('en-US')} facts, sequential: engram_commit p50 ${ratio(commit, insert, 'p50')} the direct insert's, p99 ${ratio(commit, insert, 'p99')}; ` +
      `engram_query p50 ${ratio(query, hybrid, 'p50')} the direct hybrid SQL's; tools/list p50 ${ratio(list, status, 'p50')} engram_status's`,
    engram && direct ? `${size.toLocaleString('en-US')} facts: commit throughput ${(((engram.perSecond ?? 0) / (direct.perSecond ?? 1)) * 100).toFixed(0)}% of direct insert` : '',
  ].join('\n');
});
process.stdout.write(`\n${header}\n${lines.join('\n')}\n\n${ratios.filter(Boolean).join('\n')}\n`);

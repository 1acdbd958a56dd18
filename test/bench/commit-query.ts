/**
 * Commit and query performance, sequential and with 10 clients, at 10,000 and 100,000 facts in one
 * workspace, on Postgres or on the embedded database.
 *
 *   npm run bench                       # sizes 10000,100000
 *   npm run bench -- --sizes 10000 --commits 300 --queries 200
 *   npm run bench -- --sizes 10000 --no-worker    # without the in-process detection worker
 *   npm run bench -- --sizes 10000 --embedded     # the embedded database (PGlite) in a temporary directory
 *   npm run bench -- --sizes 10000 "--node-options=--cpu-prof --cpu-prof-dir=prof"   # the server's NODE_OPTIONS
 *   npm run bench -- --sizes 100000 --ceiling     # and the stack ceiling's calls, taking turns with both
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
 *
 * With --ceiling (Postgres), the stack ceiling (stack-ceiling.ts: the same HTTP and MCP exchange
 * with only the reference's work behind it, its commit computing the row inside the call as a
 * commit must) takes a third turn after each pair, through the same SDK client, and its ratios to
 * the same references are printed: the least any server on this stack could be.
 *
 * On Postgres each reference call follows the service call it is compared with. The embedded
 * database is open in one process at a time, so there the references run in this process before
 * the server starts (on the same database, just seeded), and the server then opens it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { provisionWorkspace } from '@engram/core';
import { createDb, forWorkspace, migrate, type Database } from '@engram/db';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { cliEnv, startCli, type StartedCli } from '../support/cli.ts';
import { connectMcp, mustCall } from '../support/mcp.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import { raiseLimits } from './limits.ts';
import { insertReferenceRow, referenceInsert, referenceQuery, referenceRow, type ReferenceRow } from './reference-row.ts';
import { BENCH_SECRET, BULK_LIMITS, factText, QUERY_TOPICS, seedWorkspaces } from './seed.ts';
import { startCeiling, type StartedCeiling } from './stack-ceiling.ts';
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
    // The embedded database (PGlite) instead of Postgres.
    embedded: { type: 'boolean', default: false },
    // The server's NODE_OPTIONS (e.g. a heap limit, or --cpu-prof to profile it).
    'node-options': { type: 'string' },
    // The stack ceiling's calls (stack-ceiling.ts) taking turns with the service's and the references'.
    ceiling: { type: 'boolean', default: false },
  },
});
if (args.ceiling && args.embedded) throw new Error('--ceiling runs on Postgres only (the embedded database is open in one process at a time); drop --embedded or --ceiling');
const SIZES = args.sizes.split(',').map(Number);
const SEQUENTIAL_COMMITS = Number(args.commits);
const CONCURRENT_COMMITS = Number(args.concurrent);
const QUERIES = Number(args.queries);
const CLIENTS = 10;

const ADMIN_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_TOKEN = 'bench-admin-token-0123456789-abcdefghijklmnop';


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

/**
 * The database work a call stands on, issued directly: the same fact row inserted (reference-row.ts,
 * its values computed before the timer: the database's cost of one durable commit), and the
 * service's own hybrid SQL (`hybridCandidates`, confined to the workspace as the service runs it,
 * at engram_query's depth for limit 10). Each call returns its latency.
 */
interface Reference {
  /** Inserts a row of nextRow's (computed outside the timer). */
  insert(row: ReferenceRow): Promise<number>;
  query(i: number): Promise<number>;
  close(): Promise<void>;
}

/** The reference row of the next bench fact (the service commits the same texts). */
function nextRow(): ReferenceRow {
  const { content, scope } = commitArgs();
  return referenceRow(content, scope);
}

/** Inserts `count` reference rows, computed beforehand, `clients` at a time. */
function insertConcurrently(reference: Reference, count: number, clients: number) {
  const rows = Array.from({ length: count }, () => nextRow());
  return concurrently(count, clients, () => reference.insert(rows.pop()!));
}

/** `rows` calls, `clients` at a time: each one's latency, and the rate they went at. */
async function concurrently(rows: number, clients: number, call: (client: number) => Promise<number>) {
  const latencies: number[] = [];
  let left = rows;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      while (left-- > 0) latencies.push(await call(k));
    }),
  );
  return { latencies, perSecond: (rows / (performance.now() - t0)) * 1000 };
}

function hybridOf(db: Database, workspaceId: string) {
  const tenant = forWorkspace(db, workspaceId);
  return (i: number) => timed(() => referenceQuery(tenant, i));
}

/** On Postgres: postgres.js for the insert (prepared, one row per statement), a pool of one for the query. */
async function postgresReference(databaseUrl: string, workspaceId: string): Promise<Reference> {
  const client = postgres(databaseUrl, { max: CLIENTS, onnotice: () => {} });
  const handle = await createDb({ kind: 'postgres', url: databaseUrl }, { maxConnections: 1 });
  return {
    insert: (row) => timed(() => insertReferenceRow(client, workspaceId, row)),
    query: hybridOf(handle.db, workspaceId),
    close: async () => {
      await client.end();
      await handle.close();
    },
  };
}

/** On the embedded database: opened in this process, which it can be only while the server is not running. */
async function embeddedReference(database: Config['database'], workspaceId: string): Promise<Reference> {
  const handle = await createDb(database, { maxConnections: 1 });
  return {
    insert: (row) => {
      const statement = referenceInsert(sql`facts`, workspaceId, row, 'reference');
      return timed(() => handle.db.execute(statement));
    },
    query: hybridOf(handle.db, workspaceId),
    close: () => handle.close(),
  };
}

/** What the references measured: sequential inserts, concurrent inserts, sequential queries. */
interface ReferenceTimings {
  inserts: number[];
  concurrent: { latencies: number[]; perSecond: number };
  queries: number[];
}

/**
 * The embedded database's references, measured before the server opens it (PGlite is open in one
 * process at a time, so they cannot take turns with the service's calls as on Postgres).
 */
async function measureReferences(reference: Reference): Promise<ReferenceTimings> {
  for (let i = 0; i < 50; i++) await reference.insert(nextRow());
  const inserts: number[] = [];
  for (let i = 0; i < SEQUENTIAL_COMMITS; i++) inserts.push(await reference.insert(nextRow()));
  const concurrent = await insertConcurrently(reference, CONCURRENT_COMMITS, CLIENTS);
  for (let i = 0; i < 20; i++) await reference.query(i);
  const queries: number[] = [];
  for (let i = 0; i < QUERIES; i++) queries.push(await reference.query(i));
  return { inserts, concurrent, queries };
}

const perSecond = (latencies: number[]) => 1000 / (latencies.reduce((a, b) => a + b, 0) / latencies.length);

/**
 * The service's calls, sequential and concurrent, beside their references: on Postgres `reference`
 * is live and each call alternates with its reference; on the embedded database the references
 * were measured before the server started (`measured`).
 */
async function measure(size: number, mcpUrl: string, token: string, against: Reference | ReferenceTimings, ceilingOf?: { mcpUrl: string; workspaceId: string }): Promise<void> {
  const clients: Client[] = await Promise.all(Array.from({ length: CLIENTS }, () => connectMcp(mcpUrl, token)));
  const main = clients[0]!;
  const live = 'insert' in against ? against : undefined;
  const measured = 'insert' in against ? undefined : against;
  // The stack ceiling's two calls, through the same SDK client (it takes no token).
  const ceilingClient = ceilingOf ? await connectMcp(ceilingOf.mcpUrl) : undefined;
  const workspace_id = ceilingOf?.workspaceId;
  const ceiling = ceilingClient && {
    commit: () => {
      const { content, scope } = commitArgs();
      return timed(() => mustCall(ceilingClient, 'floor_commit', { content, scope, workspace_id }));
    },
    query: (i: number) => timed(() => mustCall(ceilingClient, 'floor_query', { topic: QUERY_TOPICS[i % QUERY_TOPICS.length]!, workspace_id })),
  };
  // Warm up the server (JIT, caches, connections) and the reference before measuring.
  for (let i = 0; i < 500; i++) await mustCall(main, 'engram_commit', commitArgs());
  if (live) for (let i = 0; i < 50; i++) await live.insert(nextRow());
  if (ceiling) for (let i = 0; i < 500; i++) await ceiling.commit();

  // Each call and its reference alternate, so both meet the same state of the database: right
  // after a checkpoint every write also logs whole pages, and measured one after the other the
  // first would pay for that and the second not.
  const sequential: number[] = [];
  const inserts: number[] = [];
  const ceilingCommits: number[] = [];
  // What each measured commit did: a stored fact costs one statement; a fact another agent already
  // stated (corroborated) or an identical one takes the reads that decide it.
  const outcomes: Record<'stored' | 'corroborated' | 'duplicate', number[]> = { stored: [], corroborated: [], duplicate: [] };
  for (let i = 0; i < SEQUENTIAL_COMMITS; i++) {
    let out: { duplicate?: boolean; corroborated?: boolean } = {};
    const latency = await timed(async () => (out = await mustCall(main, 'engram_commit', commitArgs())));
    sequential.push(latency);
    outcomes[out.corroborated ? 'corroborated' : out.duplicate ? 'duplicate' : 'stored'].push(latency);
    if (live) inserts.push(await live.insert(nextRow()));
    if (ceiling) ceilingCommits.push(await ceiling.commit());
  }
  const outcome = (name: keyof typeof outcomes) =>
    `${outcomes[name].length} ${name}${outcomes[name].length ? ` (p50 ${fmt(median(outcomes[name]))})` : ''}`;
  process.stderr.write(`  [${size}] sequential commits: ${outcome('stored')}, ${outcome('corroborated')}, ${outcome('duplicate')}\n`);
  const direct = live ? `${ENGINE}, alternating` : `${ENGINE}, measured before the server started`;
  report({ size, metric: 'engram_commit over MCP, sequential', p50: median(sequential), p99: percentile(sequential, 99), perSecond: perSecond(sequential) });
  const insertTimes = measured?.inserts ?? inserts;
  report({ size, metric: `direct insert (${direct}), sequential`, p50: median(insertTimes), p99: percentile(insertTimes, 99), perSecond: perSecond(insertTimes) });
  if (ceiling) report({ size, metric: 'stack ceiling floor_commit over MCP, sequential', p50: median(ceilingCommits), p99: percentile(ceilingCommits, 99), perSecond: perSecond(ceilingCommits) });

  const concurrent = await concurrently(CONCURRENT_COMMITS, CLIENTS, (k) => timed(() => mustCall(clients[k]!, 'engram_commit', commitArgs())));
  report({ size, metric: `engram_commit over MCP, ${CLIENTS} concurrent clients`, p50: median(concurrent.latencies), p99: percentile(concurrent.latencies, 99), perSecond: concurrent.perSecond });
  const concurrentInserts = measured?.concurrent ?? (await insertConcurrently(live!, CONCURRENT_COMMITS, CLIENTS));
  report({ size, metric: `direct insert (${ENGINE}), ${CLIENTS} concurrent`, p50: median(concurrentInserts.latencies), p99: percentile(concurrentInserts.latencies, 99), perSecond: concurrentInserts.perSecond });

  for (let i = 0; i < 20; i++) {
    await mustCall(main, 'engram_query', { topic: QUERY_TOPICS[i % QUERY_TOPICS.length]! });
    if (live) await live.query(i);
    if (ceiling) await ceiling.query(i);
  }
  const queries: number[] = [];
  const hybrid: number[] = [];
  const ceilingQueries: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    queries.push(await timed(() => mustCall(main, 'engram_query', { topic: QUERY_TOPICS[i % QUERY_TOPICS.length]!, limit: 10 })));
    if (live) hybrid.push(await live.query(i));
    if (ceiling) ceilingQueries.push(await ceiling.query(i));
  }
  const hybridTimes = measured?.queries ?? hybrid;
  report({ size, metric: 'engram_query over MCP, sequential', p50: median(queries), p99: percentile(queries, 99), perSecond: null });
  report({ size, metric: `direct hybrid SQL (hybridCandidates; ${direct}), sequential`, p50: median(hybridTimes), p99: percentile(hybridTimes, 99), perSecond: null });
  if (ceiling) report({ size, metric: 'stack ceiling floor_query over MCP, sequential', p50: median(ceilingQueries), p99: percentile(ceilingQueries, 99), perSecond: null });

  const lists: number[] = [];
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) await Promise.all([main.listTools(), mustCall(main, 'engram_status', {})]);
  for (let i = 0; i < QUERIES; i++) {
    lists.push(await timed(() => main.listTools()));
    statuses.push(await timed(() => mustCall(main, 'engram_status', {})));
  }
  report({ size, metric: 'tools/list over MCP, sequential', p50: median(lists), p99: percentile(lists, 99), perSecond: null });
  report({ size, metric: 'engram_status over MCP, sequential', p50: median(statuses), p99: percentile(statuses, 99), perSecond: null });

  await Promise.all([...clients, ...(ceilingClient ? [ceilingClient] : [])].map((c) => c.close()));
}

const EMBEDDED = args.embedded;
const ENGINE = EMBEDDED ? 'embedded PGlite' : 'postgres.js';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-'));
const databaseUrl = EMBEDDED ? undefined : await createScratchDatabase(ADMIN_URL, 'engram_bench');
const database: Config['database'] = databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'pglite', dataDir: path.join(dataDir, 'pgdata') };
process.stderr.write(databaseUrl ? `bench database ${new URL(databaseUrl).pathname.slice(1)}\n` : `embedded database in ${dataDir}\n`);
const startServer = () =>
  startCli(
    cliEnv({
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ENGRAM_SECRET: BENCH_SECRET,
      ENGRAM_ADMIN_TOKEN: ADMIN_TOKEN,
      ENGRAM_DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
      ...(args['no-worker'] ? { ENGRAM_IN_PROCESS_WORKER: 'false' } : {}),
      ...(args['node-options'] ? { NODE_OPTIONS: args['node-options'] } : {}),
    }),
  );

let server: StartedCli | undefined;
let ceiling: StartedCeiling | undefined;
try {
  // The workspace, made as the service makes it; its rate limits lifted once the server runs (the
  // benchmark is one token committing thousands of facts a minute).
  const setup = await createDb(database, { maxConnections: 1, limits: BULK_LIMITS });
  let workspace: { workspaceId: string; ownerToken: string };
  try {
    await migrate(setup.db);
    workspace = await provisionWorkspace(setup.db, BENCH_SECRET, { name: 'bench' });
  } finally {
    await setup.close();
  }
  let seeded = 0;
  for (const size of SIZES) {
    process.stderr.write(`\n== ${size} facts\n`);
    // On the embedded database the server holds the database while it runs: it starts after the
    // seed and the references, and stops before the next size's.
    if (EMBEDDED) {
      await server?.stop();
      server = undefined;
    }
    if (seeded < size) await seedWorkspaces(database, [{ workspaceId: workspace.workspaceId, count: size - seeded }], seeded);
    seeded = Math.max(seeded, size);
    let measured: ReferenceTimings | undefined;
    if (EMBEDDED) {
      const reference = await embeddedReference(database, workspace.workspaceId);
      try {
        measured = await measureReferences(reference);
      } finally {
        await reference.close();
      }
    }
    server ??= await startServer();
    await raiseLimits(new URL('/', server.mcpUrl).toString(), workspace.ownerToken);
    if (measured) await measure(size, server.mcpUrl, workspace.ownerToken, measured);
    else {
      const reference = await postgresReference(databaseUrl!, workspace.workspaceId);
      // With the server's NODE_OPTIONS; it inserts into facts, as the insert reference does.
      if (args.ceiling) ceiling ??= await startCeiling(databaseUrl!, { NODE_OPTIONS: args['node-options'] ?? '', CEILING_TABLE: 'facts' });
      try {
        await measure(size, server.mcpUrl, workspace.ownerToken, reference, ceiling && { mcpUrl: ceiling.mcpUrl, workspaceId: workspace.workspaceId });
      } finally {
        await reference.close();
      }
    }
  }
} finally {
  await ceiling?.stop();
  await server?.stop();
  if (args.keep && EMBEDDED) process.stderr.write(`kept the embedded database in ${dataDir}\n`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
  if (databaseUrl && !args.keep) await dropScratchDatabase(ADMIN_URL, databaseUrl);
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
  const [ceilingCommit, ceilingQuery] = [find('stack ceiling floor_commit', true), find('stack ceiling floor_query', true)];
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
    ceilingCommit && ceilingQuery
      ? `${size.toLocaleString('en-US')} facts, sequential, the stack ceiling: floor_commit p50 ${ratio(ceilingCommit, insert, 'p50')} the direct insert's, p99 ${ratio(ceilingCommit, insert, 'p99')}; floor_query p50 ${ratio(ceilingQuery, hybrid, 'p50')} the direct hybrid SQL's`
      : '',
  ]
    .filter(Boolean)
    .join('\n');
});
process.stdout.write(`\n${header}\n${lines.join('\n')}\n\n${ratios.filter(Boolean).join('\n')}\n`);

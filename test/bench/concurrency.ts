/**
 * Engram under a team of concurrent agents (issue 18): for each number of clients, the throughput
 * and latency of a 50/50 mix of `engram_commit` and `engram_query` over MCP beside the database's
 * own cost for the same mix (the floor), with the server's memory, event-loop delay and CPU, and
 * the detection backlog the load leaves behind.
 *
 *   npm run bench -- --concurrency                    # clients 1,10,50,200; 25 s windows; 10,000 facts; one workspace and many; Postgres
 *   npm run bench -- --concurrency --clients 1,10 --window 5 --size 2000
 *   npm run bench -- --concurrency --workspaces many --embedded
 *   npm run bench -- --concurrency "--node-options=--max-old-space-size=256 --max-semi-space-size=16"    # the server's heap as in a 512 MB VM
 *
 * Options: --clients (comma-separated), --window seconds (25), --size facts seeded (10000),
 * --workspaces one|many|both (both), --embedded, --warmup seconds (5), --settle seconds before "RSS
 * after" (5), --drain-timeout seconds (300), --client-threads (default one per 50 clients, at most one
 * per core), --node-options (the server's NODE_OPTIONS; default the Dockerfile's), --allocator
 * jemalloc|glibc (the server's malloc; default jemalloc, preloaded as the Dockerfile does), --keep (keep the
 * Postgres database), --never-analyzed (seed without ANALYZE: compare query p50 at --size 1000 and
 * 50000 on a database nothing has analyzed but the service itself), --no-worker (the server without its
 * in-process detection worker: the backlog is counted, not drained), --statements (Postgres's own
 * account of each server and floor window: the statements that took the most time, with calls per
 * operation and mean execution and planning time, from pg_stat_statements, which must be in the
 * server's shared_preload_libraries; its counters are reset cluster-wide before each window),
 * --server-env NAME=value (repeatable: more of the server's environment, to compare settings),
 * --ceiling (Postgres: a third window per row, the stack ceiling below).
 *
 * The server is `engram start` in its own process, as the Dockerfile runs it (NODE_ENV=production,
 * its NODE_OPTIONS, jemalloc), with the in-process detection worker and the default pool of 10, on a scratch
 * Postgres database (BENCH_DATABASE_URL, else TEST_DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/postgres), or with --embedded on the embedded PGlite database
 * in a temporary data directory.
 *
 * Workspaces. "one": one workspace seeded with --size facts; each client is a member of it with a
 * token of its own (joined with an invite key). "many": a workspace per client (each its owner's
 * token); the --size facts are dealt out evenly among as many workspaces as the largest client
 * count, and a window with N clients uses the first N. Both live in one database, migrated,
 * provisioned and seeded before the server starts; seeding ends with ANALYZE, so the planner has
 * statistics for the seeded rows but not for what the windows add (autovacuum may be off).
 *
 * A window. Each client calls engram_commit and engram_query in turn (half of them start with each),
 * one call at a time, as fast as the server answers, for --window seconds. The clients are the SDK's
 * MCP client, spread over worker threads (concurrency-clients.ts) so that the load generator is not
 * the bottleneck: this process's CPU and its client threads' event-loop delay are printed to judge
 * that. Meanwhile the main thread polls GET /healthz every 50 ms (its latency is the server's
 * event-loop delay plus a loopback round trip, and the wait behind the requests queued before it;
 * the idle figure is printed for reference; the server itself logs each stall of its event loop of
 * 100 ms or more, and the longest it logged is shown beside) and samples
 * the server's /proc/<pid>: VmRSS, VmHWM (reset through clear_refs when the window starts) and CPU
 * time. When the clients stop, pending and running detection jobs are counted (SQL on Postgres;
 * GET /api/v1/detection/status of each workspace on the embedded database, which only the server
 * can open while it runs) and polled every 250 ms until none is left. "RSS after" is read --settle
 * seconds after the backlog drained, and compared with the idle RSS read the same way after the
 * warm-up. The peak RSS covers the window and the drain.
 *
 * The floor. The same mix from as many concurrent loops, issued straight to the same database with
 * createDb from @engram/db (postgres.js with a pool of 10, like the server's request pool; with
 * --embedded, the embedded database opened in this process), without HTTP, MCP, authentication,
 * rate limits, extraction, dedup, jobs or audit:
 *   - insert: the single-row insert of commit-query.ts's direct reference (entities and embedding
 *     computed before the timer starts) into bench_floor_facts, a table created `LIKE facts
 *     INCLUDING ALL` and filled with a copy of the seeded facts, so its indexes start the same size;
 *   - query: `hybridCandidates` from @engram/db, the service's own hybrid SQL (vector and full-text
 *     candidates fused with RRF, in its tenant transaction), on the real facts table of the loop's
 *     workspace, the topic's embedding computed once, depth 30 (what engram_query uses for limit 10).
 * On Postgres each row's floor window runs right after the server's (backlog drained), so both see
 * the same machine; with --embedded every floor window runs before the server starts (the server
 * holds the database's lock while it runs). ratio = server ops/s ÷ floor ops/s.
 *
 * The stack ceiling (--ceiling, Postgres only). Between each row's server window and its floor
 * window, the same clients drive stack-ceiling.ts: an MCP server on the same stack (fastify, the
 * SDK behind Engram's McpEndpoint, postgres.js with a pool of 10, the server's NODE_OPTIONS and
 * allocator) whose tools do only the floor's work. ceiling ÷ floor is what HTTP and MCP alone leave
 * of the floor's throughput on this machine, the most any server on this stack could reach;
 * Engram ÷ ceiling is what Engram's own work (authentication, rate limits, extraction, dedup,
 * match keys, detection, audit) costs on top.
 *
 * The machine's CPU (every process, from /proc/stat) is printed for each window: on a shared machine
 * judge by the ratios.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import type { Config } from '@engram/config';
import { joinWorkspace, provisionWorkspace } from '@engram/core';
import { createDb, forWorkspace, migrate, queryRows, type Database, type DbHandle } from '@engram/db';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { cliEnv, REPO_ROOT, startCli, type StartedCli } from '../support/cli.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import type { ClientThreadInput, ClientThreadMessage, GoMessage } from './concurrency-clients.ts';
import { raiseLimits } from './limits.ts';
import { referenceInsert, referenceQuery, referenceRow } from './reference-row.ts';
import { BULK_LIMITS, factText, seedWorkspaces } from './seed.ts';
import { startCeiling, type StartedCeiling } from './stack-ceiling.ts';
import { median, percentile, watchEventLoopDelay } from './stats.ts';

const { values: args } = parseArgs({
  options: {
    // The flag that selects this mode in `npm run bench` (commit-query.ts hands over on it).
    concurrency: { type: 'boolean', default: false },
    clients: { type: 'string', default: '1,10,50,200' },
    window: { type: 'string', default: '25' },
    size: { type: 'string', default: '10000' },
    workspaces: { type: 'string', default: 'both' },
    embedded: { type: 'boolean', default: false },
    warmup: { type: 'string', default: '5' },
    settle: { type: 'string', default: '5' },
    'drain-timeout': { type: 'string', default: '300' },
    // The server without its in-process detection worker: what requests cost without detection
    // beside them (the backlog is counted, not drained).
    'no-worker': { type: 'boolean', default: false },
    'client-threads': { type: 'string' },
    'node-options': { type: 'string' },
    // The server's allocator: jemalloc (preloaded, as the Dockerfile does) or glibc's malloc.
    allocator: { type: 'string', default: 'jemalloc' },
    keep: { type: 'boolean', default: false },
    // Seed without ANALYZE: the database the server starts on has never been analyzed.
    'never-analyzed': { type: 'boolean', default: false },
    // Postgres's own account of each window, statement by statement (needs pg_stat_statements loaded).
    statements: { type: 'boolean', default: false },
    // More of the server's environment, NAME=value (repeatable): to compare settings, e.g. ENGRAM_DB_POOL_SIZE=4.
    'server-env': { type: 'string', multiple: true, default: [] },
    // A window of the stack ceiling (stack-ceiling.ts) between each server window and its floor.
    ceiling: { type: 'boolean', default: false },
  },
});

type Mode = 'one' | 'many';
const CLIENT_COUNTS = args.clients.split(',').map(Number);
const MAX_CLIENTS = Math.max(...CLIENT_COUNTS);
const WINDOW_MS = Number(args.window) * 1000;
const SIZE = Number(args.size);
const MODES: Mode[] = args.workspaces === 'both' ? ['one', 'many'] : [args.workspaces as Mode];
const WARMUP_MS = Number(args.warmup) * 1000;
const SETTLE_MS = Number(args.settle) * 1000;
const NO_WORKER = args['no-worker'];
const DRAIN_TIMEOUT_MS = NO_WORKER ? 0 : Number(args['drain-timeout']) * 1000;
const EMBEDDED = args.embedded;
const SERVER_ENV = Object.fromEntries(
  args['server-env'].map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--server-env takes NAME=value (got ${pair})`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
if (CLIENT_COUNTS.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--clients must list positive integers, e.g. 1,10,50,200 (got ${args.clients})`);
if (!MODES.every((m) => m === 'one' || m === 'many')) throw new Error(`--workspaces must be one, many or both (got ${args.workspaces})`);
// One invite key admits the members of the one workspace, and an invite admits at most 1,000.
if (MODES.includes('one') && MAX_CLIENTS > 1000) throw new Error('--clients: at most 1000 in the one-workspace mode');
if (!(WINDOW_MS > 0) || !(SIZE >= 0)) throw new Error('--window and --size must be positive numbers');
// The ceiling opens the database in its own process, beside the server: only Postgres allows that.
if (args.ceiling && EMBEDDED) throw new Error('--ceiling runs on Postgres only (the embedded database is open in one process at a time); drop --embedded or --ceiling');

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_TOKEN = 'bench-admin-token-0123456789-abcdefghijklmnop';
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const FLOOR_POOL = 10;
const HEALTH_POLL_MS = 50;
const CORES = os.availableParallelism();
/** USER_HZ: /proc reports CPU time in ticks of 1/100 s on Linux. */
const TICKS_PER_SECOND = 100;

/** The server's NODE_OPTIONS: --node-options, else the Dockerfile's. */
function serverNodeOptions(): string {
  if (args['node-options'] !== undefined) return args['node-options'];
  const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const found = /NODE_OPTIONS=(?:"([^"]*)"|(\S+))/.exec(dockerfile);
  return found?.[1] ?? found?.[2] ?? '';
}
const NODE_OPTIONS = serverNodeOptions();

/** Where Debian's libjemalloc2 puts the library, for the architectures the image is built for. */
const JEMALLOC_PATHS = ['/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2'];

/** The server's LD_PRELOAD: jemalloc as in the image (--allocator jemalloc, the default), or none. */
function serverPreload(): string | undefined {
  if (args.allocator === 'glibc') return undefined;
  if (args.allocator !== 'jemalloc') throw new Error(`--allocator ${args.allocator}: use jemalloc (as the image) or glibc`);
  const found = JEMALLOC_PATHS.find((p) => fs.existsSync(p));
  if (!found) throw new Error('jemalloc is not installed here (apt-get install libjemalloc2), or pass --allocator glibc');
  return found;
}
const LD_PRELOAD = serverPreload();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const epochNow = () => performance.timeOrigin + performance.now();
const MiB = (kib: number) => kib / 1024;

// --- the server process, from outside ---------------------------------------------------------
function procStatus(pid: number): { rssKiB: number; hwmKiB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
}
/** User + system CPU seconds of a process (every thread). */
function procCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
/**
 * CPU seconds of each Postgres backend connected to `databaseName` (found by their process titles,
 * `postgres: ... <user> <database> <address> <state>`); shared processes (WAL writer, checkpointer)
 * are left out.
 */
function backendsCpuSeconds(databaseName: string): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (title.startsWith('postgres:') && title.includes(` ${databaseName} `)) cpu.set(Number(entry), procCpuSeconds(Number(entry)));
    } catch {
      // The process ended meanwhile.
    }
  }
  return cpu;
}
/** CPU seconds the backends of `databaseName` used since `before` (a backend that started since counts from zero). */
function backendsCpuSince(databaseName: string, before: Map<number, number>): number {
  let seconds = 0;
  for (const [pid, now] of backendsCpuSeconds(databaseName)) seconds += now - (before.get(pid) ?? 0);
  return seconds;
}

/** One statement's share of a window, from pg_stat_statements. */
interface StatementCost {
  calls: number;
  execMs: number;
  planMs: number;
  text: string;
}
/**
 * Postgres's own account of a window (--statements): pg_stat_statements is reset when the window
 * starts and read when it ends, for the bench database only.
 */
function statementAccount(databaseUrl: string | undefined) {
  if (!args.statements) return undefined;
  if (!databaseUrl) throw new Error('--statements reads pg_stat_statements: it needs Postgres, not --embedded');
  const pg = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  return {
    async prepare(): Promise<void> {
      try {
        await pg`create extension if not exists pg_stat_statements`;
        await pg`select 1 from pg_stat_statements limit 1`;
      } catch (error) {
        throw new Error(`--statements: pg_stat_statements is not usable here (${(error as Error).message}); add it to shared_preload_libraries and restart Postgres`, { cause: error });
      }
    },
    async reset(): Promise<void> {
      await pg`select pg_stat_statements_reset()`;
    },
    async read(): Promise<StatementCost[]> {
      const found = await pg<{ calls: number; exec_ms: number; plan_ms: number; query: string }[]>`
        select calls::float8 as calls, total_exec_time as exec_ms, total_plan_time as plan_ms, query
        from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`;
      return found.map((r) => ({ calls: r.calls, execMs: r.exec_ms, planMs: r.plan_ms, text: r.query.replace(/\s+/g, ' ').trim() }));
    },
    close: () => pg.end(),
  };
}
type StatementAccount = NonNullable<ReturnType<typeof statementAccount>>;

/** The statements that took most of a window's database time, per operation of the window. */
function statementLines(costs: StatementCost[], operations: number, top = 12): string[] {
  const total = costs.reduce((sum, c) => sum + c.execMs + c.planMs, 0);
  return [...costs]
    .sort((a, b) => b.execMs + b.planMs - (a.execMs + a.planMs))
    .slice(0, top)
    .map((c) => {
      const share = ((c.execMs + c.planMs) / total) * 100;
      return `    ${share.toFixed(1).padStart(5)}%  ${(c.calls / operations).toFixed(2).padStart(6)} calls/op  exec ${(c.execMs / Math.max(1, c.calls)).toFixed(3)} ms  plan ${(c.planMs / Math.max(1, c.calls)).toFixed(3)} ms  ${c.text.slice(0, 110)}`;
    });
}

/** The whole machine's CPU time, busy and total (jiffies). */
function machineCpu(): { busy: number; total: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  // idle and iowait are the 4th and 5th.
  return { busy: total - values[3]! - values[4]!, total };
}
/** Resets the process's peak RSS (VmHWM) to its current RSS; false where the kernel does not allow it. */
function resetPeakRss(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface Watch {
  healthMs: number[];
  healthErrors: number;
  rssMaxKiB: number;
  /** This (main) thread's event-loop delay p99: the /healthz poller's own lateness. */
  mainLoopP99Ms: number;
}
/** A process that answers MCP (and GET /healthz) at `mcpUrl`: the server, or the stack ceiling. */
type McpProcess = Pick<StartedCli, 'child' | 'mcpUrl'>;

/** Polls /healthz every 50 ms and samples the server's RSS every 100 ms until stopped. */
function watchServer(server: McpProcess): { stop(): Promise<Watch> } {
  const pid = server.child.pid!;
  const healthUrl = new URL('/healthz', server.mcpUrl);
  const watch: Watch = { healthMs: [], healthErrors: 0, rssMaxKiB: 0, mainLoopP99Ms: 0 };
  const loop = watchEventLoopDelay();
  let running = true;
  const health = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(healthUrl);
        await res.arrayBuffer();
        if (res.ok) watch.healthMs.push(performance.now() - started);
        else watch.healthErrors++;
      } catch {
        watch.healthErrors++;
      }
      await sleep(Math.max(0, HEALTH_POLL_MS - (performance.now() - started)));
    }
  })();
  const rss = setInterval(() => {
    try {
      watch.rssMaxKiB = Math.max(watch.rssMaxKiB, procStatus(pid).rssKiB);
    } catch {
      // The server exited (said when it happens): its requests fail and are counted.
    }
  }, 100);
  return {
    stop: async () => {
      running = false;
      clearInterval(rss);
      await health;
      watch.mainLoopP99Ms = loop.stop().p99;
      watch.rssMaxKiB = Math.max(watch.rssMaxKiB, procStatus(pid).rssKiB);
      return watch;
    },
  };
}

interface ServerLog {
  warn: number;
  error: number;
  /** The longest event-loop stall the server logged (`event loop stalled`, 100 ms or more), or 0. */
  stallMaxMs: number;
  /** The garbage collector's longest pause in the second of that stall. */
  stallGcMs: number;
  /** The most frequent warn and error messages, with their counts. */
  top: string[];
}
/**
 * Counts the server's warn and error log lines (pino JSON on its stdout) until each `take()`, and
 * keeps its last lines of output.
 */
function watchServerLog(server: StartedCli): { take(): ServerLog; tail(): string } {
  let counts = { warn: 0, error: 0 };
  let stallMaxMs = 0;
  let stallGcMs = 0;
  const messages = new Map<string, number>();
  const last: string[] = [];
  let partial = '';
  server.child.stderr.on('data', (data: Buffer) => last.push(...data.toString().split('\n').filter(Boolean)));
  server.child.stdout.on('data', (data: Buffer) => {
    const lines = (partial + data.toString()).split('\n');
    partial = lines.pop() ?? '';
    last.push(...lines);
    last.splice(0, Math.max(0, last.length - 20));
    for (const line of lines) {
      let entry: { level?: number; msg?: string; err?: { message?: string }; max_ms?: number; gc_longest_ms?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      const level = entry.level ?? 0;
      if (level < 40) continue;
      if (entry.msg === 'event loop stalled' && (entry.max_ms ?? 0) > stallMaxMs) {
        stallMaxMs = entry.max_ms ?? 0;
        stallGcMs = entry.gc_longest_ms ?? 0;
      }
      counts = level >= 50 ? { ...counts, error: counts.error + 1 } : { ...counts, warn: counts.warn + 1 };
      // pino appends an error's causes to its message: a driver error wrapped by drizzle reads
      // "Failed query: <its SQL> params: ...: <why>", so a long message is shown by its end.
      const why = entry.err?.message;
      const shown = why && why.length > 120 ? `…${why.slice(-120)}` : why;
      const key = `${level >= 50 ? 'error' : 'warn'}: ${entry.msg ?? ''}${shown ? ` (${shown})` : ''}`;
      messages.set(key, (messages.get(key) ?? 0) + 1);
    }
  });
  return {
    take: () => {
      const top = [...messages].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([message, n]) => `${n}× ${message}`);
      const taken = { ...counts, top, stallMaxMs, stallGcMs };
      counts = { warn: 0, error: 0 };
      stallMaxMs = 0;
      stallGcMs = 0;
      messages.clear();
      return taken;
    },
    tail: () => last.slice(-20).join('\n'),
  };
}

// --- setup: database, workspaces, members, facts ------------------------------------------------
interface BenchWorkspace {
  workspaceId: string;
  ownerToken: string;
}
interface Setup {
  one?: BenchWorkspace & { memberTokens: string[] };
  many: BenchWorkspace[];
}

async function provision(db: Database): Promise<Setup> {
  const setup: Setup = { many: [] };
  if (MODES.includes('one')) {
    const created = await provisionWorkspace(db, SECRET, { name: 'bench one', invite: { max_uses: Math.max(1, MAX_CLIENTS), expires_in_days: 1 } });
    const memberTokens: string[] = [];
    for (let k = 0; k < MAX_CLIENTS; k++) {
      const joined = await joinWorkspace(db, SECRET, { invite_key: created.inviteKey, display_name: `bench client ${k}` }, 'http://127.0.0.1/mcp');
      memberTokens.push(joined.token);
    }
    setup.one = { workspaceId: created.workspaceId, ownerToken: created.ownerToken, memberTokens };
  }
  if (MODES.includes('many')) {
    for (let k = 0; k < MAX_CLIENTS; k++) {
      const created = await provisionWorkspace(db, SECRET, { name: `bench many ${k}` });
      setup.many.push({ workspaceId: created.workspaceId, ownerToken: created.ownerToken });
    }
  }
  return setup;
}

function seedPlan(setup: Setup): { workspaceId: string; count: number }[] {
  const plan: { workspaceId: string; count: number }[] = [];
  if (setup.one) plan.push({ workspaceId: setup.one.workspaceId, count: SIZE });
  setup.many.forEach((w, k) => plan.push({ workspaceId: w.workspaceId, count: Math.floor(SIZE / setup.many.length) + (k < SIZE % setup.many.length ? 1 : 0) }));
  return plan.filter((p) => p.count > 0);
}

/** bench_floor_facts: `LIKE facts INCLUDING ALL`, holding a copy of the facts (its HNSW index built after the copy). */
async function createFloorTable(db: Database, engine: Config['database']['kind']): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`drop table if exists bench_floor_facts`);
    await tx.execute(sql`create table bench_floor_facts (like facts including all)`);
    const vectorIndexes = await queryRows<{ indexname: string; indexdef: string }>(
      tx,
      sql`select indexname, indexdef from pg_indexes where tablename = 'bench_floor_facts' and indexdef ilike '%using hnsw%'`,
    );
    for (const index of vectorIndexes) await tx.execute(sql.raw(`drop index "${index.indexname}"`));
    const columns = await queryRows<{ column_name: string }>(
      tx,
      sql`select column_name from information_schema.columns
          where table_schema = current_schema() and table_name = 'facts' and is_generated = 'NEVER' order by ordinal_position`,
    );
    const list = columns.map((c) => `"${c.column_name}"`).join(', ');
    await tx.execute(sql.raw(`insert into bench_floor_facts (${list}) select ${list} from facts`));
    await tx.execute(sql.raw(`set local maintenance_work_mem = '${engine === 'postgres' ? '512MB' : '64MB'}'`));
    for (const index of vectorIndexes) await tx.execute(sql.raw(index.indexdef));
  });
  await db.execute(sql`analyze bench_floor_facts`);
}

// --- the floor: the same mix, straight to the database -------------------------------------------
interface FloorResult {
  opsPerSecond: number;
  insertMs: number[];
  queryMs: number[];
  /** Queries that found no candidate: a floor that finds nothing would look fast. */
  emptyQueries: number;
  /** This process's CPU meanwhile, in cores (with --embedded it includes the database's thread). */
  benchCores: number;
  /** The bench database's Postgres backends meanwhile, in cores (null on the embedded database). */
  databaseCores: number | null;
  errors: number;
  errorSamples: string[];
}

let floorSerial = 1_000_000_000;

async function runFloor(handle: DbHandle, workspaceIds: string[], windowMs: number): Promise<FloorResult> {
  const insertMs: number[] = [];
  const queryMs: number[] = [];
  let errors = 0;
  let emptyQueries = 0;
  const errorSamples = new Set<string>();
  const cpu = process.cpuUsage();
  const databaseName = databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : undefined;
  const databaseCpu = databaseName ? backendsCpuSeconds(databaseName) : undefined;
  const started = epochNow();
  const endAt = started + windowMs;
  await Promise.all(
    workspaceIds.map(async (workspaceId, k) => {
      for (let i = 0; epochNow() < endAt; i++) {
        const insert = (i % 2 === 0) === (k % 2 === 0);
        let op: () => Promise<unknown>;
        if (insert) {
          const { content, scope } = factText(floorSerial++);
          const statement = referenceInsert(sql`bench_floor_facts`, workspaceId, referenceRow(content, scope), `floor-${k}`);
          op = () => handle.db.execute(statement);
        } else {
          op = async () => {
            const candidates = await referenceQuery(forWorkspace(handle.db, workspaceId), i);
            if (candidates.length === 0) emptyQueries++;
          };
        }
        const t0 = performance.now();
        try {
          await op();
          (insert ? insertMs : queryMs).push(performance.now() - t0);
        } catch (error) {
          errors++;
          if (errorSamples.size < 5) errorSamples.add(`${insert ? 'insert' : 'hybrid query'}: ${(error as Error).message.slice(0, 200)}`);
        }
      }
    }),
  );
  const elapsedMs = epochNow() - started;
  const used = process.cpuUsage(cpu);
  return {
    opsPerSecond: ((insertMs.length + queryMs.length) / elapsedMs) * 1000,
    insertMs,
    queryMs,
    emptyQueries,
    benchCores: (used.user + used.system) / 1000 / elapsedMs,
    databaseCores: databaseName ? (backendsCpuSince(databaseName, databaseCpu!) * 1000) / elapsedMs : null,
    errors,
    errorSamples: [...errorSamples],
  };
}

// --- the server window ---------------------------------------------------------------------------
interface ClientSpec {
  token: string;
  workspaceId: string;
}
interface ServerWindow {
  opsPerSecond: number;
  commitMs: number[];
  queryMs: number[];
  errors: number;
  errorSamples: string[];
  watch: Watch;
  serverCores: number;
  /** The bench database's Postgres backends (null on the embedded database, which runs inside the server). */
  databaseCores: number | null;
  clientCores: number;
  clientLoopP99Ms: number;
  machineCores: number;
  threads: number;
  startedAt: Date;
  /** VmHWM was reset when the window started, so it is this window's peak from then on. */
  peakReset: boolean;
}

let clientSerial = 20_000_000;

function startClientThread(input: ClientThreadInput): { worker: Worker; next(): Promise<ClientThreadMessage> } {
  const worker = new Worker(new URL('./concurrency-clients.ts', import.meta.url), { workerData: input });
  const queue: ClientThreadMessage[] = [];
  const waiting: { resolve(m: ClientThreadMessage): void; reject(e: Error): void }[] = [];
  let failure: Error | undefined;
  worker.on('message', (message: ClientThreadMessage) => {
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(message);
    else queue.push(message);
  });
  const fail = (error: Error) => {
    failure = error;
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`a client thread exited (code ${code}) before it reported`)));
  return {
    worker,
    next: () => {
      const queued = queue.shift();
      if (queued) return Promise.resolve(queued);
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  };
}

async function runServerWindow(server: McpProcess, clients: ClientSpec[], windowMs: number, options: { ceiling?: boolean } = {}): Promise<ServerWindow> {
  const threadCount = Math.max(1, Math.min(clients.length, Number(args['client-threads'] ?? Math.min(CORES, Math.ceil(clients.length / 50)))));
  const inputs: ClientThreadInput[] = Array.from({ length: threadCount }, () => ({ mcpUrl: server.mcpUrl, ceiling: options.ceiling, clients: [] }));
  clients.forEach((c, k) => {
    inputs[k % threadCount]!.clients.push({ token: c.token, workspaceId: c.workspaceId, agentId: `bench-client-${k}`, serialBase: clientSerial, commitFirst: k % 2 === 0 });
    clientSerial += 100_000;
  });
  const threads = inputs.map(startClientThread);
  try {
    for (const thread of threads) {
      const message = await thread.next();
      if (message.type !== 'ready') throw new Error('a client thread did not get ready');
    }
    const pid = server.child.pid!;
    const peakReset = resetPeakRss(pid);
    const databaseName = databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : undefined;
    const cpu0 = { server: procCpuSeconds(pid), client: process.cpuUsage(), machine: machineCpu(), database: databaseName ? backendsCpuSeconds(databaseName) : undefined };
    const watcher = watchServer(server);
    const startedAt = new Date();
    const startAt = Date.now() + 100;
    const go: GoMessage = { type: 'go', startAt, endAt: startAt + windowMs };
    for (const thread of threads) thread.worker.postMessage(go);
    const results = [];
    for (const thread of threads) {
      const message = await thread.next();
      if (message.type !== 'done') throw new Error('a client thread did not report its window');
      results.push(message);
    }
    const watch = await watcher.stop();
    const wallSeconds = (Math.max(...results.map((r) => r.lastEnd)) - go.startAt) / 1000;
    const client = process.cpuUsage(cpu0.client);
    const machine = machineCpu();
    const commitMs = results.flatMap((r) => r.commitMs);
    const queryMs = results.flatMap((r) => r.queryMs);
    return {
      opsPerSecond: (commitMs.length + queryMs.length) / wallSeconds,
      commitMs,
      queryMs,
      errors: results.reduce((n, r) => n + r.commitErrors + r.queryErrors, 0),
      errorSamples: [...new Set(results.flatMap((r) => r.errorSamples))].slice(0, 5),
      watch,
      serverCores: (procCpuSeconds(pid) - cpu0.server) / wallSeconds,
      databaseCores: databaseName ? backendsCpuSince(databaseName, cpu0.database!) / wallSeconds : null,
      clientCores: (client.user + client.system) / 1e6 / wallSeconds,
      clientLoopP99Ms: Math.max(...results.map((r) => r.loopDelayP99Ms)),
      machineCores: ((machine.busy - cpu0.machine.busy) / (machine.total - cpu0.machine.total)) * CORES,
      threads: threadCount,
      startedAt,
      peakReset,
    };
  } finally {
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }
}

// --- detection backlog ------------------------------------------------------------------------------
interface Backlog {
  pending: number;
  running: number;
  failed: number;
  /** Workspaces with jobs pending or running. */
  busy: ClientSpec[];
}

/** One client of each workspace (the one-workspace mode's clients all share one). */
const oneEach = (clients: ClientSpec[]) => clients.filter((c, k) => clients.findIndex((o) => o.workspaceId === c.workspaceId) === k);

interface BacklogReader {
  read(workspaces: ClientSpec[]): Promise<Backlog>;
  /** Detection runs started since `since`: how many, the longest, facts read (Postgres only). */
  runs(since: Date): Promise<{ runs: number; longestMs: number; factsRead: number } | null>;
  close(): Promise<void>;
}

function backlogReader(server: StartedCli, databaseUrl: string | undefined): BacklogReader {
  if (databaseUrl) {
    const pg = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    return {
      read: async (workspaces) => {
        const ids = [...new Set(workspaces.map((w) => w.workspaceId))];
        const rows = await pg<{ workspace_id: string; pending: number; running: number; failed: number }[]>`
          select workspace_id, count(*) filter (where status = 'pending')::int as pending,
                 count(*) filter (where status = 'running')::int as running, count(*) filter (where status = 'failed')::int as failed
          from detection_jobs where workspace_id = any(${ids}::uuid[]) and status in ('pending', 'running', 'failed')
          group by workspace_id`;
        const busy = new Set(rows.filter((r) => r.pending + r.running > 0).map((r) => r.workspace_id));
        return {
          pending: rows.reduce((n, r) => n + r.pending, 0),
          running: rows.reduce((n, r) => n + r.running, 0),
          failed: rows.reduce((n, r) => n + r.failed, 0),
          busy: oneEach(workspaces).filter((w) => busy.has(w.workspaceId)),
        };
      },
      runs: async (since) => {
        const [row] = await pg<{ runs: number; longest_ms: number; facts_read: number }[]>`
          select count(*)::int as runs, coalesce(max(duration_ms), 0)::int as longest_ms, coalesce(sum(facts_read), 0)::float8 as facts_read
          from detection_runs where started_at >= ${since}`;
        return { runs: row!.runs, longestMs: row!.longest_ms, factsRead: row!.facts_read };
      },
      close: () => pg.end(),
    };
  }
  // The embedded database is the server's alone while it runs: ask it, workspace by workspace.
  const statusUrl = new URL('/api/v1/detection/status', server.mcpUrl);
  return {
    read: async (workspaces) => {
      const total: Backlog = { pending: 0, running: 0, failed: 0, busy: [] };
      for (const w of oneEach(workspaces)) {
        const res = await fetch(statusUrl, { headers: { authorization: `Bearer ${w.token}` } });
        if (!res.ok) throw new Error(`GET /api/v1/detection/status: ${res.status} ${await res.text()}`);
        const body = (await res.json()) as { pending_jobs: number; running_jobs: number; failed_jobs?: number };
        total.pending += body.pending_jobs;
        total.running += body.running_jobs;
        total.failed += body.failed_jobs ?? 0;
        if (body.pending_jobs + body.running_jobs > 0) total.busy.push(w);
      }
      return total;
    },
    runs: async () => null,
    close: async () => {},
  };
}

/** Waits until no detection job of `workspaces` is pending or running; null seconds when it timed out. */
/**
 * Waits until no detection job of `workspaces` is pending or running (seconds null: not within
 * --drain-timeout); `failed` counts the jobs given up on by then.
 */
async function drain(reader: BacklogReader, workspaces: ClientSpec[]): Promise<{ atStop: Backlog; seconds: number | null; failed: number }> {
  const started = performance.now();
  const atStop = await reader.read(workspaces);
  let current = atStop;
  let seconds: number | null = null;
  while (current.pending + current.running > 0 && performance.now() - started <= DRAIN_TIMEOUT_MS) {
    await sleep(250);
    // Only workspaces that still had work: nothing adds detection jobs once the clients stopped.
    current = await reader.read(current.busy);
  }
  if (current.pending + current.running === 0) seconds = (performance.now() - started) / 1000;
  return { atStop, seconds, failed: (await reader.read(workspaces)).failed };
}

// --- the run ----------------------------------------------------------------------------------------
interface Row {
  mode: Mode;
  clients: number;
  server?: ServerWindow;
  /** The stack ceiling's window (--ceiling). */
  ceiling?: ServerWindow;
  floor?: FloorResult;
  backlogAtStop?: number;
  drainSeconds?: number | null;
  failedJobs?: number;
  drainHealthMaxMs?: number;
  peakRssKiB?: number;
  rssAfterKiB?: number;
  runs?: { runs: number; longestMs: number; factsRead: number } | null;
  serverLog?: ServerLog;
}

const rows: Row[] = CLIENT_COUNTS.flatMap((clients) => MODES.map((mode) => ({ mode, clients }))).sort(
  (a, b) => MODES.indexOf(a.mode) - MODES.indexOf(b.mode) || a.clients - b.clients,
);

const log = (line: string) => process.stderr.write(`${line}\n`);
const ms = (v: number) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(1) : v.toFixed(0)) : '–');
const pair = (values: number[]) => `${ms(median(values))} / ${ms(percentile(values, 99))}`;

function clientsOf(setup: Setup, mode: Mode, count: number): ClientSpec[] {
  if (mode === 'one') return setup.one!.memberTokens.slice(0, count).map((token) => ({ token, workspaceId: setup.one!.workspaceId }));
  return setup.many.slice(0, count).map((w) => ({ token: w.ownerToken, workspaceId: w.workspaceId }));
}

async function floorRows(handle: DbHandle, setup: Setup, onlyFor: Row[], account?: StatementAccount): Promise<void> {
  // Warm the pool and the plans, as the server's warm-up does.
  const first = onlyFor[0]!;
  await runFloor(handle, clientsOf(setup, first.mode, Math.min(10, first.clients)).map((c) => c.workspaceId), Math.min(WARMUP_MS, 2000));
  for (const row of onlyFor) {
    await account?.reset();
    row.floor = await runFloor(handle, clientsOf(setup, row.mode, row.clients).map((c) => c.workspaceId), WINDOW_MS);
    const statements = await account?.read();
    log(`  floor ${row.mode}, ${row.clients} loops: ${row.floor.opsPerSecond.toFixed(0)} ops/s, insert ${pair(row.floor.insertMs)} ms, query ${pair(row.floor.queryMs)} ms, bench process CPU ${row.floor.benchCores.toFixed(2)} cores${row.floor.databaseCores === null ? '' : `, database CPU ${row.floor.databaseCores.toFixed(2)} cores`}${row.floor.emptyQueries ? `, ${row.floor.emptyQueries} queries found nothing` : ''}${row.floor.errors ? `, ${row.floor.errors} errors: ${row.floor.errorSamples.join(' | ')}` : ''}`);
    if (statements) log(['  floor statements (share of database time, calls per operation, means):', ...statementLines(statements, row.floor.insertMs.length + row.floor.queryMs.length)].join('\n'));
  }
}

const startedAt = new Date();
const loadAverage = os.loadavg().map((l) => l.toFixed(1)).join(' ');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-concurrency-'));
const databaseUrl = EMBEDDED ? undefined : await createScratchDatabase(ADMIN_URL, 'engram_bench_concurrency');
const database: Config['database'] = databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'pglite', dataDir: path.join(dataDir, 'pgdata') };
log(`${EMBEDDED ? `embedded database in ${dataDir}` : `bench database ${new URL(databaseUrl!).pathname.slice(1)}`}`);
let server: StartedCli | undefined;
let ceiling: StartedCeiling | undefined;
let stopping = false;
let floorHandle: DbHandle | undefined;
const account = statementAccount(databaseUrl);
let idle = { startupRssKiB: 0, rssKiB: 0, healthMs: [] as number[] };
try {
  await account?.prepare();
  // Schema, workspaces and members, then the facts, before the server starts (the embedded
  // database can be open in one process at a time).
  const setupHandle = await createDb(database, { maxConnections: 1, limits: BULK_LIMITS });
  let setup: Setup;
  try {
    await migrate(setupHandle.db);
    setup = await provision(setupHandle.db);
  } finally {
    await setupHandle.close();
  }
  log(`  ${setup.one ? `1 workspace with ${MAX_CLIENTS} members` : ''}${setup.one && setup.many.length ? ', ' : ''}${setup.many.length ? `${setup.many.length} workspaces` : ''}`);
  await seedWorkspaces(database, seedPlan(setup), 0, { analyze: !args['never-analyzed'] });
  // Copying the facts and building the copy's vector index takes longer than a request may.
  const bulkHandle = await createDb(database, { maxConnections: 1, limits: BULK_LIMITS });
  try {
    await createFloorTable(bulkHandle.db, database.kind);
  } finally {
    await bulkHandle.close();
  }
  floorHandle = await createDb(database, { maxConnections: FLOOR_POOL });
  if (EMBEDDED) {
    log('\n== floor windows (the embedded database in this process, before the server opens it)');
    await floorRows(floorHandle, setup, rows);
    await floorHandle.db.execute(sql`drop table bench_floor_facts`);
    await floorHandle.close();
    floorHandle = undefined;
  }

  server = await startCli(
    cliEnv({
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ENGRAM_SECRET: SECRET,
      ENGRAM_ADMIN_TOKEN: ADMIN_TOKEN,
      ENGRAM_DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      NODE_OPTIONS,
      ...(LD_PRELOAD ? { LD_PRELOAD } : {}),
      ...(NO_WORKER ? { ENGRAM_IN_PROCESS_WORKER: 'false' } : {}),
      ...SERVER_ENV,
    }),
  );
  const pid = server.child.pid!;
  idle.startupRssKiB = procStatus(pid).rssKiB;
  const serverLog = watchServerLog(server);
  server.child.once('exit', (code, signal) => {
    if (!stopping) log(`!! the server exited (${signal ?? `code ${code}`}) during the run; its last output:\n${serverLog.tail()}`);
  });
  const baseUrl = new URL('/', server.mcpUrl).toString();
  for (const w of [...(setup.one ? [setup.one] : []), ...setup.many]) await raiseLimits(baseUrl, w.ownerToken);
  const reader = backlogReader(server, databaseUrl);
  try {
    // Warm-up (JIT, pools, caches), its detection work drained, then the idle figures.
    const warmupClients = clientsOf(setup, MODES[0]!, Math.min(10, MAX_CLIENTS));
    log(`\n== warm-up: ${warmupClients.length} clients for ${WARMUP_MS / 1000} s`);
    await runServerWindow(server, warmupClients, WARMUP_MS);
    await drain(reader, warmupClients);
    serverLog.take();
    await sleep(SETTLE_MS);
    const idleWatch = watchServer(server);
    await sleep(2000);
    idle = { ...idle, rssKiB: procStatus(pid).rssKiB, healthMs: (await idleWatch.stop()).healthMs };
    log(`  idle: RSS ${MiB(idle.rssKiB).toFixed(0)} MiB (${MiB(idle.startupRssKiB).toFixed(0)} MiB at startup), /healthz p50 ${ms(median(idle.healthMs))} ms`);

    if (args.ceiling) {
      ceiling = await startCeiling(databaseUrl!, { NODE_OPTIONS, ...(LD_PRELOAD ? { LD_PRELOAD } : {}) });
      log(`\n== stack ceiling warm-up: ${warmupClients.length} clients for ${WARMUP_MS / 1000} s`);
      await runServerWindow(ceiling, warmupClients, WARMUP_MS, { ceiling: true });
    }

    for (const row of rows) {
      const clients = clientsOf(setup, row.mode, row.clients);
      log(`\n== ${row.mode === 'one' ? 'one workspace' : 'a workspace per client'}, ${row.clients} client(s), ${WINDOW_MS / 1000} s`);
      await account?.reset();
      const window = await runServerWindow(server, clients, WINDOW_MS);
      const statements = await account?.read();
      row.server = window;
      const drainWatch = watchServer(server);
      const drained = await drain(reader, clients);
      const drainWatched = await drainWatch.stop();
      row.backlogAtStop = drained.atStop.pending + drained.atStop.running;
      row.drainSeconds = drained.seconds;
      row.failedJobs = drained.failed;
      row.drainHealthMaxMs = drainWatched.healthMs.length ? Math.max(...drainWatched.healthMs) : Number.NaN;
      // The kernel's own peak when it could be reset for the window, else the 100 ms samples'.
      row.peakRssKiB = Math.max(window.peakReset ? procStatus(pid).hwmKiB : 0, window.watch.rssMaxKiB, drainWatched.rssMaxKiB);
      row.runs = await reader.runs(window.startedAt);
      row.serverLog = serverLog.take();
      log(
        `  ${window.opsPerSecond.toFixed(0)} ops/s, commit ${pair(window.commitMs)} ms, query ${pair(window.queryMs)} ms, ${window.errors} errors` +
          `${window.errorSamples.length ? ` (${window.errorSamples.join(' | ')})` : ''}; /healthz p99 ${ms(percentile(window.watch.healthMs, 99))} ms ` +
          `(the poller's own loop p99 ${ms(window.watch.mainLoopP99Ms)} ms); client CPU ${window.clientCores.toFixed(2)} cores; ` +
          `backlog ${row.backlogAtStop} jobs, ${NO_WORKER ? 'not drained (no worker)' : `drained in ${row.drainSeconds === null ? `over ${DRAIN_TIMEOUT_MS / 1000}` : row.drainSeconds.toFixed(1)} s`}; ` +
          `server log: ${row.serverLog.warn} warn, ${row.serverLog.error} error${row.serverLog.top.length ? ` (${row.serverLog.top.join(' | ')})` : ''}`,
      );
      if (statements) log(['  server statements (share of database time, calls per operation, means):', ...statementLines(statements, window.commitMs.length + window.queryMs.length)].join('\n'));
      await sleep(SETTLE_MS);
      row.rssAfterKiB = procStatus(pid).rssKiB;
      if (ceiling) {
        row.ceiling = await runServerWindow(ceiling, clients, WINDOW_MS, { ceiling: true });
        const c = row.ceiling;
        log(
          `  stack ceiling: ${c.opsPerSecond.toFixed(0)} ops/s, commit ${pair(c.commitMs)} ms, query ${pair(c.queryMs)} ms, ${c.errors} errors` +
            `${c.errorSamples.length ? ` (${c.errorSamples.join(' | ')})` : ''}; ceiling CPU ${c.serverCores.toFixed(2)} cores, database CPU ${c.databaseCores!.toFixed(2)} cores, client CPU ${c.clientCores.toFixed(2)} cores`,
        );
      }
      if (floorHandle) await floorRows(floorHandle, setup, [row], account);
    }
  } finally {
    await reader.close();
  }
} finally {
  await floorHandle?.close();
  await account?.close();
  stopping = true;
  await ceiling?.stop();
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (databaseUrl && !args.keep) await dropScratchDatabase(ADMIN_URL, databaseUrl);
}

// --- report -------------------------------------------------------------------------------------------
const heapLimitMiB = Number(
  execFileSync(process.execPath, ['-e', 'process.stdout.write(String(require("v8").getHeapStatistics().heap_size_limit))'], {
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS },
  }).toString(),
) / 2 ** 20;
const engine = EMBEDDED ? 'embedded PGlite' : 'Postgres';
const out: string[] = [
  `Concurrency benchmark, ${engine}, ${startedAt.toISOString()}: ${WINDOW_MS / 1000} s windows, a 50/50 mix of engram_commit and engram_query per client; ` +
    `${SIZE.toLocaleString('en-US')} facts seeded (one workspace: all of them; many: shared among ${MAX_CLIENTS} workspaces).`,
  `Machine: ${CORES} cores, load average ${loadAverage} at the start (shared: judge by the ratios). Server NODE_OPTIONS "${NODE_OPTIONS}" (V8 heap limit ${heapLimitMiB.toFixed(0)} MiB), allocator ${LD_PRELOAD ? `jemalloc (${LD_PRELOAD})` : 'glibc'}. ` +
    `Idle server: RSS ${MiB(idle.rssKiB).toFixed(0)} MiB after the warm-up (${MiB(idle.startupRssKiB).toFixed(0)} MiB at startup), /healthz p50 ${ms(median(idle.healthMs))} ms.`,
  `Floor: the same mix straight to the database (${EMBEDDED ? 'the embedded database in the bench process, before the server started' : `postgres.js, pool of ${FLOOR_POOL}, after each server window`}): ` +
    'single-row insert into a `LIKE facts INCLUDING ALL` copy, and hybridCandidates (the service\'s hybrid SQL) on facts. ratio = ops/s ÷ floor ops/s.',
];
for (const mode of MODES) {
  const modeRows = rows.filter((r) => r.mode === mode && r.server);
  if (modeRows.length === 0) continue;
  const title = mode === 'one' ? 'one workspace, each client a member with its own token' : 'many workspaces, one per client';
  out.push(
    '',
    `### ${engine}, ${title}`,
    '',
    '| clients | ops/s | commit p50 / p99 ms | query p50 / p99 ms | errors | floor ops/s | floor insert p50 / p99 ms | floor query p50 / p99 ms | ratio |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...modeRows.map((r) => {
      const s = r.server!;
      const f = r.floor;
      return `| ${r.clients} | ${s.opsPerSecond.toFixed(0)} | ${pair(s.commitMs)} | ${pair(s.queryMs)} | ${s.errors} | ${f ? f.opsPerSecond.toFixed(0) : '–'} | ${f ? pair(f.insertMs) : '–'} | ${f ? pair(f.queryMs) : '–'} | ${f ? (s.opsPerSecond / f.opsPerSecond).toFixed(2) : '–'} |`;
    }),
    '',
    `| clients | /healthz p99 / max ms | longest event-loop stall (server's log; its second's longest GC pause) | /healthz max ms, drain | peak RSS MiB | RSS after MiB (vs idle) | server CPU | database CPU | client CPU (threads, loop p99 ms) | machine CPU (of ${CORES}) | backlog at stop | drained in s | detection runs (longest s, facts read) | server log warn / error |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...modeRows.map((r) => {
      const s = r.server!;
      const after = MiB(r.rssAfterKiB!);
      const vsIdle = Math.round((r.rssAfterKiB! / idle.rssKiB - 1) * 100);
      const runs = r.runs ? `${r.runs.runs} (${(r.runs.longestMs / 1000).toFixed(1)}, ${Math.round(r.runs.factsRead).toLocaleString('en-US')})` : '–';
      return (
        `| ${r.clients} | ${ms(percentile(s.watch.healthMs, 99))} / ${ms(Math.max(...s.watch.healthMs))}${s.watch.healthErrors ? ` (${s.watch.healthErrors} failed)` : ''} | ${r.serverLog!.stallMaxMs ? `${r.serverLog!.stallMaxMs} ms (GC ${r.serverLog!.stallGcMs} ms)` : 'none ≥ 100 ms'} | ${ms(r.drainHealthMaxMs!)} | ` +
        `${MiB(r.peakRssKiB!).toFixed(0)} | ${after.toFixed(0)} (${vsIdle > 0 ? '+' : ''}${vsIdle}%) | ${s.serverCores.toFixed(2)} | ${s.databaseCores === null ? '–' : s.databaseCores.toFixed(2)} | ` +
        `${s.clientCores.toFixed(2)} (${s.threads}, ${ms(s.clientLoopP99Ms)}) | ${s.machineCores.toFixed(2)} | ${r.backlogAtStop}${r.failedJobs ? ` (${r.failedJobs} failed)` : ''} | ` +
        `${NO_WORKER ? 'no worker' : r.drainSeconds === null ? `> ${DRAIN_TIMEOUT_MS / 1000}` : r.drainSeconds!.toFixed(1)} | ${runs} | ${r.serverLog!.warn} / ${r.serverLog!.error} |`
      );
    }),
  );
  const ceilingRows = modeRows.filter((r) => r.ceiling);
  if (ceilingRows.length === 0) continue;
  out.push(
    '',
    `The stack ceiling (stack-ceiling.ts: fastify and the MCP SDK behind McpEndpoint, its tools doing only the floor's work), ${title}:`,
    '',
    `| clients | ceiling ops/s | commit p50 / p99 ms | query p50 / p99 ms | errors | ceiling CPU | database CPU | client CPU | machine CPU (of ${CORES}) | ceiling ÷ floor | Engram ÷ ceiling |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...ceilingRows.map((r) => {
      const c = r.ceiling!;
      const f = r.floor;
      return (
        `| ${r.clients} | ${c.opsPerSecond.toFixed(0)} | ${pair(c.commitMs)} | ${pair(c.queryMs)} | ${c.errors} | ${c.serverCores.toFixed(2)} | ${c.databaseCores!.toFixed(2)} | ${c.clientCores.toFixed(2)} | ${c.machineCores.toFixed(2)} | ` +
        `${f ? (c.opsPerSecond / f.opsPerSecond).toFixed(2) : '–'} | ${(r.server!.opsPerSecond / c.opsPerSecond).toFixed(2)} |`
      );
    }),
  );
}
process.stdout.write(`\n${out.join('\n')}\n`);

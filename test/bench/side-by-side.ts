/**
 * Two builds of Engram, side by side, on one database: the fair way to say whether a change made
 * requests slower on a noisy machine. Each round starts one build's server on the same database,
 * sends the same sequential calls with the SDK's MCP client, stops it, then does the same with the
 * other build; the table gives the median over rounds of each run's p50 and p90, and the server
 * process's CPU time per call (read from /proc).
 *
 *   git worktree add /tmp/engram-base <rev> && (cd /tmp/engram-base && npm ci)
 *   node test/bench/commit-query.ts --sizes 100000 --keep   # prints "bench database <name>"
 *   node test/bench/side-by-side.ts --base /tmp/engram-base --database postgres://postgres@127.0.0.1:5432/<name> \
 *     [--head .] [--modes query,commit,prose] [--rounds 5] [--calls 800] [--worker] [--node-options="--cpu-prof --cpu-prof-dir=/tmp/prof"]
 *
 * Modes: `query`, `commit` (a fact with values), `prose` (a fact that states no value), `status`,
 * `list` (tools/list). The database must be one `npm run bench -- --keep` left (its workspace is named "bench"), at a
 * schema both builds can run on (the newer build migrates it first). Without `--worker` the
 * servers run no in-process detection, so the figures are the request path's alone; with it, each
 * run starts with no detection backlog. Needs Linux (/proc) and the ENGRAM_SECRET the bench used.
 *
 * A change to the schema or its SQL functions needs a database per build: copy the kept database
 * before the newer build migrates it (`create database <copy> template <name>`) and give the base
 * build the copy with `--base-database`, so each build answers with its own functions.
 *
 * On the embedded database, give the directory `npm run bench -- --embedded --keep` kept instead of
 * a URL (`--database /tmp/engram-bench-xxxx`), and a copy of it (`cp -a`) as `--base-database`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '@engram/config';
import { createDb, queryRows } from '@engram/db';
import { sql as dsql, type SQL } from 'drizzle-orm';
import { cliEnv, runScript, startCli } from '../support/cli.ts';
import { proseText, QUERY_TOPICS } from './story.ts';
import { median, percentile } from './stats.ts';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string', default: '.' },
    database: { type: 'string' },
    // The base build's own copy of the kept database (for a change to the schema or its functions).
    'base-database': { type: 'string' },
    modes: { type: 'string', default: 'query,commit' },
    rounds: { type: 'string', default: '5' },
    calls: { type: 'string', default: '800' },
    worker: { type: 'boolean', default: false },
    // NODE_OPTIONS for both servers (a CPU profile of each run, say; servers exit cleanly on stop).
    'node-options': { type: 'string' },
  },
});
if (!args.base || !args.database) {
  process.stderr.write('Usage: node test/bench/side-by-side.ts --base <checkout> --database <url of a kept bench database> [--head .]\n');
  process.exit(2);
}
const MODES = args.modes.split(',') as ('query' | 'commit' | 'prose' | 'status' | 'list')[];
const ROUNDS = Number(args.rounds);
const CALLS = Number(args.calls);
const WARM_UP = 100;
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
/** A Postgres URL, or the directory an embedded bench database was kept in. */
const embedded = (database: string) => !/^postgres(?:ql)?:/.test(database);
const env = (database: string, extra: Record<string, string> = {}) =>
  cliEnv({
    ...(embedded(database) ? {} : { DATABASE_URL: database }),
    ENGRAM_SECRET: SECRET,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ENGRAM_DATA_DIR: embedded(database) ? database : fs.mkdtempSync('/tmp/engram-sbs-'),
    ...(args['node-options'] ? { NODE_OPTIONS: args['node-options'] } : {}),
    ...extra,
  });

/** A build, its database (migrated by the build's own CLI) and a token for its bench workspace. */
async function prepare(name: string, dir: string, database: string) {
  const run = async (statement: SQL) => {
    // The database as the build's server reads it from the same environment.
    const handle = await createDb(loadConfig(env(database)).database, { maxConnections: 1 });
    try {
      return await queryRows<Record<string, unknown>>(handle.db, statement);
    } finally {
      await handle.close();
    }
  };
  const [bench] = (await run(dsql`select engram_id from workspaces where name = 'bench' limit 1`)) as { engram_id: string }[];
  if (!bench) throw new Error(`No workspace named "bench" on ${database}: point at one \`npm run bench -- --keep\` left.`);
  const migrated = await runScript(path.join(dir, 'apps/server/src/cli.ts'), ['migrate'], env(database));
  if (migrated.code !== 0) throw new Error(`${name} could not migrate ${database}: ${migrated.stderr}`);
  const minted = await runScript(path.join(dir, 'apps/server/src/cli.ts'), ['token', 'create', '--workspace', bench.engram_id, '--label', 'side-by-side'], env(database));
  const token = /egm_\S+/.exec(minted.stdout)?.[0];
  if (!token) throw new Error(`could not mint a token: ${minted.stderr}`);
  // With --worker, each run starts with no detection backlog.
  const clearBacklog = () => run(dsql`update detection_jobs set status = 'done', finished_at = now() where status <> 'done'`);
  return { name, dir, database, clearBacklog, token };
}
// The head first: on a shared database the newer build migrates it.
const head = await prepare('head', path.resolve(args.head), args.database);
const base = await prepare('base', path.resolve(args.base), args['base-database'] ?? args.database);
const builds = [base, head];
type Build = typeof head;

/** CPU seconds (user + system) a process has used so far. */
const cpuSeconds = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
};

let serial = Date.now() % 1_000_000;

async function call(client: Client, mode: (typeof MODES)[number], i: number): Promise<void> {
  if (mode === 'list') {
    await client.listTools();
    return;
  }
  const n = serial++;
  const request =
    mode === 'query'
      ? { name: 'engram_query', arguments: { topic: QUERY_TOPICS[i % QUERY_TOPICS.length]!, limit: 10 } }
      : mode === 'status'
        ? { name: 'engram_status', arguments: {} }
        : mode === 'prose'
          ? { name: 'engram_commit', arguments: { content: proseText(n), scope: `bench/prose-${n % 4}`, confidence: 0.9, agent_id: `sbs-${n % 5}` } }
          : { name: 'engram_commit', arguments: { content: `The service-${n % 5000} worker pool has ${n % 97} threads in region r${n % 7}`, scope: 'bench/side-by-side', confidence: 0.9, agent_id: `sbs-${n % 5}` } };
  const result = await client.callTool(request);
  if (result.isError) throw new Error(`${request.name}: ${JSON.stringify(result.content)}`);
}

/**
 * Waits until a server's own background work at start is done: its upkeep sweep re-extracts the
 * facts an older build stored (the other build's commits of the previous round), which would
 * otherwise be counted against the newer build. Idle = under 20 ms of CPU in each of two
 * half-seconds.
 */
async function settled(pid: number): Promise<void> {
  let quiet = 0;
  for (let i = 0; i < 240 && quiet < 2; i++) {
    const before = cpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 500));
    quiet = cpuSeconds(pid) - before <= 0.02 ? quiet + 1 : 0;
  }
}

interface Run {
  p50: number;
  p90: number;
  cpuMsPerCall: number;
}
async function runOnce(build: Build, mode: (typeof MODES)[number]): Promise<Run> {
  if (args.worker) await build.clearBacklog();
  const server = await startCli(env(build.database, args.worker ? {} : { ENGRAM_IN_PROCESS_WORKER: 'false' }), 120_000, [process.execPath, path.join(build.dir, 'apps/server/src/cli.ts'), 'start']);
  try {
    const client = new Client({ name: 'side-by-side', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${build.token}` } } }));
    for (let i = 0; i < WARM_UP; i++) await call(client, mode, i);
    await settled(server.child.pid!);
    const cpu0 = cpuSeconds(server.child.pid!);
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      await call(client, mode, i);
      times.push(performance.now() - t0);
    }
    const cpuMsPerCall = ((cpuSeconds(server.child.pid!) - cpu0) * 1000) / CALLS;
    await client.close();
    return { p50: median(times), p90: percentile(times, 90), cpuMsPerCall };
  } finally {
    await server.stop();
  }
}

const results = new Map<string, Run[]>();
for (const mode of MODES) {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const build of round % 2 ? builds : [...builds].reverse()) {
      const run = await runOnce(build, mode);
      const key = `${mode} ${build.name}`;
      results.set(key, [...(results.get(key) ?? []), run]);
      process.stderr.write(`  ${key} round ${round}: p50 ${run.p50.toFixed(2)} ms, p90 ${run.p90.toFixed(2)} ms, server CPU ${run.cpuMsPerCall.toFixed(2)} ms/call\n`);
    }
  }
}

const m = (runs: Run[], field: keyof Run) => median(runs.map((r) => r[field]));
process.stdout.write(`\n${ROUNDS} rounds of ${CALLS} sequential calls each${args.worker ? ' (in-process detection on)' : ' (no in-process detection)'}; medians over rounds\n\n`);
process.stdout.write('| call | base p50 | head p50 | change | base p90 | head p90 | base CPU/call | head CPU/call |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n');
for (const mode of MODES) {
  const b = results.get(`${mode} base`)!;
  const h = results.get(`${mode} head`)!;
  const change = (m(h, 'p50') / m(b, 'p50') - 1) * 100;
  process.stdout.write(
    `| ${mode} | ${m(b, 'p50').toFixed(2)} ms | ${m(h, 'p50').toFixed(2)} ms | ${change >= 0 ? '+' : ''}${change.toFixed(1)}% | ${m(b, 'p90').toFixed(2)} ms | ${m(h, 'p90').toFixed(2)} ms | ${m(b, 'cpuMsPerCall').toFixed(2)} ms | ${m(h, 'cpuMsPerCall').toFixed(2)} ms |\n`,
  );
}

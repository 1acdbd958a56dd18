/**
 * Where a sequential call's time goes, layer by layer, on Postgres: a bare HTTP request
 * (`/healthz`), the MCP layer (`ping`: authentication, rate limit and the SDK's exchange with no
 * work behind it; `tools/list`, `engram_status`), the tools as raw JSON-RPC POSTs and through the
 * SDK's MCP clients (the 2025-11-25 revision's; for the query also SDK v2's, pinned to
 * 2026-07-28), the same tools' work called in this process (`queryFacts`,
 * `commitFact`: no HTTP, MCP, auth, rate limit or audit), the service's own statement that stores
 * a fact (its inputs made outside the timer), and the database work they stand on issued directly
 * (the hybrid SQL, a single-row insert, their inputs computed outside the timer), and the stack
 * ceiling's two tools (stack-ceiling.ts: the same HTTP and MCP exchange with only the reference's
 * work behind it; its commit computes the row inside the call, as a commit must). For each: p50 latency, and the CPU the server process (for the ceiling's layers, the ceiling's) and this
 * process (the client) spent per call, read from /proc and `process.cpuUsage`, and the server's
 * garbage collection per call (young-generation pauses, the bytes they promoted to the old
 * generation, full GCs), from V8's GC profiler in the server (gc-probe.ts, preloaded). Layers take
 * turns in blocks of 200 calls, so a machine that changes speed affects them alike.
 *
 *   npm run bench:layers                     # 10,000 facts, 5 rounds
 *   npm run bench:layers -- --size 2000 --rounds 3 --layers healthz,ping,list,query,sdk-query,sdk-query-2026,hybrid
 *   npm run bench:layers -- "--node-options=--cpu-prof --cpu-prof-dir=/tmp/prof"   # the server's NODE_OPTIONS
 *
 * The server runs as its own process (`engram start`) without its in-process detection worker;
 * needs Linux (/proc) and a Postgres with pgvector where it may create a database
 * (BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  authenticateToken,
  commitFact,
  CommitInput,
  contentHash,
  embedLocally,
  readFact,
  queryFacts,
  QueryInput,
  storeNewFact,
  type FactDraft,
} from '@engram/core';
import { createDb, forWorkspace } from '@engram/db';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import postgres from 'postgres';
import { cliEnv, startCli } from '../support/cli.ts';
import { connectMcp, mustCall } from '../support/mcp.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import type { GcReport } from './gc-probe.ts';
import { raiseLimits } from './limits.ts';
import { insertReferenceRow, referenceQuery, referenceRow, type ReferenceRow } from './reference-row.ts';
import { startCeiling } from './stack-ceiling.ts';
import { BENCH_SECRET, benchServices, factText, QUERY_TOPICS, seed } from './seed.ts';
import { proseText } from './story.ts';
import { fmt, median } from './stats.ts';

const LAYERS = [
  'healthz', 'ping', 'list', 'sdk-list', 'status', 'query', 'batch-query', 'sdk-query', 'sdk-query-2026', 'in-process-query', 'hybrid',
  'commit', 'batch-commit', 'sdk-commit', 'prose-commit', 'in-process-commit', 'statement', 'insert', 'ceiling-query', 'ceiling-commit',
] as const;
type Layer = (typeof LAYERS)[number];
const DESCRIPTIONS: Record<Layer, string> = {
  healthz: 'GET /healthz (HTTP alone)',
  ping: 'ping, raw POST (the MCP exchange alone)',
  list: 'tools/list, raw POST',
  'sdk-list': 'tools/list, SDK client',
  status: 'engram_status, raw POST',
  query: 'engram_query, raw POST',
  'batch-query': "engram_query, raw POST as a batch of one (the SDK's HTTP transport)",
  'sdk-query': 'engram_query, SDK client',
  'sdk-query-2026': 'engram_query, SDK v2 client (2026-07-28)',
  'in-process-query': 'queryFacts in this process (no HTTP, MCP, auth)',
  hybrid: 'hybrid SQL, direct (hybridCandidates)',
  commit: 'engram_commit, raw POST',
  'batch-commit': "engram_commit, raw POST as a batch of one (the SDK's HTTP transport)",
  'sdk-commit': 'engram_commit, SDK client',
  'prose-commit': 'engram_commit of a fact with no value, raw POST',
  'in-process-commit': 'commitFact in this process (no HTTP, MCP, auth)',
  statement: "the service's statement storing a fact (storeNewFact)",
  insert: 'single-row insert, direct (postgres.js)',
  'ceiling-query': "stack ceiling's floor_query, raw POST (the hybrid SQL behind the same exchange)",
  'ceiling-commit': "stack ceiling's floor_commit, raw POST (the row made and inserted behind the same exchange)",
};

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '5' },
    layers: { type: 'string', default: LAYERS.join(',') },
    'node-options': { type: 'string' },
  },
});
const BLOCK = 200;
const ROUNDS = Number(args.rounds);
const chosen = args.layers.split(',') as Layer[];
for (const layer of chosen) if (!LAYERS.includes(layer)) throw new Error(`--layers: unknown layer "${layer}"; the layers are ${LAYERS.join(', ')}`);

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_TOKEN = 'bench-admin-token-0123456789-abcdefghijklmnop';

const databaseUrl = await createScratchDatabase(ADMIN_URL, 'engram_bench');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-'));
const gcFile = path.join(dataDir, 'gc.json');
const GC_PROBE = fileURLToPath(new URL('./gc-probe.ts', import.meta.url));
const NODE_OPTIONS = [`--import=${GC_PROBE}`, args['node-options']].filter(Boolean).join(' ');
const server = await startCli(
  cliEnv({
    DATABASE_URL: databaseUrl,
    ENGRAM_SECRET: BENCH_SECRET,
    ENGRAM_ADMIN_TOKEN: ADMIN_TOKEN,
    ENGRAM_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ENGRAM_IN_PROCESS_WORKER: 'false',
    ENGRAM_BENCH_GC_FILE: gcFile,
    NODE_OPTIONS,
  }),
);
const ceilingGcFile = path.join(dataDir, 'ceiling-gc.json');
// The ceiling's layers insert into facts, as the insert reference does.
const ceiling = chosen.some((l) => l.startsWith('ceiling-'))
  ? await startCeiling(databaseUrl, { NODE_OPTIONS, CEILING_TABLE: 'facts', ENGRAM_BENCH_GC_FILE: ceilingGcFile })
  : undefined;
try {
  const created = await fetch(new URL('/api/v1/admin/workspaces', server.mcpUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  });
  const ws = (await created.json()) as { owner_token: string; workspace_id: string };
  await raiseLimits(new URL('/', server.mcpUrl).toString(), ws.owner_token);
  await seed(databaseUrl, ws.workspace_id, 0, Number(args.size));

  const client = await connectMcp(server.mcpUrl, ws.owner_token);
  const modern = new ModernClient({ name: 'bench-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(new ModernTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${ws.owner_token}` } } }));
  const handle = await createDb({ kind: 'postgres', url: databaseUrl }, { maxConnections: 1 });
  const tenant = forWorkspace(handle.db, ws.workspace_id);
  const direct = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  // The tools' work in this process, on the same database: what is left of a call without the HTTP request around it.
  const services = benchServices(handle.db);
  const principal = await authenticateToken(handle.db, ws.owner_token);
  const headers = {
    authorization: `Bearer ${ws.owner_token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
  // A batch of one message is answered by the SDK's HTTP transport, as every call was before the
  // endpoint answered single 2025-era tool calls in memory (the SDK answers it as one message).
  const post = async (message: Record<string, unknown>, batch = false, url = server.mcpUrl) => {
    const body = { jsonrpc: '2.0', id: 1, ...message };
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(batch ? [body] : body) });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`${JSON.stringify(message).slice(0, 80)} answered ${res.status}: ${text.slice(0, 300)}`);
  };
  const tool = (name: string, args: Record<string, unknown>, batch = false) => post({ method: 'tools/call', params: { name, arguments: args } }, batch);
  let n = 0;
  const topic = () => QUERY_TOPICS[n++ % QUERY_TOPICS.length]!;
  const fact = () => {
    const i = 20_000_000 + n++;
    return { ...factText(i), confidence: 0.9, agent_id: `bench-${i % 17}` };
  };
  const insertRow = () => {
    const { content, scope } = fact();
    return referenceRow(content, scope);
  };
  const insertRows: ReferenceRow[] = [];
  // The statement's facts, made as commitFact makes them (extraction, embedding, hash) before the timer.
  const draft = (): FactDraft => {
    const { content, scope, agent_id } = fact();
    const entities = readFact(content);
    return {
      content, contentHash: contentHash(content), scope, confidence: 0.9, factType: 'observation', agentId: agent_id, memberId: null,
      provenance: null, entities, embedding: embedLocally(content), committedAt: new Date(), ttlDays: null, durability: 'durable',
      source: 'commit', lineageId: null, supersedesFactId: null,
    };
  };
  const drafts: FactDraft[] = [];
  const calls: Record<Layer, () => Promise<unknown>> = {
    healthz: async () => (await fetch(new URL('/healthz', server.mcpUrl))).text(),
    ping: () => post({ method: 'ping' }),
    list: () => post({ method: 'tools/list', params: {} }),
    'sdk-list': () => client.listTools(),
    status: () => tool('engram_status', {}),
    query: () => tool('engram_query', { topic: topic(), limit: 10 }),
    'batch-query': () => tool('engram_query', { topic: topic(), limit: 10 }, true),
    'sdk-query': () => mustCall(client, 'engram_query', { topic: topic(), limit: 10 }),
    'sdk-query-2026': async () => {
      const r = await modern.callTool({ name: 'engram_query', arguments: { topic: topic(), limit: 10 } });
      if (r.isError) throw new Error('engram_query failed');
    },
    'in-process-query': () => queryFacts(services, principal, QueryInput.parse({ topic: topic(), limit: 10 })),
    hybrid: () => referenceQuery(tenant, n++),
    commit: () => tool('engram_commit', fact()),
    'batch-commit': () => tool('engram_commit', fact(), true),
    'sdk-commit': () => mustCall(client, 'engram_commit', fact()),
    'prose-commit': () => {
      const i = n++;
      return tool('engram_commit', { content: proseText(i), scope: `bench/prose-${i % 4}`, confidence: 0.9, agent_id: `bench-${i % 5}` });
    },
    'in-process-commit': () => commitFact(services, principal, CommitInput.parse(fact())),
    // As commitFact stores a new fact: grouped, guarded against a fact it may corroborate.
    statement: () => {
      const now = new Date();
      return storeNewFact(tenant, services, { ...(drafts.pop() ?? draft()), committedAt: now }, { grouped: true, unlessCorroboratingAt: now });
    },
    insert: () => insertReferenceRow(direct, ws.workspace_id, insertRows.pop() ?? insertRow()),
    'ceiling-query': () => post({ method: 'tools/call', params: { name: 'floor_query', arguments: { topic: topic(), workspace_id: ws.workspace_id } } }, false, ceiling!.mcpUrl),
    'ceiling-commit': () => {
      const { content, scope } = fact();
      return post({ method: 'tools/call', params: { name: 'floor_commit', arguments: { content, scope, workspace_id: ws.workspace_id } } }, false, ceiling!.mcpUrl);
    },
  };
  // The direct references' own inputs (a topic's embedding; a row's entities, match keys,
  // embedding and hash) are the service's work, not the database's: computed outside the timer,
  // before each block (as commit-query.ts and the concurrency floor do).
  const before: Partial<Record<Layer, () => void>> = {
    insert: () => {
      insertRows.length = 0;
      for (let i = 0; i < BLOCK; i++) insertRows.push(insertRow());
    },
    statement: () => {
      drafts.length = 0;
      for (let i = 0; i < BLOCK; i++) drafts.push(draft());
    },
  };

  // A layer's server: the ceiling's layers are served by the ceiling, the others by Engram.
  const serving = (layer: Layer) => (layer.startsWith('ceiling-') ? { child: ceiling!.child, gcFile: ceilingGcFile } : { child: server.child, gcFile });
  const serverCpuMs = (layer: Layer) => {
    const fields = fs.readFileSync(`/proc/${serving(layer).child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  };
  // The server's GC since the last report: asks the probe for one and waits until it is written.
  const latest = (file: string) => (fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as GcReport) : undefined);
  const gcReport = async (layer: Layer): Promise<GcReport> => {
    const { child, gcFile: file } = serving(layer);
    const before = latest(file)?.seq ?? 0;
    process.kill(child.pid!, 'SIGUSR2');
    for (;;) {
      const report = latest(file);
      if (report && report.seq > before) return report;
      if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before reporting its GC`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const results = new Map(chosen.map((layer) => [layer, { times: [] as number[], serverMs: 0, clientMs: 0, scavengeMs: 0, promoted: 0, fullGcMs: 0 }]));
  for (const layer of chosen) for (let i = 0; i < 100; i++) await calls[layer]();
  for (let round = 0; round < ROUNDS; round++) {
    for (const layer of chosen) {
      const result = results.get(layer)!;
      before[layer]?.();
      await gcReport(layer);
      const server0 = serverCpuMs(layer);
      const client0 = process.cpuUsage();
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now();
        await calls[layer]();
        result.times.push(performance.now() - t0);
      }
      const used = process.cpuUsage(client0);
      result.serverMs += serverCpuMs(layer) - server0;
      const gc = await gcReport(layer);
      result.scavengeMs += gc.scavengeMs;
      result.promoted += gc.promoted;
      result.fullGcMs += gc.fullGcMs;
      result.clientMs += (used.user + used.system) / 1000;
    }
    process.stderr.write(`  round ${round + 1} of ${ROUNDS} done\n`);
  }
  await client.close();
  await modern.close();
  await handle.close();
  await direct.end();

  const calls_ = ROUNDS * BLOCK;
  process.stdout.write(
    `\nLayers, Postgres, ${Number(args.size).toLocaleString('en-US')} facts, ${ROUNDS} rounds of ${BLOCK} sequential calls per layer (${os.cpus().length} cores):\n\n` +
      '| layer | p50 | server CPU per call | client CPU per call | server GC per call: scavenges / full | promoted per call |\n| --- | ---: | ---: | ---: | ---: | ---: |\n' +
      chosen
        .map((layer) => {
          const r = results.get(layer)!;
          const gc = `${(r.scavengeMs / calls_).toFixed(3)} / ${(r.fullGcMs / calls_).toFixed(3)} ms`;
          return `| ${DESCRIPTIONS[layer]} | ${fmt(median(r.times))} | ${(r.serverMs / calls_).toFixed(2)} ms | ${(r.clientMs / calls_).toFixed(2)} ms | ${gc} | ${(r.promoted / calls_ / 1024).toFixed(1)} KiB |`;
        })
        .join('\n') +
      '\n',
  );
} finally {
  await ceiling?.stop();
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  await dropScratchDatabase(ADMIN_URL, databaseUrl);
}

/**
 * The stack's ceiling (issue 18): an MCP server on Engram's own stack — Node, fastify, the MCP
 * SDK behind Engram's McpEndpoint (the in-memory exchange for a single tool call), zod, postgres.js
 * with a pool of 10 — whose two tools do nothing but the concurrency floor's own work:
 *
 *   - `floor_commit` {content, scope, workspace_id}: the floor's row (entities, match keys,
 *     embedding, hash: computed per call, as the floor computes them per insert and as a commit
 *     must before it stores) inserted with the floor's single-row statement into CEILING_TABLE
 *     (bench_floor_facts, the concurrency floor's table, unless it names another: `facts` for
 *     layers.ts);
 *   - `floor_query` {topic, workspace_id}: the floor's query, `hybridCandidates` for that bench
 *     topic, answered with its ten best candidates.
 *
 * No authentication, rate limit, audit, extraction beyond the floor's, dedup, detection or turns.
 * So the ceiling's throughput over the floor's is what HTTP and MCP alone leave of the database's
 * throughput on this machine: the most any server built on this stack could reach, whatever it did
 * behind its tools. concurrency.ts (`--ceiling`) runs it as its own process, with the server's
 * NODE_OPTIONS and allocator, and drives it with the same SDK clients as Engram; layers.ts (the
 * `ceiling-commit` and `ceiling-query` layers) with the same raw POSTs as Engram's layers.
 *
 * As a process: CEILING_DATABASE_URL=postgres://... node test/bench/stack-ceiling.ts prints
 * `stack ceiling listening on <url>/mcp` once it answers.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDb, forWorkspace } from '@engram/db';
import { McpEndpoint } from '@engram/mcp';
import { McpServer } from '@modelcontextprotocol/server';
import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import { z } from 'zod';
import { REPO_ROOT } from '../support/cli.ts';
import { referenceInsert, referenceQuery, referenceRow } from './reference-row.ts';
import { QUERY_TOPICS } from './story.ts';

const READY = /stack ceiling listening on (\S+)/;

/** A running ceiling process. */
export interface StartedCeiling {
  child: ChildProcessWithoutNullStreams;
  mcpUrl: string;
  stop(): Promise<void>;
}

/** Starts the ceiling as its own process on `databaseUrl` (the bench's scratch database, with bench_floor_facts). */
export function startCeiling(databaseUrl: string, env: { NODE_OPTIONS: string; LD_PRELOAD?: string; CEILING_TABLE?: string; ENGRAM_BENCH_GC_FILE?: string }): Promise<StartedCeiling> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', CEILING_DATABASE_URL: databaseUrl, ...env },
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data.toString();
      const ready = READY.exec(output);
      if (!ready) return;
      child.stdout.off('data', onData);
      resolve({
        child,
        mcpUrl: ready[1]!,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (data: Buffer) => (output += data.toString()));
    void exited.then(() => reject(new Error(`the stack ceiling exited before it listened:\n${output}`)));
  });
}

/** The ceiling's per-request server: the floor's two operations as tools. */
function ceilingServer(db: Awaited<ReturnType<typeof createDb>>['db'], table: string): McpServer {
  const server = new McpServer({ name: 'engram-stack-ceiling', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } } });
  server.registerTool(
    'floor_commit',
    { description: "The floor's insert", inputSchema: z.object({ content: z.string(), scope: z.string(), workspace_id: z.string().uuid() }) },
    async ({ content, scope, workspace_id }) => {
      const row = referenceRow(content, scope);
      await db.execute(referenceInsert(sql`${sql.identifier(table)}`, workspace_id, row, 'ceiling'));
      return { content: [{ type: 'text', text: JSON.stringify({ fact_id: row.id }) }] };
    },
  );
  server.registerTool(
    'floor_query',
    { description: "The floor's hybrid query", inputSchema: z.object({ topic: z.string(), workspace_id: z.string().uuid() }) },
    async ({ topic, workspace_id }) => {
      // The reference query embeds the bench's topics beforehand, so it takes one of them by number.
      const n = QUERY_TOPICS.indexOf(topic);
      if (n < 0) throw new Error(`floor_query answers the bench's topics only (QUERY_TOPICS in story.ts), not "${topic}"`);
      const candidates = await referenceQuery(forWorkspace(db, workspace_id), n);
      const best = candidates.slice(0, 10).map((c) => ({ id: c.id, content: c.content, scope: c.scope, committed_at: c.committed_at, score: c.rrf }));
      return { content: [{ type: 'text', text: JSON.stringify({ facts: best }) }] };
    },
  );
  return server;
}

async function serve(databaseUrl: string, table: string): Promise<void> {
  const handle = await createDb({ kind: 'postgres', url: databaseUrl }, { maxConnections: 10 });
  const endpoint = new McpEndpoint<null>({ createServer: () => ceilingServer(handle.db, table) });
  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post('/mcp', async (request, reply) => {
    const answer = await endpoint.handle({ method: request.method, url: request.url, headers: request.headers, body: request.body }, null);
    void reply.code(answer.status);
    for (const [name, value] of answer.headers) void reply.header(name, value);
    return reply.send(answer.body);
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`stack ceiling listening on ${address}/mcp\n`);
  process.once('SIGTERM', () => {
    void app.close().then(() => handle.close()).then(() => process.exit(0));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = process.env.CEILING_DATABASE_URL;
  if (!url) throw new Error('CEILING_DATABASE_URL: the Postgres database holding bench_floor_facts and the seeded facts');
  await serve(url, process.env.CEILING_TABLE ?? 'bench_floor_facts');
}

/**
 * The MCP layer's own cost per call: sequential `engram_status` calls through the Fastify app
 * in process (`app.inject`, embedded PGlite, no socket), after a warm-up. Compare builds by
 * running it from each (e.g. git worktrees), alternating.
 *
 *   npm run bench:mcp -- [calls=2000]
 */
import { provisionWorkspace } from '@engram/core';
import { createDb, migrate } from '@engram/db';
import { TEST_SECRET, testApp } from '../support/app.ts';
import { fmt, median, percentile } from './stats.ts';

const calls = Number(process.argv[2] ?? 2000);
const handle = await createDb({ kind: 'pglite', dataDir: 'memory://' });
await migrate(handle.db);
const app = await testApp(handle);
await app.ready();
const ws = await provisionWorkspace(handle.db, TEST_SECRET, {});
const headers = { host: 'localhost:8080', authorization: `Bearer ${ws.ownerToken}` };
const raised = await app.inject({ method: 'PATCH', url: '/api/v1/workspace', headers, payload: { settings: { requests_per_token_per_minute: 1_000_000 } } });
if (raised.statusCode !== 200) throw new Error(`could not raise the rate limit: ${raised.body}`);

const call = async () => {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'engram_status', arguments: {} } },
  });
  if (res.statusCode !== 200) throw new Error(`engram_status answered ${res.statusCode}: ${res.body}`);
};
for (let i = 0; i < 300; i++) await call();
const times: number[] = [];
for (let i = 0; i < calls; i++) {
  const started = performance.now();
  await call();
  times.push(performance.now() - started);
}
process.stdout.write(`engram_status over MCP in process (PGlite), ${calls} sequential calls: median ${fmt(median(times))}, p99 ${fmt(percentile(times, 99))}\n`);
await app.close();
await handle.close();

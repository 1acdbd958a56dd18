/**
 * Latency of `engram_status` over MCP: a real server process (`engram start`), a real SDK client,
 * N sequential calls after a warm-up. Embedded database by default; with DATABASE_URL (and
 * ENGRAM_SECRET) the server runs on that Postgres and a workspace is provisioned for the run.
 *
 *   npm run bench:status -- [calls=1000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliEnv, startCli } from '../support/cli.ts';
import { raiseLimits } from './limits.ts';
import { fmt, median, percentile } from './stats.ts';

const calls = Number(process.argv[2] ?? 1000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-status-'));
const adminToken = 'bench-admin-token-0123456789-abcdefghijklmnop';
const postgresUrl = process.env.DATABASE_URL;
const env = cliEnv({
  ENGRAM_DATA_DIR: dataDir,
  PORT: '0',
  ENGRAM_ADMIN_TOKEN: adminToken,
  ...(postgresUrl ? { DATABASE_URL: postgresUrl, ENGRAM_SECRET: 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz' } : {}),
});

const server = await startCli(env);
try {
  let token = server.ownerToken;
  if (!token) {
    const res = await fetch(new URL('/api/v1/admin/workspaces', server.mcpUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    token = ((await res.json()) as { owner_token: string }).owner_token;
  }
  await raiseLimits(new URL('/', server.mcpUrl).toString(), token);
  const client = new Client({ name: 'engram-bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  for (let i = 0; i < 50; i++) await client.callTool({ name: 'engram_status', arguments: {} });
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const result = await client.callTool({ name: 'engram_status', arguments: {} });
    samples.push(performance.now() - t0);
    if (result.isError) throw new Error('engram_status failed');
  }
  await client.close();
  process.stdout.write(
    `engram_status over MCP (${postgresUrl ? 'Postgres' : 'embedded PGlite'}), ${calls} sequential calls: ` +
      `median ${fmt(median(samples))}, p95 ${fmt(percentile(samples, 95))}, p99 ${fmt(percentile(samples, 99))}\n`,
  );
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

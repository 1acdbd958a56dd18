/**
 * `engram worker`: detection in its own process next to a service that only enqueues
 * (ENGRAM_IN_PROCESS_WORKER=false), on a Postgres database of its own.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliEnv, REPO_ROOT, runCli, startCli } from '../support/cli.ts';
import { connectMcp, mustCall } from '../support/mcp.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';

const ADMIN_TOKEN = 'worker-cli-admin-token-0123456789-abcdefgh';
const SECRET = 'worker-cli-secret-0123456789-abcdefghijklmnopqrstuv';

describe('engram worker', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-worker-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('refuses the embedded database and bad options, saying what to change', async () => {
    const embedded = await runCli(['worker'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
    expect(embedded.code).toBe(2);
    expect(embedded.stderr).toMatch(/engram worker needs DATABASE_URL/);
    const bad = await runCli(['worker', '--concurrency', '0'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--concurrency must be a whole number from 1 to 32 \(got "0"\)/);
  });

  const adminUrl = inject('postgresAdminUrl');
  it.skipIf(!adminUrl)('detects what a service without in-process workers enqueued, and stops on SIGTERM', { timeout: 120_000 }, async () => {
    const url = await createScratchDatabase(adminUrl!, 'engram_test_worker');
    const env = cliEnv({ DATABASE_URL: url, ENGRAM_SECRET: SECRET, ENGRAM_ADMIN_TOKEN: ADMIN_TOKEN, PORT: '0', ENGRAM_DATA_DIR: dataDir });
    const server = await startCli({ ...env, ENGRAM_IN_PROCESS_WORKER: 'false' });
    const base = new URL(server.mcpUrl).origin;
    try {
      const res = await fetch(`${base}/api/v1/admin/workspaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const { owner_token: token } = (await res.json()) as { owner_token: string };
      const client = await connectMcp(server.mcpUrl, token);
      for (const [content, agent] of [
        ['The export service timeout is 30 seconds', 'agent-a'],
        ['The export service timeout is 90 seconds', 'agent-b'],
      ] as const) {
        await mustCall(client, 'engram_commit', { content, scope: 'export', confidence: 0.9, agent_id: agent });
      }
      const status = async () =>
        (await (await fetch(`${base}/api/v1/detection/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
          pending_jobs: number;
          running_jobs: number;
          runs_total: number;
        };
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await status()).toMatchObject({ pending_jobs: 2, runs_total: 0 }); // the service only enqueues

      const worker = spawn(process.execPath, [CLI, 'worker', '--concurrency', '2'], { env, cwd: REPO_ROOT });
      let out = '';
      worker.stdout.on('data', (d: Buffer) => (out += d.toString()));
      worker.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((resolve) => worker.on('close', resolve));
      // Done when nothing is pending or running and a run finished (a run still running has not
      // written its conflicts yet). The test's timeout is the only clock.
      for (let s = await status(); s.pending_jobs > 0 || s.running_jobs > 0 || s.runs_total === 0; s = await status()) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(out).toMatch(/Detection workers running: worker-[\w.]+@\S+, worker-[\w.]+@\S+/);
      const conflicts = await mustCall<{ total: number }>(client, 'engram_conflicts', {});
      expect(conflicts.total).toBe(1);
      worker.kill('SIGTERM');
      expect(await exited).toBe(0);
      await client.close();
    } finally {
      await server.stop();
      await dropScratchDatabase(adminUrl!, url);
    }
  });
});

/**
 * `engram worker`: detection in its own process next to a service that only enqueues
 * (ENGRAM_IN_PROCESS_WORKER=false), on a Postgres database of its own.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLI, cliEnv, REPO_ROOT, runCli, startCli } from '../support/cli.ts';
import { connectMcp, mustCall } from '../support/mcp.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import { eventually } from '../support/poll.ts';

const ADMIN_TOKEN = 'worker-cli-admin-token-0123456789-abcdefgh';

/** The worker that held each detection run in the database at `url`. */
async function runHolders(url: string): Promise<(string | null)[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return (await sql<{ worker_id: string | null }[]>`select worker_id from detection_runs`).map((r) => r.worker_id);
  } finally {
    await sql.end();
  }
}
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
      // Queued and not run; which process runs them is checked once they are done.
      const queued = await eventually(async () => {
        const s = await status();
        return s.pending_jobs === 2 ? s : undefined;
      });
      expect(queued).toMatchObject({ pending_jobs: 2, runs_total: 0 });

      const worker = spawn(process.execPath, [CLI, 'worker', '--concurrency', '2'], { env, cwd: REPO_ROOT });
      let out = '';
      worker.stdout.on('data', (d: Buffer) => (out += d.toString()));
      worker.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((resolve) => worker.on('close', resolve));
      // Done when nothing is pending or running and a run finished (a run still running has not
      // written its conflicts yet).
      await eventually(async () => {
        const s = await status();
        return s.pending_jobs === 0 && s.running_jobs === 0 && s.runs_total > 0;
      }, { timeoutMs: 110_000, intervalMs: 100, what: 'the worker ran the queued detection' });
      expect(out).toMatch(/Detection workers running: worker-[\w.]+@\S+, worker-[\w.]+@\S+/);
      // The service only enqueued: every run was held by a worker of the worker process (a worker
      // id carries its process's pid).
      const holders = await runHolders(url);
      expect(holders.length).toBeGreaterThan(0);
      for (const holder of holders) expect(holder).toContain(`:${worker.pid}:`);
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

/**
 * kill -9 during concurrent commits: every commit the service acknowledged is there after a
 * restart, on the embedded database and on Postgres.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cliEnv, startCli, type StartedCli } from '../support/cli.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';

const ADMIN_TOKEN = 'crash-admin-token-0123456789-abcdefghijklmn';
const SECRET = 'crash-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const COMMITTERS = 6;
/** Acknowledged commits to wait for before the kill (progress, not time). */
const BEFORE_KILL = 24;

async function commit(mcpUrl: string, token: string, agent: string, n: number): Promise<string | null> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: n,
      method: 'tools/call',
      params: {
        name: 'engram_commit',
        arguments: { content: `The ${agent} shard ${n} service listens on port ${4000 + n}`, scope: `crash/${agent}`, confidence: 0.8, agent_id: agent },
      },
    }),
  });
  if (!res.ok) return null;
  const body = (await res.json()) as { result?: { isError?: boolean; structuredContent?: { fact_id: string | null } } };
  return body.result?.isError ? null : (body.result?.structuredContent?.fact_id ?? null);
}

const adminUrl = inject('postgresAdminUrl');
const engines = [{ name: 'embedded', postgres: false }, ...(adminUrl ? [{ name: 'postgres', postgres: true }] : [])];

describe.each(engines)('kill -9 during concurrent commits on $name', (engine) => {
  let dataDir: string;
  let databaseUrl: string | undefined;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-crash-'));
    if (engine.postgres) databaseUrl = await createScratchDatabase(adminUrl!, 'engram_test_crash');
  });
  afterAll(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) await dropScratchDatabase(adminUrl!, databaseUrl);
  });

  it('keeps every acknowledged commit', { timeout: 180_000 }, async () => {
    const env = cliEnv({
      ENGRAM_SECRET: SECRET,
      ENGRAM_ADMIN_TOKEN: ADMIN_TOKEN,
      PORT: '0',
      ENGRAM_DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    let server: StartedCli = await startCli(env);
    const base = () => new URL(server.mcpUrl).origin;
    const created = await fetch(`${base()}/api/v1/admin/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const { owner_token: token } = (await created.json()) as { owner_token: string };

    const acknowledged = new Set<string>();
    let killed = false;
    let reachedKillPoint: () => void = () => {};
    const killPoint = new Promise<void>((resolve) => (reachedKillPoint = resolve));
    const committers = Array.from({ length: COMMITTERS }, async (_, w) => {
      for (let n = 0; !killed; n++) {
        try {
          const id = await commit(server.mcpUrl, token, `agent-${w}`, n);
          if (id) acknowledged.add(id);
        } catch {
          // The connection died with the process: nothing was acknowledged.
        }
        if (acknowledged.size >= BEFORE_KILL) reachedKillPoint();
      }
    });
    await killPoint;
    killed = true;
    await server.stop('SIGKILL');
    await Promise.all(committers);
    expect(acknowledged.size).toBeGreaterThanOrEqual(BEFORE_KILL);

    server = await startCli(env);
    try {
      const exported = await fetch(`${base()}/api/v1/facts/since`, { headers: { authorization: `Bearer ${token}` } });
      expect(exported.status).toBe(200);
      const text = await exported.text();
      const lost = [...acknowledged].filter((id) => !text.includes(id));
      expect(lost).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

/**
 * The service under database faults, on real Postgres behind a TCP proxy the test controls: a lock
 * held on `facts`, the database down (connections dropped, new ones refused), the network stalled,
 * and start-up before the database is there. Every wait is bounded by a setting, callers get a
 * retryable error that says what is wrong, /readyz tells the truth, and the first request after
 * the database returns succeeds. Nothing here waits on a wall clock: each check is made while the
 * fault is still in place, so an answer proves the request did not wait the fault out.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { defaultDatabaseLimits, type DatabaseLimits } from '@engram/config';
import { createDb, migrate } from '@engram/db';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawn } from 'node:child_process';
import { CLI, cliEnv, REPO_ROOT, runCli } from '../support/cli.ts';
import { callTool, connectMcp, mustCall, provisionOverHttp, startTestServer } from '../support/mcp.ts';
import { TEST_ADMIN_TOKEN, TEST_SECRET } from '../support/app.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

const adminUrl = inject('postgresAdminUrl');

/** Tight limits so faults surface quickly; the defaults are documented in the README. */
const LIMITS: DatabaseLimits = {
  ...defaultDatabaseLimits(),
  lockTimeoutMs: 300,
  readTimeoutMs: 4_000,
  writeTimeoutMs: 4_000,
  // Room for the rate limiter's 5 s wait for a stalled shared counter, then the call's own budget.
  requestDeadlineMs: 8_000,
  connectTimeoutSeconds: 2,
  startupWaitSeconds: 60,
};

describe.skipIf(!adminUrl)('the database under faults (Postgres behind a TCP proxy)', () => {
  let url: string;
  let proxy: TcpProxy;
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let client: Client;
  let token: string;
  let direct: postgres.Sql;

  const rest = (path: string) => fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  /** Fact ids of every commit the service acknowledged; all must be stored at the end. */
  const acknowledged: string[] = [];
  const commit = async (content: string) => {
    const outcome = await callTool<{ fact_id: string | null }>(client, 'engram_commit', { content, scope: 'faults', confidence: 0.9, agent_id: 'fault-test' });
    if (outcome.ok && outcome.value.fact_id) acknowledged.push(outcome.value.fact_id);
    return outcome;
  };

  beforeAll(async () => {
    url = await createScratchDatabase(adminUrl!, 'engram_test_faults');
    const setup = await createDb({ kind: 'postgres', url });
    await migrate(setup.db);
    await setup.close();
    const target = new URL(url);
    proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
    server = await startTestServer({ database: { kind: 'postgres', url: proxy.via(url) }, databaseLimits: LIMITS });
    const workspace = await provisionOverHttp(server.baseUrl);
    token = workspace.owner_token;
    client = await connectMcp(`${server.baseUrl}/mcp`, token);
    direct = postgres(url, { max: 2, onnotice: () => {} });
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await proxy?.up();
    await server?.stop();
    await proxy?.close();
    await direct?.end();
    if (url) await dropScratchDatabase(adminUrl!, url);
  });

  it('under a lock on facts, engram_status answers and commits fail with a retryable error while the lock is held', async () => {
    expect((await commit('The billing service retries failed webhooks 5 times.')).ok).toBe(true);

    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    let lockHeld = false;
    const holder = direct.begin(async (sql) => {
      await sql`lock table facts in access exclusive mode`;
      lockHeld = true;
      locked();
      await released;
      lockHeld = false;
    });
    await isLocked;
    try {
      const status = await callTool<{ memory?: unknown; next_prompt: string }>(client, 'engram_status', {});
      expect(lockHeld).toBe(true);
      expect(status.ok).toBe(true);
      if (!status.ok) return;
      expect(status.value.memory).toBeUndefined();
      expect(status.value.next_prompt).toMatch(/cannot count the team memory right now: The data this needs is locked/);

      const refused = await commit('The billing service retries failed webhooks 8 times.');
      expect(lockHeld).toBe(true);
      expect(refused.ok).toBe(false);
      if (refused.ok) return;
      expect(refused.error).toMatch(/locked by other work in the database/);
      expect(refused.error).toMatch(/code: unavailable; retry_after_seconds: \d+/);

      const query = await callTool(client, 'engram_query', { topic: 'billing webhooks' });
      expect(lockHeld).toBe(true);
      expect(query.ok).toBe(false);

      const listed = await rest('/api/v1/facts');
      expect(lockHeld).toBe(true);
      expect(listed.status).toBe(503);
      expect(listed.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await listed.json()) as { error: { code: string; details: { reason: string } } }).error).toMatchObject({ code: 'unavailable', details: { reason: 'locked' } });
    } finally {
      release();
      await holder;
    }
    const retried = await commit('The billing service retries failed webhooks 8 times.');
    expect(retried.ok).toBe(true);
  }, 120_000);

  it('with the database down: 503 with Retry-After, a retryable tool error, /readyz 503; the first request after it returns succeeds', async () => {
    await mustCall(client, 'engram_status', {});
    await proxy.down();
    try {
      const outcome = await commit('The search index is rebuilt nightly at 02:00.').catch((error: Error) => ({ ok: false as const, error: error.message }));
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.error).toMatch(/database is unavailable|503/);

      const listed = await rest('/api/v1/facts');
      expect(listed.status).toBe(503);
      expect(listed.headers.get('retry-after')).toMatch(/^\d+$/);
      const body = (await listed.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).toMatch(/^The database is unavailable \((ECONNREFUSED|CONNECTION_CLOSED): .*\)\. Try again in 5 s\.$/);

      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: { database: string } }).checks.database).toMatch(/^unreachable: /);

      const live = await fetch(`${server.baseUrl}/healthz`);
      expect(live.status).toBe(200);
    } finally {
      await proxy.up();
    }
    const first = await commit('The search index is rebuilt nightly at 02:00.');
    expect(first.ok ? 'ok' : first.error).toBe('ok');
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
  }, 120_000);

  it('with the network stalled, callers get the retryable error at the request deadline and /readyz says 503', async () => {
    await mustCall(client, 'engram_status', {});
    proxy.stall();
    try {
      const outcome = await commit('The nightly export lands in the analytics bucket.');
      expect(outcome.ok).toBe(false);
      // Whichever gives up first: the call's deadline, or a new connection's connect timeout.
      if (!outcome.ok) expect(outcome.error).toMatch(/(engram_commit got no answer within \d+ ms|CONNECT_TIMEOUT).*code: unavailable/);

      const listed = await rest('/api/v1/facts');
      expect(listed.status).toBe(503);
      const body = (await listed.json()) as { error: { code: string; message: string; details: { reason: string } } };
      expect(body.error.code).toBe('unavailable');
      // Whichever gives up first, as for the commit: the request deadline (the read took an open
      // connection, which stalled), or a new connection's connect timeout (none was left open: how
      // many the pool kept depends on how earlier requests and the audit writer overlapped).
      expect(`${body.error.details.reason}: ${body.error.message}`).toMatch(
        /^(timeout: .*request deadline of 8000 ms|unavailable: The database is unavailable \((CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_DESTROYED|ECONNRESET): )/,
      );

      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
    } finally {
      await proxy.up();
    }
    await expect.poll(async () => (await commit('The nightly export lands in the analytics bucket.')).ok, { timeout: 60_000 }).toBe(true);
  }, 120_000);

  it('when the server has no connection slots left: requests get 503 too_many_connections and /readyz takes the instance out', async () => {
    // Start from no open connections but the control pool's (opened by a readiness check), so the
    // requests below need new ones.
    await proxy.down();
    await proxy.up();
    await expect.poll(async () => (await fetch(`${server.baseUrl}/readyz`)).status, { timeout: 30_000 }).toBe(200);
    proxy.full();
    try {
      // Every request needs a new connection, and the server refuses it.
      const answers = await Promise.all(Array.from({ length: 24 }, () => rest('/api/v1/facts?limit=5')));
      const refused = answers.filter((a) => a.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
      const body = (await refused[0]!.json()) as { error: { code: string; details: { reason: string } } };
      expect(body.error).toMatchObject({ code: 'unavailable', details: { reason: 'too_many_connections' } });

      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      // Whether its own check got a connection or not, it says why; on a machine busy enough that
      // the refusal takes longer than the check's budget, that it did not answer in time.
      const checks = ((await ready.json()) as { checks: { database: string; writes: string } }).checks;
      expect(`${checks.database} | ${checks.writes}`).toMatch(
        /unreachable: 53300: sorry, too many clients already|refused: requests cannot get a database connection|^not answering within \d+ ms \| unknown$/,
      );
    } finally {
      await proxy.up();
    }
    // Slots are free again: requests succeed (a connection the server opened while the database was
    // full may still be failing as the first request arrives).
    await expect.poll(async () => (await rest('/api/v1/facts?limit=5')).status, { timeout: 30_000 }).toBe(200);
  }, 120_000);

  it('lost no acknowledged commit', async () => {
    expect(acknowledged.length).toBeGreaterThanOrEqual(4);
    const stored = await direct<{ id: string }[]>`select id from facts where id = any(${acknowledged}::uuid[])`;
    expect(new Set(stored.map((row) => row.id))).toEqual(new Set(acknowledged));
  });

  it('engram start waits for the database with a message naming DATABASE_URL, then starts when it is back', async () => {
    await proxy.down();
    const env = cliEnv({
      DATABASE_URL: proxy.via(url),
      ENGRAM_SECRET: TEST_SECRET,
      ENGRAM_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      PORT: '0',
      ENGRAM_IN_PROCESS_WORKER: 'false',
      LOG_LEVEL: 'info',
    });
    const child = spawn(process.execPath, [CLI, 'start'], { env, cwd: REPO_ROOT });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      // It says what it waits for, naming DATABASE_URL, while the database is away...
      await expect.poll(() => output, { timeout: 60_000 }).toMatch(/waiting for the database at 127\.0\.0\.1:\d+\/engram_test_faults_\w+ \(DATABASE_URL\)/);
      expect(output).not.toMatch(/MCP URL/);
      // ...and starts once it is back.
      await proxy.up();
      await expect.poll(() => output, { timeout: 60_000 }).toMatch(/MCP URL\s+http:\/\/\S+\/mcp/);
      expect(output).toMatch(/the database is reachable/);
    } finally {
      await proxy.up();
      child.kill('SIGTERM');
      await exited;
    }

    const gaveUp = await runCli(['start'], { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/engram', ENGRAM_DB_STARTUP_WAIT_SECONDS: '1' });
    expect(gaveUp.code).toBe(1);
    expect(gaveUp.stderr).toMatch(/The database at 127\.0\.0\.1:1\/engram \(DATABASE_URL\) did not accept connections within 1 s/);
    expect(gaveUp.stderr).toMatch(/ENGRAM_DB_STARTUP_WAIT_SECONDS/);
  }, 180_000);
});

/**
 * Detection survives its process and its database, as an operator meets it (issue 19):
 *  - `engram start` on the embedded database is killed (-9) in the middle of a detection run, and
 *    after a restart the run is taken over at once and the conflict is found, with a ten-minute
 *    lease that nothing waits out;
 *  - jobs given up as failed (as a long outage left them before retries outlasted outages) are
 *    listed and requeued by the real `engram detection` CLI, audited, and then detected by the
 *    service; while `engram start` holds the embedded database the CLI asks it instead.
 * Every wait is on state (polling), never on a fixed sleep.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { authenticateToken, commitFact, CommitInput, LocalEmbedder, provisionWorkspace, silentLogger } from '@engram/core';
import { auditLog, createDb, detectionJobs, migrate, type DbHandle } from '@engram/db';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { cliEnv, runCli, startCli, type StartedCli } from '../support/cli.ts';
import { chatReply, startFakeOpenAI, storyOf, type FakeOpenAI } from '../support/fake-openai.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import { eventually } from '../support/poll.ts';


async function mcpCommit(mcpUrl: string, token: string, content: string, agent: string): Promise<string> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'engram_commit', arguments: { content, scope: 'backend', confidence: 0.9, agent_id: agent } },
    }),
  });
  const body = (await res.json()) as { result?: { isError?: boolean; structuredContent?: { fact_id: string | null } } };
  const id = body.result?.structuredContent?.fact_id;
  if (!id) throw new Error(`commit failed: ${JSON.stringify(body)}`);
  return id;
}

/** An "LLM" that accepts requests and never answers, so a detection run stays in progress. */
async function blackHole(): Promise<{ url: string; requested: Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let requested!: () => void;
  const seen = new Promise<void>((resolve) => (requested = resolve));
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('/chat/completions')) requested();
    });
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`,
    requested: seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const ADMIN_TOKEN = 'detection-admin-token-0123456789-abcdefghij';

describe('engram start killed in the middle of a detection run (embedded)', () => {
  let dataDir: string;
  let openai: FakeOpenAI;
  let hole: Awaited<ReturnType<typeof blackHole>>;
  let server: StartedCli | undefined;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-detect-kill-'));
    openai = await startFakeOpenAI();
    hole = await blackHole();
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await hole?.close();
    await openai?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes the cut-off run over at restart and finds the conflict, without waiting out its lease', { timeout: 240_000 }, async () => {
    const env = (llmUrl: string) =>
      cliEnv({
        ENGRAM_DATA_DIR: dataDir,
        ENGRAM_SECRET: TEST_SECRET,
        PORT: '0',
        OPENAI_API_KEY: 'sk-test-key',
        OPENAI_BASE_URL: llmUrl,
        ENGRAM_EMBEDDINGS: 'local',
        // Ten minutes: a restart that had to wait the dead run's lease out would time this test out.
        ENGRAM_DETECTION_LEASE_SECONDS: '600',
      });
    server = await startCli(env(hole.url));
    const token = server.ownerToken!;
    expect(token).toMatch(/^egm_/);
    const base = () => new URL(server!.mcpUrl).origin;
    const rest = async <T>(p: string): Promise<T> => (await (await fetch(`${base()}${p}`, { headers: { authorization: `Bearer ${token}` } })).json()) as T;

    const a = await mcpCommit(server.mcpUrl, token, 'All backend services log structured JSON to stdout.', 'agent-a');
    const b = await mcpCommit(server.mcpUrl, token, 'The search service writes plain-text logs to /var/log/search.log.', 'agent-b');
    // The run reaches the narrative detective, whose model never answers: the run is in progress.
    await hole.requested;
    type Status = { pending_jobs: number; running_jobs: number; failed_jobs: number; stuck_jobs: number; recent_runs: { run_id: string; status: string; error: string | null }[] };
    const before = await rest<Status>('/api/v1/detection/status');
    const cutOff = before.recent_runs.find((r) => r.status === 'running');
    expect(cutOff).toBeDefined();
    expect(before.running_jobs).toBeGreaterThan(0);

    await server.stop('SIGKILL');
    server = undefined;

    // The model answers now: it finds the two facts in the story by their text.
    openai.defaultChat = (body) => {
      const lines = storyOf(body);
      const id = (text: string) => /^\[([0-9a-f]+)\]/.exec(lines.find((l) => l.includes(text)) ?? '')?.[1];
      const all = id('All backend services');
      const search = id('search service');
      return chatReply(
        body,
        JSON.stringify({
          confusions: all && search ? [{ fact_ids: [all, search], kind: 'ambiguity', question: 'Does the search service log in JSON like all other backend services?' }] : [],
        }),
      );
    };
    server = await startCli(env(openai.baseUrl));
    type Conflicts = { groups: { conflicts: { detected_by: string; facts: { fact_id: string }[] }[] }[] };
    const found = await eventually(
      async () => {
        const listed = await rest<Conflicts>('/api/v1/conflicts');
        return listed.groups.flatMap((g) => g.conflicts).find((c) => c.detected_by === 'narrative_llm');
      },
      { timeoutMs: 120_000, what: 'the narrative conflict after the restart', intervalMs: 100, retryErrors: true },
    );
    expect(found.facts.map((f) => f.fact_id).sort()).toEqual([a, b].sort());

    const after = await eventually(
      async () => {
        const status = await rest<Status>('/api/v1/detection/status');
        return status.pending_jobs === 0 && status.running_jobs === 0 ? status : null;
      },
      { timeoutMs: 60_000, what: 'the queue drained', intervalMs: 100, retryErrors: true },
    );
    expect(after).toMatchObject({ failed_jobs: 0, stuck_jobs: 0 });
    // Released as interrupted at start — not taken over after its ten-minute lease lapsed.
    expect(after.recent_runs.find((r) => r.run_id === cutOff!.run_id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^interrupted: /) });
    expect(after.recent_runs.some((r) => r.status === 'succeeded')).toBe(true);
  });
});

const adminUrl = inject('postgresAdminUrl');
const engines = [{ name: 'embedded', postgres: false }, ...(adminUrl ? [{ name: 'postgres', postgres: true }] : [])];

describe.each(engines)('failed detection jobs requeued by the CLI on $name', (engine) => {
  let dataDir: string;
  let databaseUrl: string | undefined;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-detect-requeue-'));
    if (engine.postgres) databaseUrl = await createScratchDatabase(adminUrl!, 'engram_test_requeue');
  });
  afterAll(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) await dropScratchDatabase(adminUrl!, databaseUrl);
  });

  const env = () =>
    cliEnv({
      ENGRAM_DATA_DIR: dataDir,
      ENGRAM_SECRET: TEST_SECRET,
      ENGRAM_ADMIN_TOKEN: ADMIN_TOKEN,
      PORT: '0',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
  const open = async (): Promise<DbHandle> => {
    const handle = await createDb(databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'pglite', dataDir: path.join(dataDir, 'pgdata') });
    await migrate(handle.db);
    return handle;
  };

  it('lists them, requeues them (audited), and the service then checks the facts', { timeout: 240_000 }, async () => {
    // What a long outage left behind before this fix: conflicting facts whose jobs used up their attempts.
    let db = await open();
    const created = await provisionWorkspace(db.db, TEST_SECRET, { name: 'Requeue' });
    const principal = await authenticateToken(db.db, created.ownerToken);
    const services = { db: db.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log: silentLogger };
    for (const [content, agent] of [
      ['The session store is Redis', 'agent-1'],
      ['The session store is Memcached', 'agent-2'],
    ]) {
      await commitFact(services, principal, CommitInput.parse({ content, scope: 'svc', confidence: 1, agent_id: agent }));
    }
    await db.db
      .update(detectionJobs)
      .set({ status: 'failed', attempts: 5, lastError: 'database fault (timeout): the database is too slow', finishedAt: new Date() })
      .where(eq(detectionJobs.workspaceId, created.workspaceId));
    await db.close();

    const status = await runCli(['detection', 'status'], env());
    expect(status.stderr).toBe('');
    expect(status.stdout).toMatch(new RegExp(`${created.engramId}\\s+pending 0\\s+running 0\\s+failed 2\\s+stuck 0`));
    expect(status.stdout).toContain('engram detection requeue --all');

    const unsure = await runCli(['detection', 'requeue'], env());
    expect(unsure.code).toBe(2);
    expect(unsure.stderr).toMatch(/--workspace ENG-XXXX-XXXX for one workspace, or --all/);

    const requeued = await runCli(['detection', 'requeue', '--workspace', created.engramId], env());
    expect(requeued).toMatchObject({ code: 0, stderr: '' });
    expect(requeued.stdout).toContain(`Requeued 2 failed detection jobs in ${created.engramId}`);
    const again = await runCli(['detection', 'requeue', '--all'], env());
    expect(again.stdout).toContain('No failed detection jobs to requeue in any workspace.');

    db = await open();
    try {
      const jobs = await db.db.select().from(detectionJobs).where(eq(detectionJobs.workspaceId, created.workspaceId));
      expect(jobs.map((j) => [j.status, j.attempts, j.lastError])).toEqual([
        ['pending', 0, null],
        ['pending', 0, null],
      ]);
      const audited = await db.db.select().from(auditLog).where(eq(auditLog.workspaceId, created.workspaceId));
      expect(audited.find((e) => e.action === 'engram detection requeue')).toMatchObject({ actor: 'operator', outcome: 'ok', summary: { requeued: 2 } });
    } finally {
      await db.close();
    }

    // The service picks the requeued jobs up and finds the conflict the outage left unchecked.
    const server = await startCli(env());
    try {
      const base = new URL(server.mcpUrl).origin;
      const rest = async <T>(p: string): Promise<T> =>
        (await (await fetch(`${base}${p}`, { headers: { authorization: `Bearer ${created.ownerToken}` } })).json()) as T;
      await eventually(
        async () => {
          const s = await rest<{ pending_jobs: number; running_jobs: number; failed_jobs: number }>('/api/v1/detection/status');
          return s.pending_jobs + s.running_jobs + s.failed_jobs === 0;
        },
        { timeoutMs: 60_000, what: 'the requeued jobs done', intervalMs: 100, retryErrors: true },
      );
      const conflicts = await rest<{ groups: { conflicts: unknown[] }[] }>('/api/v1/conflicts');
      expect(conflicts.groups.flatMap((g) => g.conflicts)).toHaveLength(1);

      // While the server holds the embedded database, the CLI asks the server instead.
      if (!engine.postgres) {
        const viaServer = await runCli(['detection', 'status', '--url', base, '--token', created.ownerToken], env());
        expect(viaServer.code).toBe(0);
        expect(viaServer.stderr).toContain('asking it at');
        expect(viaServer.stdout).toMatch(new RegExp(`${created.engramId}\\s+pending 0\\s+running 0\\s+failed 0\\s+stuck 0`));
      } else {
        const everything = await runCli(['detection', 'status'], env());
        expect(everything.stdout).toContain('No detection work waiting');
      }
    } finally {
      await server.stop();
    }
  });
});

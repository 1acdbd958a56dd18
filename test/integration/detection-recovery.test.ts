/**
 * Detection never silently drops work (issue 19), on each engine: a run whose holder is known to
 * be gone is released at once (the embedded database at start; a killed worker process on this
 * host), a run the database failed gives its attempt back and is retried with backoff however long
 * the outage lasts, failed and stuck work shows in engram_status and the detection status, and owners
 * and operators can requeue failed jobs. The real-CLI tests and the `engram start` kill test are in
 * test/e2e/detection-recovery.test.ts. Leases here are ten minutes long, so nothing can pass by
 * waiting one out.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import {
  authenticateToken,
  commitFact,
  CommitInput,
  DetectionWorker,
  getStatus,
  holderGone,
  LocalEmbedder,
  provisionWorkspace,
  runDeterministicPass,
  silentLogger,
  type MemberPrincipal,
} from '@engram/core';
import {
  auditLog,
  claimDetectionRun,
  createDb,
  detectionBacklog,
  detectionJobs,
  detectionRuns,
  releaseInterruptedRuns,
  type ClaimedRun,
} from '@engram/db';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, TEST_SECRET, testApp } from '../support/app.ts';
import { databaseSuite, isolatedTestDatabases } from '../support/databases.ts';
import { eventually } from '../support/poll.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

const LONG_LEASE_MS = 600_000;


/** An error as postgres.js reports a statement cancelled by statement_timeout: the database's fault, not the run's. */
const statementTimeout = () => Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });

describe.each(isolatedTestDatabases())('detection recovery on $name', (engine) => {
  const suite = databaseSuite(engine);
  const embedder = new LocalEmbedder();

  async function workspace(): Promise<{ id: string; engramId: string; ownerToken: string; principal: MemberPrincipal; commit: (content: string, agent?: string) => Promise<string> }> {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const principal = await authenticateToken(suite.handle.db, created.ownerToken);
    return {
      id: created.workspaceId,
      engramId: created.engramId,
      ownerToken: created.ownerToken,
      principal,
      commit: async (content, agent = 'agent-1') => {
        const out = await commitFact({ db: suite.handle.db, embedder, secret: TEST_SECRET, log: silentLogger }, principal, CommitInput.parse({ content, scope: 'svc', confidence: 1, agent_id: agent }));
        if (!out.fact_id) throw new Error(`commit stored nothing: ${JSON.stringify(out)}`);
        return out.fact_id;
      },
    };
  }

  const jobsOf = (workspaceId: string) => suite.handle.db.select().from(detectionJobs).where(eq(detectionJobs.workspaceId, workspaceId)).orderBy(detectionJobs.id);
  const runsOf = (workspaceId: string) => suite.handle.db.select().from(detectionRuns).where(eq(detectionRuns.workspaceId, workspaceId)).orderBy(detectionRuns.startedAt);
  /** Runs `worker` until every job of `workspaceId` is done, then stops it. */
  const drain = async (worker: DetectionWorker, workspaceId: string) => {
    worker.start();
    try {
      await eventually(async () => (await jobsOf(workspaceId)).every((j) => j.status === 'done'));
    } finally {
      await worker.stop();
    }
  };
  /** A worker that only serves `workspaceId` (other tests' jobs share the database). */
  const workerFor = (workspaceId: string, options: Partial<ConstructorParameters<typeof DetectionWorker>[0]> = {}) =>
    new DetectionWorker({
      db: suite.handle.db,
      log: silentLogger,
      debounceMs: 0,
      pollMs: 20,
      leaseMs: LONG_LEASE_MS,
      workspaceId,
      run: (claimed) => runDeterministicPass({ db: suite.handle.db, log: silentLogger }, claimed),
      ...options,
    });

  it('releases a run left running by a process that is gone when the embedded-style worker starts, without waiting out its lease', async () => {
    const ws = await workspace();
    const a = await ws.commit('The session store is Redis', 'agent-1');
    const b = await ws.commit('The session store is Memcached', 'agent-2');
    // A process claimed the run with a ten-minute lease, then died (nothing of it is left in this process).
    const cutOff = await claimDetectionRun(suite.handle.db, { workerId: 'crashed-process', debounceMs: 0, maxWaitMs: 0, leaseMs: LONG_LEASE_MS, workspaceId: ws.id });
    expect(cutOff?.jobIds).toHaveLength(2);
    const [held] = (await runsOf(ws.id)).filter((r) => r.id === cutOff!.runId);

    // On a database no other process can use, the worker knows that holder is gone.
    const worker = workerFor(ws.id, { exclusive: true });
    await drain(worker, ws.id);
    const runs = await runsOf(ws.id);
    expect(runs.find((r) => r.id === cutOff!.runId)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^interrupted: the process that ran it stopped/) });
    const finished = runs.find((r) => r.status === 'succeeded')!;
    // The new run started long before the dead one's lease would have lapsed.
    expect(finished.startedAt.getTime()).toBeLessThan(held!.leaseUntil!.getTime() - LONG_LEASE_MS / 2);
    expect(new Set(finished.triggerFactIds)).toEqual(new Set([a, b]));
    expect(finished.conflictsRaised).toBe(1);
    // The interruption was not the jobs' fault: the attempt it cost was given back.
    expect((await jobsOf(ws.id)).map((j) => j.attempts)).toEqual([1, 1]);
  });

  it('gives an attempt back for the first interruption in a row only, so a job that kills its worker each time is still given up', async () => {
    const ws = await workspace();
    await ws.commit('The search indexer batch size is 500 documents');
    const gone = () => 'the test says so';
    const claim = (workerId: string) => claimDetectionRun(suite.handle.db, { workerId, debounceMs: 0, maxWaitMs: 0, leaseMs: LONG_LEASE_MS, workspaceId: ws.id });
    const first = await claim('crash-1');
    expect(first?.attempt).toBe(1);
    expect(await releaseInterruptedRuns(suite.handle.db, (holder) => (holder === 'crash-1' ? gone() : undefined))).toEqual({ runs: 1, jobs: 1 });
    expect((await jobsOf(ws.id))[0]).toMatchObject({ status: 'pending', attempts: 0, lastError: 'interrupted: the test says so' });
    expect((await claim('crash-2'))?.attempt).toBe(1);
    await releaseInterruptedRuns(suite.handle.db, (holder) => (holder === 'crash-2' ? gone() : undefined));
    expect((await jobsOf(ws.id))[0]).toMatchObject({ status: 'pending', attempts: 1 });
    expect((await claim('crash-3'))?.attempt).toBe(2);
    // A holder that may be alive is left to its lease.
    expect(await releaseInterruptedRuns(suite.handle.db, () => undefined)).toEqual({ runs: 0, jobs: 0 });
    await releaseInterruptedRuns(suite.handle.db, (holder) => (holder === 'crash-3' ? gone() : undefined));
  });

  it('tells which holders are certainly gone', () => {
    const worker = workerFor('00000000-0000-0000-0000-000000000000');
    // A live worker of this process is never gone; another instance of this very pid is a predecessor.
    expect(holderGone(worker.workerId, { exclusive: true })).toBeUndefined();
    const [, host, pid, scope] = /^worker-[0-9a-f]{8}\.\d+@(.+):(\d+):(.+)$/.exec(worker.workerId)!;
    expect(pid).toBe(String(process.pid));
    const predecessor = `worker-0badcafe.1@${host}:${pid}:${scope}`;
    expect(holderGone('someone-else', { exclusive: true })).toMatch(/stopped before it finished/);
    expect(holderGone('someone-else', { exclusive: false })).toBeUndefined();
    if (scope !== '-') {
      expect(holderGone(predecessor, { exclusive: false })).toMatch(/restarted before the run finished/);
      // Another kernel or PID namespace (another machine, container or boot): only its lease tells.
      expect(holderGone(`worker-0badcafe.1@${host}:999999:abcdefabcdef`, { exclusive: false })).toBeUndefined();
      // This PID namespace, a pid that is gone: certainly gone.
      expect(holderGone(`worker-0badcafe.1@${host}:999999999:${scope}`, { exclusive: false })).toMatch(/pid 999999999 .* is gone/);
    }
  });

  it('gives a run the database failed its attempt back and retries it with growing backoff until the database answers', async () => {
    const ws = await workspace();
    await ws.commit('The export job runs every 15 minutes');
    const outcomes: string[] = [];
    // The database times the run out twice (as a slow database does), then answers. One attempt
    // is all a job has here: any attempt used up by the outage would give the job up.
    const worker = workerFor(ws.id, {
      maxAttempts: 1,
      run: async (claimed) => {
        if (outcomes.length < 2) {
          outcomes.push('timeout');
          throw statementTimeout();
        }
        outcomes.push('ok');
        return runDeterministicPass({ db: suite.handle.db, log: silentLogger }, claimed);
      },
    });
    await drain(worker, ws.id);
    expect(outcomes).toEqual(['timeout', 'timeout', 'ok']);
    const runs = await runsOf(ws.id);
    expect(runs.map((r) => r.status)).toEqual(['failed', 'failed', 'succeeded']);
    expect(runs[0]!.error).toMatch(/^database fault \(timeout\)/);
    // 1 s after the first failure, 2 s after the second (each run started once its backoff ended).
    const waited = [1, 2].map((i) => runs[i]!.startedAt.getTime() - runs[i - 1]!.finishedAt!.getTime());
    expect(waited[0]).toBeGreaterThanOrEqual(900);
    expect(waited[1]).toBeGreaterThanOrEqual(1_900);
    expect((await jobsOf(ws.id))[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('still gives up a job whose run fails for its own reasons, and shows it as failed with what to do', async () => {
    const ws = await workspace();
    await ws.commit('The gateway rate limit is 100 req/s');
    const worker = workerFor(ws.id, {
      maxAttempts: 1,
      run: async () => {
        throw new Error('the detector fell over');
      },
    });
    await eventually(async () => (await worker.runOnce()) !== null);
    expect((await jobsOf(ws.id))[0]).toMatchObject({ status: 'failed', attempts: 1, lastError: 'the detector fell over' });

    const [backlog] = await detectionBacklog(suite.handle.db, { workspaceId: ws.id });
    expect(backlog).toMatchObject({ engramId: ws.engramId, pending: 0, failed: 1, stuck: 0, lastError: { message: 'the detector fell over' } });
    const status = await getStatus(suite.handle.db, ws.principal, { llm: { enabled: false, model: 'none' }, tools: ['engram_query'] });
    expect(status.detection).toMatchObject({ failed_jobs: 1, stuck_jobs: 0, note: expect.stringContaining(`engram detection requeue --workspace ${ws.engramId}`) });
    expect(status.next_prompt).toMatch(/1 detection job failed after every retry/);
  });

  it('shows stuck work: a job due for over a minute that no worker took, and a run whose lease lapsed', async () => {
    const ws = await workspace();
    await ws.commit('The billing service timeout is 30 seconds');
    await suite.handle.db
      .update(detectionJobs)
      .set({ runAfter: sql`now() - interval '2 minutes'` })
      .where(eq(detectionJobs.workspaceId, ws.id));
    let [backlog] = await detectionBacklog(suite.handle.db, { workspaceId: ws.id });
    expect(backlog).toMatchObject({ pending: 1, stuck: 1, stalledRuns: 0 });
    expect(backlog!.stuckSince!.getTime()).toBeLessThan(Date.now() - 60_000);

    // Held by a live run, the same job is waiting its turn, not stuck...
    const run = await claimDetectionRun(suite.handle.db, { workerId: 'slow', debounceMs: 0, maxWaitMs: 0, leaseMs: LONG_LEASE_MS, workspaceId: ws.id });
    await ws.commit('The billing service retries 3 times', 'agent-2');
    await suite.handle.db
      .update(detectionJobs)
      .set({ runAfter: sql`now() - interval '2 minutes'` })
      .where(and(eq(detectionJobs.workspaceId, ws.id), eq(detectionJobs.status, 'pending')));
    [backlog] = await detectionBacklog(suite.handle.db, { workspaceId: ws.id });
    expect(backlog).toMatchObject({ pending: 1, running: 1, stuck: 0 });

    // ...until that run's lease lapses: then both are.
    await suite.handle.db.update(detectionRuns).set({ leaseUntil: sql`now() - interval '1 second'` }).where(eq(detectionRuns.id, run!.runId));
    await suite.handle.db.update(detectionJobs).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(detectionJobs.runId, run!.runId));
    [backlog] = await detectionBacklog(suite.handle.db, { workspaceId: ws.id });
    expect(backlog).toMatchObject({ pending: 1, running: 1, stuck: 2, stalledRuns: 1 });
    const status = await getStatus(suite.handle.db, ws.principal, { llm: { enabled: false, model: 'none' }, tools: [] });
    expect(status.detection).toMatchObject({ pending_jobs: 1, stuck_jobs: 2, note: expect.stringMatching(/no worker taking them/) });

    const app = await testApp(suite.handle);
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/detection/status', headers: { authorization: `Bearer ${ws.ownerToken}` } });
      expect(res.json()).toMatchObject({ pending_jobs: 1, running_jobs: 1, failed_jobs: 0, stuck_jobs: 2, stalled_runs: 1, note: expect.any(String) });
    } finally {
      await app.close();
    }
    // Whoever polls next takes the lapsed run over; nothing is stuck once it is done.
    const worker = workerFor(ws.id);
    await eventually(async () => (await worker.runOnce()) !== null);
    expect(await detectionBacklog(suite.handle.db, { workspaceId: ws.id })).toEqual([]);
  });

  it('lets an owner (not a member) requeue the workspace\'s failed jobs, and an operator any workspace\'s, audited', async () => {
    const ws = await workspace();
    const other = await workspace();
    for (const w of [ws, other]) {
      await w.commit('The cache TTL is 60 seconds');
      await suite.handle.db.update(detectionJobs).set({ status: 'failed', attempts: 5, lastError: 'gave up' }).where(eq(detectionJobs.workspaceId, w.id));
    }
    const app = await testApp(suite.handle);
    try {
      const invite = await app.inject({ method: 'POST', url: '/api/v1/invites', headers: { authorization: `Bearer ${ws.ownerToken}` }, payload: { role: 'member' } });
      const joined = await app.inject({ method: 'POST', url: '/api/v1/join', payload: { invite_key: invite.json().invite_key } });
      const memberToken = joined.json().token as string;
      const asMember = await app.inject({ method: 'POST', url: '/api/v1/detection/requeue', headers: { authorization: `Bearer ${memberToken}` } });
      expect(asMember.statusCode).toBe(403);

      const asOwner = await app.inject({ method: 'POST', url: '/api/v1/detection/requeue', headers: { authorization: `Bearer ${ws.ownerToken}` } });
      expect(asOwner.json()).toEqual({ requeued: 1 });
      expect((await jobsOf(ws.id))[0]).toMatchObject({ status: 'pending', attempts: 0, lastError: null });
      expect((await jobsOf(other.id))[0]!.status).toBe('failed');

      const noToken = await app.inject({ method: 'POST', url: '/api/v1/admin/detection/requeue', payload: { engram_id: other.engramId } });
      expect(noToken.statusCode).toBe(401);
      const unknown = await app.inject({
        method: 'POST',
        url: '/api/v1/admin/detection/requeue',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { engram_id: 'ENG-ZZZZ-ZZZZ' },
      });
      expect(unknown.statusCode).toBe(404);
      const byOperator = await app.inject({
        method: 'POST',
        url: '/api/v1/admin/detection/requeue',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { engram_id: other.engramId },
      });
      expect(byOperator.json()).toEqual({ requeued: 1, workspaces: [{ engram_id: other.engramId, requeued: 1 }] });
      expect((await jobsOf(other.id))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    } finally {
      await app.close(); // flushes the audit log
    }
    const audited = await suite.handle.db.select().from(auditLog).where(eq(auditLog.workspaceId, other.id));
    expect(audited.find((e) => e.action === 'POST /api/v1/admin/detection/requeue')).toMatchObject({ actor: 'operator', outcome: 'ok' });
    const ownerAudit = await suite.handle.db.select().from(auditLog).where(eq(auditLog.workspaceId, ws.id));
    expect(ownerAudit.find((e) => e.action === 'POST /api/v1/detection/requeue' && e.outcome === 'ok')).toBeDefined();
  });

  it.skipIf(engine.name !== 'postgres')('takes over at once the run of a worker process on this host that was killed, long before its lease lapses', async () => {
    const ws = await workspace();
    await ws.commit('The session store is Redis', 'agent-1');
    await ws.commit('The session store is Memcached', 'agent-2');
    // The hanging worker claims whatever is due: earlier tests' leftovers must not be.
    await suite.handle.db.update(detectionJobs).set({ status: 'done' }).where(sql`${detectionJobs.workspaceId} <> ${ws.id} and ${detectionJobs.status} <> 'done'`);
    // It names itself as every worker does (host, pid, PID namespace, instance).
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '../support/hanging-worker.ts'), suite.handle.url!, String(LONG_LEASE_MS), 'own-id'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`hanging worker exited early (${code}): ${stderr}`)));
    });
    const [, killedRunId] = line.split(' ');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const killed = (await runsOf(ws.id)).find((r) => r.id === killedRunId)!;
    expect(killed).toMatchObject({ status: 'running', workerId: expect.stringMatching(new RegExp(`^worker-.*:${child.pid}:`)) });

    const worker = workerFor(ws.id); // not exclusive: other processes may hold runs on Postgres
    await drain(worker, ws.id);
    const runs = await runsOf(ws.id);
    expect(runs.find((r) => r.id === killedRunId)).toMatchObject({ status: 'failed', error: expect.stringMatching(/is gone; its jobs were requeued at once/) });
    const finished = runs.find((r) => r.status === 'succeeded')!;
    expect(finished.startedAt.getTime()).toBeLessThan(killed.leaseUntil!.getTime() - LONG_LEASE_MS / 2);
    expect(finished.conflictsRaised).toBe(1);
  });

  it.skipIf(engine.name !== 'postgres')('retries a run cut off by a database outage once the database is back, without using an attempt', async () => {
    const target = new URL(suite.handle.url!);
    const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
    const viaProxy = await createDb({ kind: 'postgres', url: proxy.via(suite.handle.url!) }, { maxConnections: 2 });
    try {
      const ws = await workspace();
      await ws.commit('The payments service retries webhooks 5 times');
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const claims: ClaimedRun[] = [];
      const logged: string[] = [];
      const log = { info: () => {}, error: () => {}, warn: (_: object, msg?: string) => void logged.push(msg ?? '') };
      const worker = new DetectionWorker({
        db: viaProxy.db,
        log,
        debounceMs: 0,
        pollMs: 20,
        leaseMs: LONG_LEASE_MS,
        maxAttempts: 1,
        workspaceId: ws.id,
        run: async (claimed) => {
          claims.push(claimed);
          if (claims.length === 1) await gate; // the outage begins while the run is in progress
          return runDeterministicPass({ db: viaProxy.db, log: silentLogger }, claimed);
        },
      });
      worker.start();
      try {
        await eventually(async () => claims.length === 1);
        await proxy.down();
        release();
        // The run fails, and recording that fails too while the database is away: the job stays
        // with its run, which stays running (nothing is given up) until the database is back.
        await eventually(async () => logged.some((m) => m.startsWith('could not record the failed run: the database is away')));
        expect((await jobsOf(ws.id))[0]).toMatchObject({ status: 'running', attempts: 1 });
        await proxy.up();
        await eventually(async () => (await jobsOf(ws.id)).every((j) => j.status === 'done'));
      } finally {
        await worker.stop();
      }
      const runs = await runsOf(ws.id);
      expect(runs.map((r) => r.status)).toEqual(['failed', 'succeeded']);
      expect(runs[0]!.error).toMatch(/^database fault \(unavailable\)/);
      expect((await jobsOf(ws.id))[0]).toMatchObject({ status: 'done', attempts: 1 });
      expect(claims.map((c) => c.attempt)).toEqual([1, 1]);
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });
});

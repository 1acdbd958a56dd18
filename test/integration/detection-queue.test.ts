/**
 * The detection job queue on each engine: commits never wait for detection, due jobs coalesce
 * into one run, failures retry with backoff, a run abandoned or killed mid-way is taken over, and
 * several workers never run the same job. (The 1,000-commit burst runs over MCP in
 * test/e2e/detection.test.ts, where commits arrive as requests do.) Every engine gets a database
 * of its own: workers claim whatever is due, so they must not see other test files' jobs.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import {
  authenticateToken,
  commitFact,
  CommitInput,
  DetectionWorker,
  LocalEmbedder,
  provisionWorkspace,
  runDeterministicPass,
  silentLogger,
  type MemberPrincipal,
} from '@engram/core';
import {
  agents,
  applyRetirements,
  claimDetectionRun,
  completeRun,
  conflictFacts,
  conflicts,
  createDb,
  detectionJobs,
  detectionRuns,
  facts,
  forWorkspace,
  insertConflicts,
  resolveSettledConflicts,
  type ClaimedRun,
  type ConflictRecord,
  type RunStats,
  type TenantDb,
} from '@engram/db';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { seedOpenConflicts } from '../support/open-conflicts.ts';
import { readingRows } from '../support/rows-read.ts';
import { databaseSuite, isolatedTestDatabases } from '../support/databases.ts';
import { eventually } from '../support/poll.ts';

const NO_STATS: RunStats = { factsRead: 0, conflictsRaised: 0, factsRetired: 0 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(isolatedTestDatabases())('detection queue on $name', (engine) => {
  const suite = databaseSuite(engine);
  const embedder = new LocalEmbedder();

  const services = () => ({ db: suite.handle.db, embedder, secret: TEST_SECRET, log: silentLogger });

  async function workspace(): Promise<{ id: string; principal: MemberPrincipal; commit: (content: string, agent?: string) => Promise<string> }> {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const principal = await authenticateToken(suite.handle.db, created.ownerToken);
    return {
      id: created.workspaceId,
      principal,
      commit: async (content, agent = 'agent-1') => {
        const out = await commitFact(services(), principal, CommitInput.parse({ content, scope: 'svc', confidence: 1, agent_id: agent }));
        if (!out.fact_id) throw new Error(`commit stored nothing: ${JSON.stringify(out)}`);
        return out.fact_id;
      },
    };
  }

  /** A conflict as a test gives it to insertConflicts: its kind, question and facts are what the tests read. */
  const recorded = (kind: ConflictRecord['kind'], question: string, factIds: string[]): ConflictRecord => ({ kind, detectedBy: 'tier0_entity', severity: 'high', question, explanation: null, factIds });
  /** For tests that give the conflicts themselves: no detection run is to take the workspace's commits up. */
  const withoutDetection = (workspaceId: string) => suite.handle.db.delete(detectionJobs).where(eq(detectionJobs.workspaceId, workspaceId));
  const jobsOf = (workspaceId: string) => suite.handle.db.select().from(detectionJobs).where(eq(detectionJobs.workspaceId, workspaceId));
  const runsOf = (workspaceId: string) => suite.handle.db.select().from(detectionRuns).where(eq(detectionRuns.workspaceId, workspaceId));

  it('returns from a commit while a detection run of the same workspace is still in progress', async () => {
    const ws = await workspace();
    await ws.commit('The billing service timeout is 30 seconds');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let claimedRun: ClaimedRun | null = null;
    const worker = new DetectionWorker({
      db: suite.handle.db,
      log: silentLogger,
      debounceMs: 0,
      pollMs: 20,
      run: async (claimed) => {
        if (claimed.workspaceId !== ws.id) return NO_STATS;
        claimedRun ??= claimed;
        await gate;
        return NO_STATS;
      },
    });
    worker.start();
    try {
      await eventually(async () => claimedRun);
      const started = performance.now();
      const second = await ws.commit('The billing service retries failed webhooks 5 times', 'agent-2');
      const elapsed = performance.now() - started;
      // The run is still blocked: the commit did not wait for it, and its job waits for the next run.
      const jobs = await jobsOf(ws.id);
      expect(jobs.find((j) => j.triggerFactId === second)?.status).toBe('pending');
      expect((await runsOf(ws.id)).map((r) => r.status)).toEqual(['running']);
      expect(elapsed).toBeLessThan(5_000);
    } finally {
      release();
      await eventually(async () => (await jobsOf(ws.id)).every((j) => j.status === 'done'));
      await worker.stop();
    }
    const runs = await runsOf(ws.id);
    expect(runs).toHaveLength(2);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
  });

  it('waits for a quiet moment, then coalesces all of a workspace’s due jobs into one run', async () => {
    const ws = await workspace();
    for (let i = 0; i < 5; i++) await ws.commit(`Service ${i} listens on port ${8000 + i}`);
    const jobs = await jobsOf(ws.id);
    const newest = Math.max(...jobs.map((j) => j.createdAt.getTime()));
    const claim = (now: number, debounceMs = 300) =>
      claimDetectionRun(suite.handle.db, { workerId: 'w1', debounceMs, maxWaitMs: 3_000, leaseMs: 60_000, now: new Date(now) });

    expect(await claim(newest + 100)).toBeNull(); // still busy
    const run = await claim(newest + 400);
    expect(run).toMatchObject({ workspaceId: ws.id, attempt: 1 });
    expect(run!.jobIds.sort()).toEqual(jobs.map((j) => j.id).sort());
    expect(run!.triggerFactIds).toHaveLength(5);
    await completeRun(suite.handle.db, run!.runId, NO_STATS);
    expect((await jobsOf(ws.id)).every((j) => j.status === 'done')).toBe(true);
    const [row] = await runsOf(ws.id);
    expect(row).toMatchObject({ status: 'succeeded', jobsCoalesced: 5 });

    // A workspace that never goes quiet is still served once its oldest job has waited maxWait.
    const busy = await workspace();
    await busy.commit('The search indexer batch size is 500 documents');
    const [first] = await jobsOf(busy.id);
    const t = first!.createdAt.getTime();
    expect(await claim(t + 2_000, 10_000)).toBeNull();
    const late = await claim(t + 3_100, 10_000);
    expect(late?.workspaceId).toBe(busy.id);
    await completeRun(suite.handle.db, late!.runId, NO_STATS);
  });

  it('reads each slot of a run once for all its triggers there, however they interleave', async () => {
    const ws = await workspace();
    const slots = [
      (n: number) => `The billing service timeout is ${n} seconds`,
      (n: number) => `The search worker pool size is ${n} threads`,
      (n: number) => `The mailer queue retries failed jobs ${n} times`,
    ];
    // Thirty facts per slot, each from its own agent (no session settles them), interleaved.
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) for (const [s, text] of slots.entries()) ids.push(await ws.commit(text(i + 2), `agent-${s}-${i}`));
    // The run is called directly: its commits' jobs must not wait for the next test's workers.
    await suite.handle.db.delete(detectionJobs).where(eq(detectionJobs.workspaceId, ws.id));
    const stats = await runDeterministicPass({ db: suite.handle.db, log: silentLogger }, { runId: 'run-interleaved', workspaceId: ws.id, triggerFactIds: ids });
    // One read per slot, of that slot's 30 facts: 90 reads. Steps of 25 triggers in arrival order
    // would read every slot in every step (about 270); reads of 25 triggers per slot, 180.
    expect(stats.factsRead).toBe(90);
    expect(stats.conflictsRaised).toBe(3);
  });

  it('applies a chain of settlements in one step, and settles the conflicts they and other closings made moot', async () => {
    const ws = await workspace();
    const tenant = forWorkspace(suite.handle.db, ws.id);
    // Two facts another agent disagrees with, in conflicts raised earlier.
    const other = await ws.commit('The cache TTL is 15 seconds', 'agent-2');
    const corrected = await ws.commit('The export job runs every 15 minutes', 'agent-3');
    const rival = await ws.commit('The export job runs every 20 minutes', 'agent-4');
    // One agent in one working session: 30, then 60, then 90 (each settles the one before).
    const a = await ws.commit('The cache TTL is 30 seconds');
    const b = await ws.commit('The cache TTL is 60 seconds');
    const c = await ws.commit('The cache TTL is 90 seconds');
    await suite.handle.db.delete(detectionJobs).where(eq(detectionJobs.workspaceId, ws.id));
    const [first, second] = await tenant.transaction((tx) =>
      insertConflicts(tx, [
        { kind: 'value_mismatch', detectedBy: 'tier2_numeric', severity: 'high', question: 'TTL 15 or 30?', explanation: null, factIds: [other, a] },
        { kind: 'value_mismatch', detectedBy: 'tier2_numeric', severity: 'high', question: 'Every 15 or 20 minutes?', explanation: null, factIds: [corrected, rival] },
      ]),
    );
    // The second conflict's fact is closed by its author, not by the detector.
    await tenant.execute(sql`update facts set valid_until = now() where id = ${corrected}`);

    const stats = await runDeterministicPass({ db: suite.handle.db, log: silentLogger }, { runId: 'run-chain', workspaceId: ws.id, triggerFactIds: [a, b, c] });
    expect(stats.factsRetired).toBe(2);
    const rows = await suite.handle.db.select().from(facts).where(eq(facts.workspaceId, ws.id));
    const row = (id: string) => rows.find((r) => r.id === id)!;
    expect(row(a)).toMatchObject({ retiredBy: 'detector', retiredForFactId: b });
    expect(row(a).validUntil).not.toBeNull();
    // B is both retired (by C) and the settler of A: one row, both changes.
    expect(row(b)).toMatchObject({ retiredBy: 'detector', retiredForFactId: c, memoryOp: 'update', supersedesFactId: a });
    expect(row(b).validUntil).not.toBeNull();
    expect(row(c)).toMatchObject({ validUntil: null, memoryOp: 'update', supersedesFactId: b });
    // The TTL conflict has one current fact left; so has the export one, closed outside the run.
    const status = async (id: string) => (await suite.handle.db.select().from(conflicts).where(eq(conflicts.id, id)))[0]!.status;
    expect(await status(first!)).toBe('resolved');
    expect(await status(second!)).toBe('resolved');
    // Each settlement is on record as the detector's doing (a resolved probable update, kept by the
    // later fact), listed with the conflicts and undone like a resolution.
    const records = await suite.handle.db.select().from(conflicts).where(and(eq(conflicts.workspaceId, ws.id), eq(conflicts.resolutionType, 'detector')));
    const links = await suite.handle.db.select().from(conflictFacts).where(eq(conflictFacts.workspaceId, ws.id));
    const factsOf = (id: string) => links.filter((l) => l.conflictId === id).map((l) => l.factId).sort();
    const settlement = (older: string, newer: string) => ({
      kind: 'probable_update',
      status: 'resolved',
      winningFactId: newer,
      resolution: expect.stringMatching(/^Settled by the detector: the same agent refined its own note/),
      facts: [older, newer].sort(),
    });
    expect(
      records.map((r) => ({ kind: r.kind, status: r.status, winningFactId: r.winningFactId, resolution: r.resolution, facts: factsOf(r.id) })).sort((x, y) => [b, c].indexOf(x.winningFactId!) - [b, c].indexOf(y.winningFactId!)),
    ).toEqual([settlement(a, b), settlement(b, c)]);
    // Applying the same retirements again closes nothing.
    expect(await tenant.transaction((tx) => applyRetirements(tx, [{ factId: a, byFactId: b, at: new Date(), reason: 'the same agent refined its own note within a working session' }]))).toEqual([]);
  });

  it('asks, for a lone commit announcing a change, about the earlier fact it updates, and retires nothing', async () => {
    const ws = await workspace();
    const tenant = forWorkspace(suite.handle.db, ws.id);
    const vendor = await ws.commit('Feature toggles are served by Flagsmith; the server key is FLAGSMITH_KEY in the api env');
    await ws.commit('Toggle names are kebab-case and start with the owning team', 'agent-2');
    await suite.handle.db.delete(detectionJobs).where(eq(detectionJobs.workspaceId, ws.id));
    const moved = await ws.commit('Toggles moved off Flagsmith to a self-hosted GrowthBook; the api reads GROWTHBOOK_URL now', 'agent-3');
    // The pass is run here by hand: no job may be left for the workers of the tests after this one.
    await suite.handle.db.delete(detectionJobs).where(eq(detectionJobs.workspaceId, ws.id));
    await runDeterministicPass({ db: suite.handle.db, log: silentLogger }, { runId: 'run-announced', workspaceId: ws.id, triggerFactIds: [moved] });
    const raised = await tenant.rows<{ kind: string; status: string; fact_ids: string[] }>(
      sql`select c.kind, c.status, array_agg(cf.fact_id::text order by cf.fact_id) as fact_ids from conflicts c join conflict_facts cf on cf.conflict_id = c.id where c.workspace_id = ${ws.id} group by c.id`,
    );
    expect(raised).toEqual([{ kind: 'probable_update', status: 'open', fact_ids: [vendor, moved].sort() }]);
    // A question, not a settlement: both facts stay current.
    const open = await suite.handle.db.select({ id: facts.id }).from(facts).where(and(eq(facts.workspaceId, ws.id), sql`${facts.validUntil} is null`));
    expect(open).toHaveLength(3);
  });

  it('closes settled facts by primary key, without reading the rest of the workspace, with statistics or without', async () => {
    const ws = await workspace();
    const tenant = forWorkspace(suite.handle.db, ws.id);
    // A workspace of some size, which nothing has analyzed yet.
    await suite.handle.db.execute(sql`insert into facts (workspace_id, lineage_id, content, content_hash, scope, confidence, agent_id)
      select ${ws.id}, gen_random_uuid(), 'Filler fact number ' || g, md5(g::text), 'filler', 1, 'agent-filler'
      from generate_series(1, 3000) g`);
    const retire = (older: string, newer: string) =>
      readingRows(tenant, 'facts', (tx) => applyRetirements(tx, [{ factId: older, byFactId: newer, at: new Date(), reason: 'the later fact names this value as the one it replaces' }]));
    const ttl30 = await ws.commit('The cache TTL is 30 seconds');
    const ttl60 = await ws.commit('The cache TTL is 60 seconds');
    // Two facts, each looked up a few times (the settled one and the settling one), not 3,000.
    const first = await retire(ttl30, ttl60);
    expect(first.result).toEqual([ttl30]);
    expect(first.read).toBeLessThanOrEqual(8);
    // And with statistics. The update used to join the ids coming out of a full join by scanning the
    // workspace (9,004 rows read for this one retirement), at every step of a busy workspace's runs.
    await suite.handle.db.execute(sql`analyze facts`);
    const every15 = await ws.commit('The export job runs every 15 minutes');
    const every20 = await ws.commit('The export job runs every 20 minutes');
    // No detection run is to take these commits up (the tests after claim whichever run is due).
    await suite.handle.db.delete(detectionJobs).where(eq(detectionJobs.workspaceId, ws.id));
    const second = await retire(every15, every20);
    expect(second.result).toEqual([every15]);
    expect(second.read).toBeLessThanOrEqual(8);
  });

  it('reads only the conflicts of the facts it is given when it records or settles conflicts', async () => {
    const ws = await workspace();
    const tenant = forWorkspace(suite.handle.db, ws.id);
    const conflict = (question: string, factIds: string[]) => recorded('value_mismatch', question, factIds);
    // A thousand open conflicts elsewhere in the workspace, then one about the cache TTL.
    await seedOpenConflicts(suite.handle.db, ws.id, 1_000);
    const ttl15 = await ws.commit('The cache TTL is 15 seconds', 'agent-a');
    const ttl30 = await ws.commit('The cache TTL is 30 seconds', 'agent-b');
    const ttl60 = await ws.commit('The cache TTL is 60 seconds', 'agent-c');
    await suite.handle.db.delete(detectionJobs).where(eq(detectionJobs.workspaceId, ws.id));
    const counting = <T,>(work: (tx: TenantDb) => Promise<T>) => readingRows(tenant, 'conflict_facts', work);
    const [first] = (await counting((tx) => insertConflicts(tx, [conflict('TTL 15 or 30?', [ttl15, ttl30])]))).result;
    // The set grown by a third fact joins the open conflict: the lookups, the insert and the reread
    // of its facts touch its own links, not the two thousand others.
    const grown = await counting((tx) => insertConflicts(tx, [conflict('TTL 15, 30 or 60?', [ttl15, ttl30, ttl60])]));
    expect(grown.result).toEqual([]);
    expect(grown.read).toBeLessThanOrEqual(12);
    // Two of its facts close: the conflict is moot, and settling it reads its own links.
    await tenant.execute(sql`update facts set valid_until = now() where id in (${ttl15}, ${ttl30})`);
    const settled = await counting((tx) => resolveSettledConflicts(tx, new Date(), [ttl15, ttl30]));
    expect(settled.result).toBe(1);
    expect(settled.read).toBeLessThanOrEqual(12);
    const [row] = await suite.handle.db.select().from(conflicts).where(eq(conflicts.id, first!));
    expect(row?.status).toBe('resolved');
  });

  it('keeps a probable-update question when a reversal runs through its pair: the reversal is raised beside it', async () => {
    const ws = await workspace();
    const tenant = forWorkspace(suite.handle.db, ws.id);
    const first = await ws.commit('The build image is node 20', 'agent-a');
    const bumped = await ws.commit('Bumped the build image to node 22', 'agent-b');
    const back = await ws.commit('The build image is node 20', 'agent-c');
    await withoutDetection(ws.id);
    const asked = recorded('probable_update', 'Is node 20 still the image?', [first, bumped]);
    const reversal = recorded('reversal', 'node 20, 22, then 20 again?', [first, bumped, back]);
    // One after the other (the question raised at the bump's commit, the reversal at the next), and both in one run.
    const raised = async () => (await suite.handle.db.select().from(conflicts).where(eq(conflicts.workspaceId, ws.id))).map((r) => [r.kind, r.status, r.question]).sort();
    const both = [
      ['probable_update', 'open', 'Is node 20 still the image?'],
      ['reversal', 'open', 'node 20, 22, then 20 again?'],
    ];
    await tenant.transaction((tx) => insertConflicts(tx, [asked]));
    await tenant.transaction((tx) => insertConflicts(tx, [reversal]));
    expect(await raised()).toEqual(both);
    await tenant.execute(sql`delete from conflicts`);
    await tenant.transaction((tx) => insertConflicts(tx, [reversal, asked]));
    expect(await raised()).toEqual(both);
  });

  it('asks whether a fact is stale once while that question is open, and still asks about another fact the same change made doubtful', async () => {
    const ws = await workspace();
    const tenant = forWorkspace(suite.handle.db, ws.id);
    const waits = await ws.commit('The search reindex waits until the billing freeze ends', 'agent-a');
    const holds = await ws.commit('Invoice exports are held until the billing freeze ends', 'agent-b');
    const ended = await ws.commit('Billing freeze ended Monday morning', 'agent-c');
    const again = await ws.commit('Billing freeze was lifted; the release train runs again', 'agent-d');
    await withoutDetection(ws.id);
    const stale = (factIds: string[]) => recorded('stale', `stale ${factIds.join(' ')}`, factIds);
    await tenant.transaction((tx) => insertConflicts(tx, [stale([waits, ended])]));
    const later = await tenant.transaction((tx) => insertConflicts(tx, [stale([waits, again]), stale([holds, ended])]));
    expect(later).toHaveLength(1);
    const rows = await suite.handle.db.select().from(conflicts).where(eq(conflicts.workspaceId, ws.id));
    expect(rows.map((r) => r.question).sort()).toEqual([`stale ${holds} ${ended}`, `stale ${waits} ${ended}`].sort());
    // A settlement is a record, not a question: kept whatever is open.
    const settledBy = { factId: again, reason: 'replaced', at: new Date() };
    await tenant.transaction((tx) => insertConflicts(tx, [{ ...stale([waits, again]), settledBy }]));
    const settled = await suite.handle.db.select().from(conflicts).where(and(eq(conflicts.workspaceId, ws.id), eq(conflicts.status, 'resolved')));
    expect(settled.map((r) => r.question)).toEqual([`stale ${waits} ${again}`]);
  });

  it('does not ask which value holds for a fact an open probable update already doubts, and still asks about the newer fact', async () => {
    const ws = await workspace();
    const tenant = forWorkspace(suite.handle.db, ws.id);
    const first = await ws.commit('Team standup is at 09:15', 'agent-a');
    const moved = await ws.commit('Team standup moved to 10:00', 'agent-b');
    const agrees = await ws.commit('The 10:00 standup works better for the Lisbon folks', 'agent-c');
    const disagrees = await ws.commit('Team standup is at 10:30', 'agent-d');
    await withoutDetection(ws.id);
    await tenant.transaction((tx) => insertConflicts(tx, [recorded('probable_update', 'Is 09:15 still the time?', [first, moved])]));
    const later = await tenant.transaction((tx) =>
      insertConflicts(tx, [recorded('value_mismatch', '09:15 or 10:00?', [first, agrees]), recorded('value_mismatch', '10:00 or 10:30?', [moved, disagrees])]),
    );
    expect(later).toHaveLength(1);
    const rows = await suite.handle.db.select().from(conflicts).where(eq(conflicts.workspaceId, ws.id));
    expect(rows.map((r) => r.question).sort()).toEqual(['10:00 or 10:30?', 'Is 09:15 still the time?']);
    // Once people answer the probable update, the fact is no longer doubted by an open question.
    await tenant.execute(sql`update conflicts set status = 'dismissed' where kind = 'probable_update'`);
    expect(await tenant.transaction((tx) => insertConflicts(tx, [recorded('value_mismatch', '09:15 or 10:00?', [first, agrees])]))).toHaveLength(1);
  });

  it('does not ask again whether a fact an open stale question doubts still holds, when a later fact says what it uses is gone', async () => {
    const ws = await workspace();
    const tenant = forWorkspace(suite.handle.db, ws.id);
    const plan = await ws.commit('The legacy-export flag stays until the freeze ends, then it is removed', 'agent-a');
    const ended = await ws.commit('The freeze ended this morning', 'agent-b');
    const removed = await ws.commit('Removed the legacy-export flag', 'agent-c');
    const other = await ws.commit('Exports run nightly from the reporting replica', 'agent-d');
    await withoutDetection(ws.id);
    await tenant.transaction((tx) => insertConflicts(tx, [recorded('stale', 'Does the flag plan still hold?', [plan, ended])]));
    const gone = (factIds: string[], detectedBy: ConflictRecord['detectedBy']): ConflictRecord => ({ ...recorded('probable_update', 'Is it still so?', factIds), detectedBy });
    // The gone thing's question about the doubted fact is not asked; a slot's probable update, or one about another fact, is.
    expect(await tenant.transaction((tx) => insertConflicts(tx, [gone([plan, removed], 'narrative_rules')]))).toHaveLength(0);
    expect(await tenant.transaction((tx) => insertConflicts(tx, [gone([plan, removed], 'tier0_entity'), gone([other, removed], 'narrative_rules')]))).toHaveLength(2);
  });

  it('counts a flagged commit for each agent once per new conflict of theirs, and none for a set raised before', async () => {
    const ws = await workspace();
    const tenant = forWorkspace(suite.handle.db, ws.id);
    const ttl15 = await ws.commit('The cache TTL is 15 seconds', 'agent-a');
    const ttl30 = await ws.commit('The cache TTL is 30 seconds', 'agent-b');
    const every15 = await ws.commit('The export job runs every 15 minutes', 'agent-a');
    const every20 = await ws.commit('The export job runs every 20 minutes', 'agent-c');
    await withoutDetection(ws.id);
    const conflict = (question: string, factIds: string[]) => recorded('value_mismatch', question, factIds);
    const flagged = async () =>
      Object.fromEntries((await suite.handle.db.select().from(agents).where(eq(agents.workspaceId, ws.id))).map((a) => [a.agentId, a.flaggedCommits]));
    const created = await tenant.transaction((tx) => insertConflicts(tx, [conflict('TTL?', [ttl15, ttl30]), conflict('Export?', [every15, every20])]));
    expect(created).toHaveLength(2);
    expect(await flagged()).toEqual({ 'agent-a': 2, 'agent-b': 1, 'agent-c': 1 });
    // The same set again is not a new conflict: nobody counts more.
    expect(await tenant.transaction((tx) => insertConflicts(tx, [conflict('TTL again?', [ttl30, ttl15])]))).toEqual([]);
    expect(await flagged()).toEqual({ 'agent-a': 2, 'agent-b': 1, 'agent-c': 1 });
  });

  it('retries a failed run with backoff and gives the jobs up after the last attempt', async () => {
    const ws = await workspace();
    await ws.commit('The export job runs every 15 minutes');
    let calls = 0;
    const worker = new DetectionWorker({
      db: suite.handle.db,
      log: silentLogger,
      debounceMs: 0,
      maxAttempts: 2,
      run: async () => {
        calls++;
        throw new Error('the detector fell over');
      },
    });
    expect(await worker.runOnce()).not.toBeNull();
    let [job] = await jobsOf(ws.id);
    expect(job).toMatchObject({ status: 'pending', attempts: 1, lastError: 'the detector fell over' });
    // Backs off 1 s from the failure (read from the records, not the clock: a busy machine may be past it already).
    const [failed] = await runsOf(ws.id);
    expect(job!.runAfter.getTime() - failed!.finishedAt!.getTime()).toBe(1_000);
    const early = await worker.runOnce();
    if (Date.now() < job!.runAfter.getTime()) expect(early).toBeNull(); // asked and answered before it was due

    if (early === null) await eventually(async () => (await worker.runOnce()) !== null, { timeoutMs: 5_000 });
    [job] = await jobsOf(ws.id);
    expect(job).toMatchObject({ status: 'failed', attempts: 2 });
    expect(calls).toBe(2);
    const runs = await runsOf(ws.id);
    expect(runs.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(runs[0]!.error).toBe('the detector fell over');
  });

  it('takes over a run whose worker stopped renewing its lease, and finishes its jobs', async () => {
    const ws = await workspace();
    await ws.commit('The gateway rate limit is 100 req/s');
    const leaseMs = 500;
    const abandoned = await claimDetectionRun(suite.handle.db, { workerId: 'gone', debounceMs: 0, maxWaitMs: 0, leaseMs });
    expect(abandoned?.workspaceId).toBe(ws.id);
    const claim = () => claimDetectionRun(suite.handle.db, { workerId: 'w2', debounceMs: 0, maxWaitMs: 0, leaseMs: 60_000 });
    // While the lease holds, nobody else may run this workspace (judged by the clock after the
    // answer: on a busy machine the lease may have lapsed before the rival even asked).
    const rival = await claim();
    if (Date.now() < abandoned!.startedAt.getTime() + leaseMs) expect(rival).toBeNull();
    const taken = rival ?? (await eventually(claim));
    expect(taken).toMatchObject({ workspaceId: ws.id, jobIds: abandoned!.jobIds, attempt: 2 });
    await completeRun(suite.handle.db, taken.runId, NO_STATS);
    const runs = await runsOf(ws.id);
    expect(runs.find((r) => r.id === abandoned!.runId)).toMatchObject({ status: 'failed', error: expect.stringMatching(/lease expired/) });
    expect(runs.find((r) => r.id === taken.runId)?.status).toBe('succeeded');
    expect((await jobsOf(ws.id)).map((j) => j.status)).toEqual(['done']);
  });

  it.skipIf(engine.name !== 'postgres')('loses no job when a worker process is killed mid-run', async () => {
    const ws = await workspace();
    const a = await ws.commit('The session store is Redis', 'agent-1');
    const b = await ws.commit('The session store is Memcached', 'agent-2');
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '../support/hanging-worker.ts'), suite.handle.url!, '600'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`hanging worker exited early (${code}): ${stderr}`)));
    });
    const [, killedRunId] = line.split(' ');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect((await runsOf(ws.id)).find((r) => r.id === killedRunId)?.status).toBe('running');

    const worker = new DetectionWorker({
      db: suite.handle.db,
      log: silentLogger,
      debounceMs: 0,
      pollMs: 50,
      run: (claimed) => runDeterministicPass({ db: suite.handle.db, log: silentLogger }, claimed),
    });
    worker.start();
    try {
      await eventually(async () => (await jobsOf(ws.id)).every((j) => j.status === 'done'));
    } finally {
      await worker.stop();
    }
    const runs = await runsOf(ws.id);
    expect(runs.find((r) => r.id === killedRunId)).toMatchObject({ status: 'failed', error: expect.stringMatching(/lease expired/) });
    const finished = runs.find((r) => r.status === 'succeeded');
    expect(finished?.conflictsRaised).toBe(1);
    expect(new Set(finished!.triggerFactIds)).toEqual(new Set([a, b]));
  });

  it('never gives one job to two workers', async () => {
    const workspaces = await Promise.all(Array.from({ length: 6 }, () => workspace()));
    // Several pools on Postgres (real contention between connections); PGlite has one connection.
    const extra = engine.name === 'postgres' ? await Promise.all([1, 2, 3].map(() => createDb({ kind: 'postgres', url: suite.handle.url! }, { maxConnections: 2 }))) : [];
    const dbs = [suite.handle, ...extra].map((h) => h.db);
    const seen: { workerId: string; workspaceId: string; jobIds: number[]; start: number; end: number }[] = [];
    const workers = Array.from({ length: 4 }, (_, i) => {
      const worker: DetectionWorker = new DetectionWorker({
        db: dbs[i % dbs.length]!,
        log: silentLogger,
        debounceMs: 0,
        maxWaitMs: 0,
        pollMs: 5,
        run: async (claimed) => {
          const start = performance.now();
          await sleep(5 + Math.random() * 15);
          seen.push({ workerId: worker.workerId, workspaceId: claimed.workspaceId, jobIds: claimed.jobIds, start, end: performance.now() });
          return NO_STATS;
        },
      });
      worker.start();
      return worker;
    });
    try {
      // Commits keep arriving while the workers run.
      for (let round = 0; round < 5; round++) {
        await Promise.all(workspaces.map((ws, i) => ws.commit(`Service ${i} cache TTL is ${round * 60 + i + 1} seconds`, `agent-${round}`)));
        await sleep(10);
      }
      await eventually(async () => {
        const jobs = await Promise.all(workspaces.map((ws) => jobsOf(ws.id)));
        return jobs.flat().every((j) => j.status === 'done');
      });
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await Promise.all(extra.map((h) => h.close()));
    }
    const ids = workspaces.map((w) => w.id);
    const mine = seen.filter((s) => ids.includes(s.workspaceId));
    const claimedJobs = mine.flatMap((s) => s.jobIds);
    expect(claimedJobs).toHaveLength(new Set(claimedJobs).size); // no job twice
    expect(claimedJobs).toHaveLength(30);
    // One workspace is never run by two workers at the same time.
    for (const id of ids) {
      const runs = mine.filter((s) => s.workspaceId === id).sort((x, y) => x.start - y.start);
      for (let i = 1; i < runs.length; i++) expect(runs[i]!.start).toBeGreaterThanOrEqual(runs[i - 1]!.end);
    }
    expect(new Set(mine.map((s) => s.workerId)).size).toBeGreaterThan(1);
  });

});

/**
 * A worker's memory of the facts its runs read (packages/core/src/detection/memory.ts): runs
 * through it decide what runs without it decide, see every change made to a held fact between
 * runs (its window, a re-extraction, an erasure), read each held fact's row once, and give back
 * what they no longer read. Each engine gets a database of its own, so no other test file's worker
 * runs these workspaces' jobs.
 */
import {
  authenticateToken,
  commitFact,
  CommitInput,
  EXTRACTOR_VERSION,
  extractEntities,
  FactMemory,
  LocalEmbedder,
  matchKeysOf,
  provisionWorkspace,
  runDeterministicPass,
  silentLogger,
} from '@engram/core';
import { conflicts, detectionJobs, facts, forWorkspace, setExtraction, type DbHandle, type RunStats } from '@engram/db';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { isolatedTestDatabases } from '../support/databases.ts';

describe.each(isolatedTestDatabases())('detection memory on $name', (engine) => {
  let handle: DbHandle;
  const embedder = new LocalEmbedder();
  beforeAll(async () => {
    handle = await engine.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  async function workspace() {
    const created = await provisionWorkspace(handle.db, TEST_SECRET, {});
    const principal = await authenticateToken(handle.db, created.ownerToken);
    const id = created.workspaceId;
    return {
      id,
      tenant: forWorkspace(handle.db, id),
      /** Commits a fact and takes its detection job off the queue (the test runs detection itself). */
      commit: async (content: string, agent: string) => {
        const out = await commitFact(
          { db: handle.db, embedder, secret: TEST_SECRET, log: silentLogger },
          principal,
          CommitInput.parse({ content, scope: 'svc', confidence: 1, agent_id: agent }),
        );
        if (!out.fact_id) throw new Error(`commit stored nothing: ${JSON.stringify(out)}`);
        await handle.db.delete(detectionJobs).where(eq(detectionJobs.workspaceId, id));
        return out.fact_id;
      },
      run: (triggerFactIds: string[], memory?: FactMemory): Promise<RunStats> =>
        runDeterministicPass({ db: handle.db, log: silentLogger, ...(memory ? { memory } : {}) }, { runId: `run-${triggerFactIds[0]}`, workspaceId: id, triggerFactIds }),
      /** What detection left: each fact's window and who closed it, and the conflicts' questions. */
      outcome: async () => ({
        facts: (await handle.db.select().from(facts).where(eq(facts.workspaceId, id)).orderBy(asc(facts.content), asc(facts.agentId))).map((f) => [
          f.content,
          f.agentId,
          f.validUntil === null,
          f.retiredBy,
        ]),
        questions: (await handle.db.select().from(conflicts).where(eq(conflicts.workspaceId, id))).map((c) => `${c.kind}: ${c.question}`).sort(),
      }),
    };
  }
  const memory = (maxFacts = 10_000) => new FactMemory({ maxFacts, idleMs: 60_000 });

  it('decides what runs without it decide, reading the rows of what it holds once', async () => {
    // One story, told to two workspaces in three batches: one's runs go through a memory.
    const batches: [string, string][][] = [
      [
        ['The billing service timeout is 30 seconds', 'agent-1'],
        ['The search worker pool size is 8 threads', 'agent-2'],
        ['The mailer queue retries failed jobs 3 times', 'agent-3'],
      ],
      [
        ['The billing service timeout is 45 seconds', 'agent-4'],
        ['We switched the search worker pool size to 16 threads', 'agent-5'],
        ['The mailer queue retries failed jobs 5 times', 'agent-6'],
      ],
      [
        ['The search worker pool size is 8 threads again', 'agent-7'],
        ['The billing service timeout is 30 seconds', 'agent-8'],
      ],
    ];
    const direct = await workspace();
    const remembering = await workspace();
    const held = memory();
    const statsOf: [RunStats[], RunStats[]] = [[], []];
    for (const batch of batches) {
      for (const [i, ws] of [direct, remembering].entries()) {
        const ids: string[] = [];
        for (const [content, agent] of batch) ids.push(await ws.commit(content, agent));
        statsOf[i]!.push(await ws.run(ids, ws === remembering ? held : undefined));
      }
    }
    expect(statsOf[1]).toEqual(statsOf[0]);
    const outcome = await remembering.outcome();
    expect(outcome).toEqual(await direct.outcome());
    expect(outcome.questions.length).toBeGreaterThan(0);
    expect(outcome.facts.some(([, , current]) => !current)).toBe(true);
    // Every fact's row was read once: the later runs took the facts the earlier ones had read.
    expect(held.counts.rowsRead).toBe(8);
    expect(held.counts.reused).toBeGreaterThan(0);
  });

  it('sees a held fact closed between two runs', async () => {
    for (const closeBetween of [false, true]) {
      const ws = await workspace();
      const held = memory();
      const old = await ws.commit('The cache TTL is 15 seconds', 'agent-1');
      await ws.run([old], held);
      if (closeBetween) await ws.tenant.execute(sql`update facts set valid_until = now() where id = ${old}`);
      const next = await ws.commit('The cache TTL is 30 seconds', 'agent-2');
      const stats = await ws.run([next], held);
      // Current, the fact another agent contradicts is a conflict; closed, it is history.
      expect(stats.conflictsRaised).toBe(closeBetween ? 0 : 1);
      expect(held.counts.rowsRead).toBe(2);
    }
  });

  it('takes a held fact again only at the version it was read at, and never an erased one', async () => {
    const ws = await workspace();
    const held = memory();
    const id = await ws.commit('The export job runs every 15 minutes', 'agent-1');
    const keys = matchKeysOf(extractEntities('The export job runs every 15 minutes', 'svc'));
    const first = held.forRun(ws.tenant);
    const [fact] = await first.byIds([id]);
    first.end();

    // The same object next run, its window as the database has it now.
    await ws.tenant.execute(sql`update facts set valid_until = now() where id = ${id}`);
    const second = held.forRun(ws.tenant);
    const [again] = await second.byIds([id]);
    expect(again).toBe(fact);
    expect(again!.valid_until).toBeInstanceOf(Date);
    second.end();

    // Re-extracted (another version): read again, with its new entities.
    const entities = extractEntities('The export job runs every 20 minutes', 'svc');
    await setExtraction(handle.db, id, { entities, entitySignature: 'test', matchKeys: matchKeysOf(entities), keywords: [], version: EXTRACTOR_VERSION + 1 });
    const third = held.forRun(ws.tenant);
    const [reread] = await third.byIds([id]);
    expect(reread).not.toBe(fact);
    expect(reread!.extractor_version).toBe(EXTRACTOR_VERSION + 1);
    expect(reread!.entities).toEqual(entities);
    third.end();

    // Erased: the keys no longer find it, held or not.
    const fourth = held.forRun(ws.tenant);
    expect((await fourth.matching(keys, 50)).map((f) => f.id)).toEqual([id]);
    await ws.tenant.execute(sql`update facts set erased_at = now() where id = ${id}`);
    expect(await fourth.matching(keys, 50)).toEqual([]);
    fourth.end();
  });

  it('forgets what no run read for idleMs, holds at most maxFacts, and forgets an idle workspace', async () => {
    let now = 0;
    const held = new FactMemory({ maxFacts: 3, idleMs: 1_000, now: () => now });
    const ws = await workspace();
    const ids: string[] = [];
    for (const [i, text] of ['The cache TTL is 15 seconds', 'The search pool size is 8 threads', 'The export job runs every 15 minutes', 'The mailer retries 3 times'].entries()) {
      ids.push(await ws.commit(text, `agent-${i}`));
    }
    const readAt = async (at: number, some: string[]) => {
      now = at;
      const reads = held.forRun(ws.tenant);
      await reads.byIds(some);
      reads.end();
    };
    await readAt(0, ids.slice(0, 2));
    expect(held.size).toBe(2);
    // Over the bound: what earlier runs read goes first (the first read first); the run's own stays.
    await readAt(100, ids.slice(2, 4));
    expect(held.size).toBe(3);
    const rowsBefore = held.counts.rowsRead;
    await readAt(200, ids.slice(1, 4));
    expect(held.counts.rowsRead).toBe(rowsBefore);
    await readAt(300, ids.slice(0, 1));
    expect(held.counts.rowsRead).toBe(rowsBefore + 1);
    expect(held.size).toBe(3);
    // What no run read for idleMs is gone when a run ends.
    await readAt(1_250, ids.slice(3, 4));
    expect(held.size).toBe(2);
    await readAt(1_350, ids.slice(3, 4));
    expect(held.size).toBe(1);
    // A workspace no run read through for idleMs is forgotten whole.
    now = 2_349;
    held.forgetIdle();
    expect(held.size).toBe(1);
    now = 2_350;
    held.forgetIdle();
    expect(held.size).toBe(0);
  });
});

/**
 * Group commit (packages/db/src/fact-writer.ts): facts of a workspace that arrive while its last
 * batch is being written go together in the next one, each answered only once its batch has
 * committed; a batch that fails is retried fact by fact, so one bad fact costs no other its commit.
 */
import { provisionWorkspace } from '@engram/core';
import { FactWriter, queryRows, type NewFact } from '@engram/db';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { databaseSuite, testDatabases } from '../support/databases.ts';
import { newFact } from '../support/new-fact.ts';

const SCOPE = 'billing/worker';
const PLAIN = { closeLineageId: null, detectionReason: 'commit' } as const;

describe.each(testDatabases())('group commit of facts on $name', (engine) => {
  const suite = databaseSuite(engine);

  const workspace = async () => (await provisionWorkspace(suite.handle.db, TEST_SECRET, {})).workspaceId;
  const count = async (query: ReturnType<typeof sql>) => Number((await queryRows<{ n: number }>(suite.handle.db, query))[0]!.n);

  it('writes the facts that arrive meanwhile in one batch, with their keys, jobs and agent counts', async () => {
    const workspaceId = await workspace();
    const writer = new FactWriter(suite.handle.db);
    const facts = Array.from({ length: 20 }, (_, k) =>
      newFact(`The billing worker pool ${k} has ${10 + k} threads`, { scope: SCOPE, agentId: `agent-${k % 3}` }),
    );
    // All handed over at once: the first two go alone (two batches of a workspace may be in
    // flight), the other eighteen wait for them and go together.
    const results = await Promise.all(facts.map((f) => writer.insert(workspaceId, f, PLAIN)));
    expect(writer.batches).toBe(3);
    expect(results.map((r) => r.inserted)).toEqual(facts.map(() => true));
    expect(results.map((r) => r.id)).toEqual(facts.map((f) => f.id));

    expect(await count(sql`select count(*)::int as n from facts where workspace_id = ${workspaceId}`)).toBe(20);
    expect(await count(sql`select count(*)::int as n from detection_jobs where workspace_id = ${workspaceId}`)).toBe(20);
    const keys = facts.reduce((n, f) => n + f.matchKeys.length, 0);
    expect(await count(sql`select count(*)::int as n from fact_keys where workspace_id = ${workspaceId}`)).toBe(keys);
    const agents = await queryRows<{ agent_id: string; total_commits: number }>(
      suite.handle.db,
      sql`select agent_id, total_commits from agents where workspace_id = ${workspaceId} order by agent_id`,
    );
    expect(agents.map((a) => [a.agent_id, Number(a.total_commits)])).toEqual([
      ['agent-0', 7],
      ['agent-1', 7],
      ['agent-2', 6],
    ]);
  });

  it('stores one of two identical facts in a batch and says the other was not stored', async () => {
    const workspaceId = await workspace();
    const writer = new FactWriter(suite.handle.db);
    const first = newFact('Billing retries failed invoices 3 times', { scope: SCOPE });
    const same = newFact('Billing retries failed invoices 3 times', { scope: SCOPE, agentId: 'agent-b' });
    const other = newFact('Billing sends receipts by email', { scope: SCOPE });
    const [a, b, c, d] = await Promise.all([
      writer.insert(workspaceId, other, PLAIN),
      writer.insert(workspaceId, first, PLAIN),
      writer.insert(workspaceId, same, PLAIN),
      writer.insert(workspaceId, newFact('Billing exports ledgers nightly', { scope: SCOPE }), PLAIN),
    ]);
    // other and first alone, then same and the last together: same meets first's row.
    expect(writer.batches).toBe(3);
    expect([a.inserted, d.inserted]).toEqual([true, true]);
    expect([b.inserted, c.inserted].sort()).toEqual([false, true]);
    expect(await count(sql`select count(*)::int as n from facts where workspace_id = ${workspaceId} and content_hash = ${first.contentHash}`)).toBe(1);
  });

  it('commits the other facts of a batch that one fact makes fail, and rejects only that one', async () => {
    const workspaceId = await workspace();
    const writer = new FactWriter(suite.handle.db);
    const good = (k: number) => newFact(`Billing shard ${k} holds ${k * 100} accounts`, { scope: SCOPE });
    // A confidence outside 0..1 breaks the table's check: the whole statement fails.
    const bad: NewFact = { ...good(99), confidence: 2 };
    const settled = await Promise.allSettled([good(1), good(2), bad, good(3)].map((f) => writer.insert(workspaceId, f, PLAIN)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    // The first two alone, the other two together (failed), then each of those two alone.
    expect(writer.batches).toBe(5);
    expect(await count(sql`select count(*)::int as n from facts where workspace_id = ${workspaceId}`)).toBe(3);
    expect(await count(sql`select count(*)::int as n from detection_jobs where workspace_id = ${workspaceId}`)).toBe(3);
  });

  it('keeps workspaces apart: each batch is one workspace, confined to it', async () => {
    const [w1, w2] = [await workspace(), await workspace()];
    const writer = new FactWriter(suite.handle.db);
    const facts = Array.from({ length: 8 }, (_, k) => ({ workspaceId: k % 2 ? w2 : w1, fact: newFact(`Billing region ${k} bills in EUR ${k}`, { scope: SCOPE }) }));
    const results = await Promise.all(facts.map((f) => writer.insert(f.workspaceId, f.fact, PLAIN)));
    expect(results.every((r) => r.inserted)).toBe(true);
    for (const w of [w1, w2]) {
      const stored = await queryRows<{ id: string }>(suite.handle.db, sql`select id from facts where workspace_id = ${w} order by id`);
      expect(stored.map((r) => r.id)).toEqual(facts.filter((f) => f.workspaceId === w).map((f) => f.fact.id).sort());
    }
  });
});

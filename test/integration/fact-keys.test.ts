/**
 * A fact's match keys (the detector's lookup table) are written with the fact and go with it.
 * fact_keys has no foreign keys (checking two per key was a fifth of a commit's statement); a
 * trigger on facts deletes a fact's keys, also when a workspace's deletion cascades to its facts.
 */
import { provisionWorkspace } from '@engram/core';
import { forWorkspace, insertFact, queryRows } from '@engram/db';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { databaseSuite, testDatabases } from '../support/databases.ts';
import { newFact } from '../support/new-fact.ts';

const SCOPE = 'payments/worker';

describe.each(testDatabases())('match keys of a fact on $name', (engine) => {
  const suite = databaseSuite(engine);

  const keysOf = async (factId: string) =>
    (await queryRows<{ key: string }>(suite.handle.db, sql`select key from fact_keys where fact_id = ${factId} order by key`)).map((r) => r.key);

  async function stored(content: string) {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const fact = newFact(content, { scope: SCOPE });
    expect(fact.matchKeys.length).toBeGreaterThan(3);
    expect((await insertFact(forWorkspace(suite.handle.db, ws.workspaceId), fact, { closeLineageId: null, detectionReason: 'commit' })).inserted).toBe(true);
    return { workspaceId: ws.workspaceId, fact };
  }

  it('are written with the fact and deleted with it', async () => {
    const { fact } = await stored('The payments worker pool size is 12 threads in eu-west-1');
    const other = await stored('The payments worker pool size is 16 threads in us-east-1');
    expect(await keysOf(fact.id)).toEqual([...fact.matchKeys].sort());

    await suite.handle.db.execute(sql`delete from facts where id = ${fact.id}`);
    expect(await keysOf(fact.id)).toEqual([]);
    // Only that fact's keys: another fact's stay.
    expect(await keysOf(other.fact.id)).toEqual([...other.fact.matchKeys].sort());
  });

  it('are deleted when a deleted workspace takes its facts with it', async () => {
    const { workspaceId, fact } = await stored('Payments requests from the worker to ledger-api time out after 30 seconds');
    await suite.handle.db.execute(sql`delete from workspaces where id = ${workspaceId}`);
    expect(await keysOf(fact.id)).toEqual([]);
    expect(await queryRows(suite.handle.db, sql`select 1 from fact_keys where workspace_id = ${workspaceId}`)).toEqual([]);
  });
});

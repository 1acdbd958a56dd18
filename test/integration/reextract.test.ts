/** Facts stored by an older entity extractor are brought up to date in the background. */
import { readFile } from 'node:fs/promises';
import { authenticateToken, commitFact, CommitInput, EXTRACTOR_VERSION, LocalEmbedder, provisionWorkspace, reextractFacts, silentLogger } from '@engram/core';
import { facts, queryRows, textArrayLiteral } from '@engram/db';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { databaseSuite, isolatedTestDatabases } from '../support/databases.ts';

describe.each(isolatedTestDatabases())('entity re-extraction on $name', (engine) => {
  const suite = databaseSuite(engine);

  /** A new workspace's commit: each fact committed in it, by its id. */
  async function newWorkspace(): Promise<(content: string, scope?: string) => Promise<string>> {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const principal = await authenticateToken(suite.handle.db, ws.ownerToken);
    const services = { db: suite.handle.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log: silentLogger };
    return async (content, scope = 'auth') => (await commitFact(services, principal, CommitInput.parse({ content, scope, confidence: 1 }))).fact_id!;
  }
  const keysOf = async (id: string) => (await queryRows<{ key: string }>(suite.handle.db, sql`select key from fact_keys where fact_id = ${id}`)).map((r) => r.key).sort();

  it('re-extracts entities, match keys and signature of facts from an older extractor, and leaves current ones alone', async () => {
    const commit = await newWorkspace();
    const old = await commit('The auth service rate limit is 1000 req/s');
    const fresh = await commit('Auth sessions expire after 24 hours');
    const [before] = await suite.handle.db.select().from(facts).where(eq(facts.id, old));
    // As an extractor before version 2 left it.
    await suite.handle.db.execute(sql`update facts set extractor_version = 1, entities = '[]'::jsonb, match_keys = '{}', entity_signature = 'stale' where id = ${old}`);

    expect(await reextractFacts(suite.handle.db)).toBe(1);
    const [after] = await suite.handle.db.select().from(facts).where(eq(facts.id, old));
    expect(after).toMatchObject({
      extractorVersion: EXTRACTOR_VERSION,
      entities: before!.entities,
      matchKeys: before!.matchKeys,
      entitySignature: before!.entitySignature,
    });
    // Found again by its slot: the rate limit of the auth service.
    expect(after!.matchKeys).toContain('c:rate:limit@auth');
    // The key index holds the keys it has now: the ones it kept included (the detector finds it by them).
    expect(await keysOf(old)).toEqual([...before!.matchKeys].sort());
    expect(await reextractFacts(suite.handle.db)).toBe(0);
    const [untouched] = await suite.handle.db.select().from(facts).where(eq(facts.id, fresh));
    expect(untouched!.extractorVersion).toBe(EXTRACTOR_VERSION);
  });

  it('gets back the key rows an earlier re-extraction lost (migration 0016)', async () => {
    const id = await (await newWorkspace())('The search worker pool size is 8 threads', 'search');
    const indexed = await keysOf(id);
    expect(indexed.length).toBeGreaterThan(0);
    // As the old re-extraction left it: some of its keys gone from the index.
    await suite.handle.db.execute(sql`delete from fact_keys where fact_id = ${id} and key = any(${textArrayLiteral(indexed.slice(1))}::text[])`);
    expect(await keysOf(id)).toEqual(indexed.slice(0, 1));
    const repair = await readFile(new URL('../../drizzle/0016_repair-fact-keys.sql', import.meta.url), 'utf8');
    await suite.handle.db.execute(sql.raw(repair));
    expect(await keysOf(id)).toEqual(indexed);
  });
});

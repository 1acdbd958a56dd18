/**
 * The detector reads the facts sharing its triggers' keys a page at a time (FACTS_PER_READ): a
 * statement's whole result is parsed in one turn of the event loop, and a busy workspace's group
 * read 1-3 MB at once. Paged, it still reads every durable fact it should, once, and no erased or
 * ephemeral one.
 */
import { provisionWorkspace } from '@engram/core';
import { factsMatching, FACTS_PER_READ, forWorkspace, insertFacts, TenantDb, type NewFact } from '@engram/db';
import { sql, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { databaseSuite, testDatabases } from '../support/databases.ts';
import { newFact } from '../support/new-fact.ts';

const SCOPE = 'payments/worker';
const DURABLE = 2 * FACTS_PER_READ + 40;

/** A tenant handle that notes how many rows each of its reads returned. */
class CountingTenant extends TenantDb {
  readonly rowsPerRead: number[] = [];
  override async read<T extends Record<string, unknown>>(query: SQL): Promise<T[]> {
    const rows = await super.read<T>(query);
    this.rowsPerRead.push(rows.length);
    return rows;
  }
}

describe.each(testDatabases())('the detector\'s reads on $name', (engine) => {
  const suite = databaseSuite(engine);

  it('read a key\'s facts a page at a time, each durable one once', async () => {
    const { workspaceId } = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const tenant = forWorkspace(suite.handle.db, workspaceId);
    // Without embeddings: the vector index is not what this reads, and filling it is most of the time.
    const fact = (n: number, durability: 'durable' | 'ephemeral'): NewFact => ({
      ...newFact(`The payments worker pool size is ${n} threads`, { scope: SCOPE, durability }),
      embedding: null,
      embeddingModel: null,
    });
    const durable = Array.from({ length: DURABLE }, (_, i) => fact(i + 1, 'durable'));
    const ephemeral = Array.from({ length: 5 }, (_, i) => fact(DURABLE + i + 1, 'ephemeral'));
    const all: NewFact[] = [...durable, ...ephemeral];
    for (let start = 0; start < all.length; start += 100) {
      const batch = all.slice(start, start + 100).map((fact) => ({ fact, options: { closeLineageId: null, detectionReason: null } }));
      expect((await insertFacts(tenant, batch)).every((f) => f.inserted)).toBe(true);
    }
    const erased = durable[7]!;
    await suite.handle.db.execute(sql`update facts set erased_at = now() where id = ${erased.id}`);
    // A key every one of these facts has: the slot of the pool's size.
    const key = durable[0]!.matchKeys.find((k) => all.every((f) => f.matchKeys.includes(k)));
    expect(key).toBeDefined();

    const counting = new CountingTenant(suite.handle.db, workspaceId);
    const found = await factsMatching(counting, [key!], 10_000);
    const ids = found.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(durable.filter((f) => f !== erased).map((f) => f.id)));
    // The ids first, then the facts in pages of at most FACTS_PER_READ.
    const [idRows, ...pages] = counting.rowsPerRead;
    expect(idRows).toBe(all.length);
    expect(pages.length).toBe(Math.ceil(all.length / FACTS_PER_READ));
    expect(Math.max(...pages)).toBeLessThanOrEqual(FACTS_PER_READ);
  });
});

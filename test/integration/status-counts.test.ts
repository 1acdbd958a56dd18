/**
 * `engram_status` counts a workspace's current facts on every call: exactly for a workspace of
 * ordinary size, from a count at most half a minute old for a large one (counting reads every
 * current fact). On each engine.
 */
import { authenticateToken, commitFact, CommitInput, LocalEmbedder, provisionWorkspace, silentLogger, type FactServices, type MemberPrincipal } from '@engram/core';
import { countCurrentFacts, forWorkspace, type DbHandle } from '@engram/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

describe.each(testDatabases())('current fact counts on $name', (engine) => {
  let handle: DbHandle;
  let services: FactServices;
  beforeAll(async () => {
    handle = await engine.open();
    services = { db: handle.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log: silentLogger };
  });
  afterAll(async () => {
    await handle?.close();
  });

  const workspace = async (name: string) => {
    const ws = await provisionWorkspace(handle.db, TEST_SECRET, { name });
    return { id: ws.workspaceId, principal: await authenticateToken(handle.db, ws.ownerToken) };
  };
  const commit = (principal: MemberPrincipal, n: number) =>
    commitFact(services, principal, CommitInput.parse({ content: `Service ${n} listens on port ${8000 + n}`, scope: 'infra', confidence: 0.9 }));

  it('is exact on every call for an ordinary workspace', async () => {
    const { id, principal } = await workspace('small');
    const tenant = forWorkspace(handle.db, id);
    expect(await countCurrentFacts(tenant)).toBe(0);
    for (let n = 1; n <= 3; n++) {
      await commit(principal, n);
      expect(await countCurrentFacts(tenant)).toBe(n);
    }
  });

  it('remembers the count of a workspace at the exact-count limit instead of recounting it', async () => {
    const { id, principal } = await workspace('large');
    const tenant = forWorkspace(handle.db, id);
    for (let n = 1; n <= 3; n++) await commit(principal, n);
    expect(await countCurrentFacts(tenant, { exactUpTo: 3 })).toBe(3);
    await commit(principal, 4);
    // Remembered: the fourth fact shows in a later recount, not in this call.
    expect(await countCurrentFacts(tenant, { exactUpTo: 3 })).toBe(3);
    // Another workspace is counted on its own.
    const other = await workspace('other');
    await commit(other.principal, 1);
    expect(await countCurrentFacts(forWorkspace(handle.db, other.id), { exactUpTo: 3 })).toBe(1);
  });
});

/**
 * The guard that keeps a commit to one round trip: a plain add is stored at once unless a fact it
 * may corroborate is current. Only such a fact sends the commit to the reads that decide.
 */
import { provisionWorkspace } from '@engram/core';
import { forWorkspace, insertFact, type DbHandle, type NewFact } from '@engram/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { newFact as draftFact } from '../support/new-fact.ts';

const SCOPE = 'auth';
const RATE = 'The auth service rate limit is 1000 req/s per IP';

const newFact = (content: string, options: { agentId: string; embeddingOf?: string; durability?: 'durable' | 'ephemeral' }) =>
  draftFact(content, { scope: SCOPE, ...options });

describe.each(testDatabases())('the corroboration guard of a commit on $name', (engine) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await engine.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  async function workspaceWith(base: NewFact) {
    const ws = await provisionWorkspace(handle.db, TEST_SECRET, {});
    const tenant = forWorkspace(handle.db, ws.workspaceId);
    expect((await insertFact(tenant, base, { closeLineageId: null, detectionReason: null })).inserted).toBe(true);
    const guarded = async (fact: NewFact) =>
      (await insertFact(forWorkspace(handle.db, ws.workspaceId), fact, { closeLineageId: null, detectionReason: null, unlessCorroborating: { at: new Date(), maxDistance: 0.08 } })).inserted;
    return guarded;
  }

  it('holds only for another agent\'s durable, near-identical fact stating the same values', async () => {
    const guarded = await workspaceWith(newFact(RATE, { agentId: 'agent-a' }));
    // The same values in other words, embedded as the stored fact: one it may corroborate.
    const reworded = 'Auth service rate limit: 1000 req/s per IP';
    expect(newFact(reworded, { agentId: 'agent-b' }).entitySignature).toBe(newFact(RATE, { agentId: 'agent-a' }).entitySignature);
    expect(await guarded(newFact(reworded, { agentId: 'agent-b', embeddingOf: RATE }))).toBe(false);
    // The same agent never corroborates itself: stored at once.
    expect(await guarded(newFact(reworded, { agentId: 'agent-a', embeddingOf: RATE }))).toBe(true);
  });

  it('stores at once a fact with the same values that is not similar enough to corroborate', async () => {
    const guarded = await workspaceWith(newFact(RATE, { agentId: 'agent-a' }));
    const far = newFact('Auth service rate limit: 1000 req/s per IP', { agentId: 'agent-b', embeddingOf: 'Deploys of the billing worker go out every Tuesday' });
    expect(await guarded(far)).toBe(true);
  });

  it('stores at once a fact that states other values, or one beside an ephemeral fact', async () => {
    const guarded = await workspaceWith(newFact(RATE, { agentId: 'agent-a' }));
    expect(await guarded(newFact('The auth service rate limit is 2000 req/s per IP', { agentId: 'agent-b', embeddingOf: RATE }))).toBe(true);

    const scratch = await workspaceWith(newFact(RATE, { agentId: 'agent-a', durability: 'ephemeral' }));
    expect(await scratch(newFact('Auth service rate limit: 1000 req/s per IP', { agentId: 'agent-b', embeddingOf: RATE }))).toBe(true);
  });
});

/**
 * The guard that keeps a commit to one round trip: a plain add is stored at once unless a fact it
 * may corroborate is current. Only such a fact sends the commit to the reads that decide, and the
 * statement says which fact it was (and the identical current fact), so they need not find it again.
 */
import { cosine, embedLocally, provisionWorkspace } from '@engram/core';
import { CORROBORATION_GUARD_DISTANCE, forWorkspace, insertFact, type NewFact } from '@engram/db';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { databaseSuite, testDatabases } from '../support/databases.ts';
import { newFact as draftFact } from '../support/new-fact.ts';

const SCOPE = 'auth';
const RATE = 'The auth service rate limit is 1000 req/s per IP';

const newFact = (content: string, options: { agentId: string; embeddingOf?: string; durability?: 'durable' | 'ephemeral' }) =>
  draftFact(content, { scope: SCOPE, ...options });

describe.each(testDatabases())('the corroboration guard of a commit on $name', (engine) => {
  const suite = databaseSuite(engine);

  async function workspaceWith(base: NewFact) {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const tenant = forWorkspace(suite.handle.db, ws.workspaceId);
    expect((await insertFact(tenant, base, { closeLineageId: null, detectionReason: null })).inserted).toBe(true);
    return async (fact: NewFact) => (await insertGuarded(ws.workspaceId, fact)).inserted;
  }

  /** Inserts a fact as a plain add is inserted: guarded against a fact it may corroborate. */
  const insertGuarded = (workspaceId: string, fact: NewFact) =>
    insertFact(forWorkspace(suite.handle.db, workspaceId), fact, { closeLineageId: null, detectionReason: null, unlessCorroborating: { at: new Date(), maxDistance: CORROBORATION_GUARD_DISTANCE } });

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

  it('reports what kept a fact out, so the commit decides without reading it again', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const tenant = forWorkspace(suite.handle.db, ws.workspaceId);
    // Two facts another agent's commit may corroborate; the one embedded exactly as it is the nearest.
    const near = 'The auth service rate limit is 1000 req/s per IP address';
    const similarity = cosine(embedLocally(near), embedLocally(RATE));
    expect(similarity).toBeGreaterThan(0.92);
    expect(similarity).toBeLessThan(0.999);
    const other = newFact('Auth rate limit: 1000 req/s per IP', { agentId: 'agent-c', embeddingOf: near });
    const base = newFact(RATE, { agentId: 'agent-a' });
    for (const fact of [other, base]) expect((await insertFact(tenant, fact, { closeLineageId: null, detectionReason: null })).inserted).toBe(true);

    const held = await insertGuarded(ws.workspaceId, newFact('Auth service rate limit: 1000 req/s per IP', { agentId: 'agent-b', embeddingOf: RATE }));
    expect(held.inserted).toBe(false);
    expect(held.seen?.identical).toBeNull();
    expect(held.seen?.corroborable).toMatchObject({ id: base.id, lineage_id: base.id, agent_id: 'agent-a', durability: 'durable', provenance: null, expires_at: null });
    expect(held.seen?.corroborable?.similarity).toBeGreaterThan(0.999);
    expect(held.seen?.corroborable?.committed_at).toEqual(expect.any(Date));
    expect(held.seen?.corroborable?.entities).toEqual(base.entities);

    // The same content again from its own agent: the guard holds on the other agent's fact (its
    // own never counts), and the statement names the identical fact too, which decides (a duplicate).
    const again = await insertGuarded(ws.workspaceId, newFact(RATE, { agentId: 'agent-a' }));
    expect(again.inserted).toBe(false);
    expect(again.seen?.corroborable?.id).toBe(other.id);
    expect(again.seen?.identical).toMatchObject({ id: base.id, lineage_id: base.id, durability: 'durable' });
    expect(again.seen?.identical?.committed_at.getTime()).toBe(base.committedAt.getTime());

    // The same content from a third agent: the identical fact is also the nearest.
    const both = await insertGuarded(ws.workspaceId, newFact(RATE, { agentId: 'agent-b' }));
    expect(both.seen?.identical?.id).toBe(base.id);
    expect(both.seen?.corroborable?.id).toBe(base.id);

    // Unguarded (as an ephemeral fact or an update is inserted): only the unique key can hold.
    const scratch = await insertFact(tenant, newFact(RATE, { agentId: 'agent-b' }), { closeLineageId: null, detectionReason: null });
    expect(scratch.inserted).toBe(false);
    expect(scratch.seen).toEqual({ identical: expect.objectContaining({ id: base.id }), corroborable: null });

    // Stored: nothing to report.
    const stored = await insertGuarded(ws.workspaceId, newFact('The auth service rate limit is 3000 req/s per IP', { agentId: 'agent-b', embeddingOf: RATE }));
    expect(stored.inserted).toBe(true);
    expect(stored.seen).toBeUndefined();
  });
});

/**
 * The corroboration rule is written twice, in the commit statement's guard (SQL) and in
 * corroborationTarget (TypeScript), both from CORROBORATION. Here both meet the same table of
 * earlier facts, with the real commit beside them: the reads and corroborationTarget (the path a
 * commit takes when the guard held), the guard alone (insertFact as a plain add is inserted), and
 * commitFact. Each condition of the rule has a row where it alone keeps the fact from corroborating.
 */
import {
  authenticateToken,
  commitFact,
  CommitInput,
  corroborationTarget,
  embedLocally,
  entitySignature,
  LocalEmbedder,
  LOCAL_EMBEDDING_MODEL,
  provisionWorkspace,
  readFact,
  silentLogger,
} from '@engram/core';
import { closeLineage, CORROBORATION_GUARD_DISTANCE, forWorkspace, insertFact, nearestCurrentInScope, type NewFact } from '@engram/db';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { databaseSuite, testDatabases } from '../support/databases.ts';
import { newFact } from '../support/new-fact.ts';

const SCOPE = 'auth';
/** What agent-b commits. */
const SAID = 'Auth service rate limit: 1000 req/s per IP';
/** The earlier fact: the same values in other words. */
const EARLIER = 'The auth service rate limit is 1000 req/s per IP';

/** How the earlier fact differs from another agent's durable, current fact of the same values, at cosine 0.95 to what is said. */
interface Earlier {
  content?: string;
  agentId?: string;
  durability?: 'durable' | 'ephemeral';
  scope?: string;
  similarity?: number;
  /** Expiry, from the commit's instant. */
  expiresInMs?: number;
  closed?: boolean;
  model?: string;
}

const ROWS: [string, Earlier, boolean][] = [
  ['another agent\'s durable fact of the same values, near enough', {}, true],
  ['one just above the threshold', { similarity: 0.925 }, true],
  ['one just below it', { similarity: 0.915 }, false],
  ['one of the same agent', { agentId: 'agent-b' }, false],
  ['an ephemeral fact', { durability: 'ephemeral' }, false],
  ['a fact stating another value', { content: 'The auth service rate limit is 2000 req/s per IP' }, false],
  ['a fact expiring later', { expiresInMs: 3_600_000 }, true],
  ['an expired fact', { expiresInMs: -1_000 }, false],
  ['a fact of another scope', { scope: 'billing' }, false],
  ['a fact whose window is closed', { closed: true }, false],
  ['a fact embedded by another model', { model: 'another-model' }, false],
];

/** A unit vector at exactly `similarity` (cosine) to the unit vector `to`. */
function atCosine(to: readonly number[], similarity: number): number[] {
  const other = embedLocally('Deploys of the billing worker go out every Tuesday');
  const along = other.reduce((sum, x, i) => sum + x * to[i]!, 0);
  const across = other.map((x, i) => x - along * to[i]!);
  const norm = Math.hypot(...across);
  const side = Math.sqrt(1 - similarity * similarity);
  return to.map((x, i) => similarity * x + (side * across[i]!) / norm);
}

describe.each(testDatabases())('the corroboration rule in SQL and in TypeScript on $name', (engine) => {
  const suite = databaseSuite(engine);
  const services = () => ({ db: suite.handle.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log: silentLogger });

  /** A workspace holding the row's earlier fact. */
  async function workspaceWith(earlier: Earlier, now: Date) {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const tenant = forWorkspace(suite.handle.db, ws.workspaceId);
    const fact: NewFact = {
      ...newFact(earlier.content ?? EARLIER, { scope: earlier.scope ?? SCOPE, agentId: earlier.agentId ?? 'agent-a', durability: earlier.durability }),
      embedding: atCosine(embedLocally(SAID), earlier.similarity ?? 0.95),
      embeddingModel: earlier.model ?? LOCAL_EMBEDDING_MODEL,
      committedAt: new Date(now.getTime() - 60_000),
      expiresAt: earlier.expiresInMs === undefined ? null : new Date(now.getTime() + earlier.expiresInMs),
    };
    expect((await insertFact(tenant, fact, { closeLineageId: null, detectionReason: null })).inserted).toBe(true);
    if (earlier.closed) await closeLineage(tenant, fact.lineageId, now);
    return { ws, tenant, fact };
  }

  it.each(ROWS.map(([name, earlier, corroborates]) => ({ name, earlier, corroborates })))('$name (corroborates: $corroborates)', async ({ earlier, corroborates }) => {
    const now = new Date();
    const draft = { agentId: 'agent-b', entities: readFact(SAID), committedAt: now };

    // TypeScript: the reads of a commit whose guard held, and the rule.
    const first = await workspaceWith(earlier, now);
    const neighbours = await nearestCurrentInScope(first.tenant, {
      scope: SCOPE,
      embedding: embedLocally(SAID),
      model: LOCAL_EMBEDDING_MODEL,
      limit: 5,
      at: now,
      entitySignature: entitySignature(draft.entities),
    });
    expect(corroborationTarget(neighbours, draft)?.id).toBe(corroborates ? first.fact.id : undefined);

    // SQL: the guard of the statement that stores a plain add.
    const guarded = await insertFact(first.tenant, { ...newFact(SAID, { scope: SCOPE, agentId: 'agent-b' }), committedAt: now }, {
      closeLineageId: null,
      detectionReason: null,
      unlessCorroborating: { at: now, maxDistance: CORROBORATION_GUARD_DISTANCE },
    });
    expect(guarded.inserted).toBe(!corroborates);
    expect(guarded.seen?.corroborable?.id).toBe(corroborates ? first.fact.id : undefined);

    // The real commit, in a workspace of its own.
    const second = await workspaceWith(earlier, now);
    const principal = await authenticateToken(suite.handle.db, second.ws.ownerToken);
    const result = await commitFact(services(), principal, CommitInput.parse({ content: SAID, scope: SCOPE, confidence: 0.9, agent_id: 'agent-b' }), now);
    expect(result.corroborated).toBe(corroborates);
    if (corroborates) expect(result.fact_id).toBe(second.fact.id);
    else expect(result).toMatchObject({ duplicate: false, memory_op: 'add' });
  });
});

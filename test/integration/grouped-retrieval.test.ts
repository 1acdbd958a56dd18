/**
 * Grouped retrieval (packages/db/src/candidate-reader.ts): topics asked together are answered by one
 * statement, and each gets exactly the candidates its own statement would have found, in the same
 * order, on the exact search of a small workspace and on the HNSW index of a large one.
 */
import { embedLocally, LOCAL_EMBEDDING_MODEL, provisionWorkspace } from '@engram/core';
import {
  CandidateReader,
  forWorkspace,
  hybridCandidates,
  hybridCandidatesOf,
  insertConflicts,
  insertFacts,
  type Candidate,
  type RetrievalFilters,
} from '@engram/db';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { databaseSuite, testDatabases } from '../support/databases.ts';
import { newFact } from '../support/new-fact.ts';
import { seedOpenConflicts } from '../support/open-conflicts.ts';
import { readingRows } from '../support/rows-read.ts';

const SUBJECTS = ['auth', 'payments', 'search', 'billing', 'orders', 'gateway'];
const SENTENCES = [
  (s: string, n: number) => `The ${s} service rate limit is ${100 + n} requests per second`,
  (s: string, n: number) => `${s} requests time out after ${1 + (n % 60)} seconds`,
  (s: string, n: number) => `The ${s} worker pool has ${2 + (n % 30)} threads`,
  (s: string, n: number) => `${s} caches sessions in Redis for ${60 + n} seconds`,
];
const TOPICS = ['auth rate limit', 'how long until payments requests time out', 'worker pool threads', 'redis session cache'];
const FILTERS: RetrievalFilters = { model: LOCAL_EMBEDDING_MODEL, includeEphemeral: false, window: { kind: 'current' }, depth: 30 };

/** A candidate's identity and rank, to compare two retrievals. */
const ranked = (candidates: Candidate[]) => candidates.map((c) => [c.id, c.rrf.toFixed(9), c.vector_rank, c.text_rank]);

describe.each(testDatabases())('grouped retrieval on $name', (engine) => {
  const suite = databaseSuite(engine);

  async function workspaceWith(count: number): Promise<string> {
    const { workspaceId } = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const facts = Array.from({ length: count }, (_, n) => {
      const subject = SUBJECTS[n % SUBJECTS.length]!;
      return newFact(`${SENTENCES[Math.floor(n / SUBJECTS.length) % SENTENCES.length]!(subject, n)} (${n})`, { scope: `${subject}/api` });
    });
    for (let from = 0; from < facts.length; from += 250) {
      const batch = facts.slice(from, from + 250).map((fact) => ({ fact, options: { closeLineageId: null, detectionReason: null } }));
      await insertFacts(forWorkspace(suite.handle.db, workspaceId), batch);
    }
    return workspaceId;
  }

  // Below 1,500 facts a workspace's vector search is exact; from 1,500 on it goes through HNSW.
  it.each([
    ['a small workspace (exact vector search)', 60],
    ['a large workspace (HNSW)', 1_600],
  ])('answers several topics in one statement exactly as one statement each, in %s', { timeout: 120_000 }, async (_, size) => {
    const workspaceId = await workspaceWith(size);
    const tenant = forWorkspace(suite.handle.db, workspaceId);
    const topics = TOPICS.map((topic) => ({ topic, embedding: embedLocally(topic) }));
    // A topic whose embedding failed is still searched by its words.
    topics.push({ topic: 'billing rate limit', embedding: null as unknown as number[] });

    const together = await hybridCandidatesOf(tenant, FILTERS, topics);
    expect(together).toHaveLength(topics.length);
    for (const [k, t] of topics.entries()) {
      const alone = await hybridCandidates(tenant, { ...FILTERS, topic: t.topic, embedding: t.embedding });
      expect(alone.length).toBeGreaterThan(0);
      expect(ranked(together[k]!)).toEqual(ranked(alone));
    }
    expect(together[topics.length - 1]!.every((c) => c.vector_rank === null)).toBe(true);
  });

  it('groups the queries of a workspace that arrive while one is answered, and keeps other filters apart', async () => {
    const workspaceId = await workspaceWith(40);
    const reader = new CandidateReader(suite.handle.db);
    const asked = TOPICS.map((topic) => ({ topic, embedding: embedLocally(topic) }));
    const scoped: RetrievalFilters = { ...FILTERS, scope: 'auth' };
    const [first, ...rest] = await Promise.all([
      ...asked.map((t) => reader.read(workspaceId, FILTERS, t)),
      reader.read(workspaceId, scoped, asked[0]!),
    ]);
    // Two statements of a group may be in flight: the first two topics go alone, the other two
    // together once one of those is answered; the scoped query is a statement of its own.
    expect(reader.batches).toBe(4);
    const tenant = forWorkspace(suite.handle.db, workspaceId);
    const answers = [first, ...rest];
    for (const [k, t] of asked.entries()) {
      expect(ranked(answers[k]!)).toEqual(ranked(await hybridCandidates(tenant, { ...FILTERS, ...t })));
    }
    const scopedAnswer = answers[asked.length]!;
    expect(scopedAnswer.length).toBeGreaterThan(0);
    expect(scopedAnswer.every((c) => c.scope.startsWith('auth'))).toBe(true);
  });

  it('finds which candidates are in open conflicts by looking the candidates up, whatever else is in conflict', async () => {
    const workspaceId = await workspaceWith(60);
    const tenant = forWorkspace(suite.handle.db, workspaceId);
    const topics = TOPICS.map((topic) => ({ topic, embedding: embedLocally(topic) }));
    const [found] = await hybridCandidatesOf(tenant, FILTERS, topics.slice(0, 1));
    const [first, second] = found!;
    // A thousand open conflicts elsewhere in the workspace (facts no topic here finds), and one
    // between two facts the first topic finds.
    await seedOpenConflicts(suite.handle.db, workspaceId, 1_000);
    const conflict = (factIds: string[]) => ({ kind: 'value_mismatch' as const, detectedBy: 'tier2_numeric' as const, severity: 'high' as const, question: 'Which?', explanation: null, factIds });
    await tenant.transaction((tx) => insertConflicts(tx, [conflict([first!.id, second!.id])]));
    const retrieve = (grouped: boolean) =>
      readingRows(tenant, 'conflict_facts', async (tx) => (await hybridCandidatesOf(tx, FILTERS, grouped ? topics : topics.slice(0, 1))).flat());
    for (const grouped of [false, true]) {
      const { result: candidates, read } = await retrieve(grouped);
      const flagged = new Set(candidates.filter((c) => c.has_open_conflict).map((c) => c.id));
      expect([...flagged].sort()).toEqual([first!.id, second!.id].sort());
      // The two links of the candidates' own conflict, not the workspace's two thousand others.
      expect(read).toBeLessThanOrEqual(2 * topics.length);
    }
  });
});

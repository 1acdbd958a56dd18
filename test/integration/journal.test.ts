/** The facts journal over REST (import, since) and the maintenance around facts, on each engine. */
import {
  authenticateToken,
  commitFact,
  CommitInput,
  issueToken,
  LocalEmbedder,
  provisionWorkspace,
  readJournal,
  reembedFacts,
  silentLogger,
} from '@engram/core';
import { detectionJobs, facts, forWorkspace, members, type DbHandle } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import { eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET, testApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

describe.each(testDatabases())('facts journal on $name', (engine) => {
  let handle: DbHandle;
  let app: FastifyInstance;
  beforeAll(async () => {
    handle = await engine.open();
    app = await testApp(handle);
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
  });

  async function workspace() {
    const created = await provisionWorkspace(handle.db, TEST_SECRET, {});
    const headers = { host: HOST, authorization: `Bearer ${created.ownerToken}` };
    const importFacts = (payload: unknown) =>
      app.inject({ method: 'POST', url: '/api/v1/facts/import', headers, payload: payload as Record<string, unknown> });
    const since = (query = '') => app.inject({ method: 'GET', url: `/api/v1/facts/since${query}`, headers });
    return { ...created, headers, importFacts, since, tenant: forWorkspace(handle.db, created.workspaceId) };
  }

  const story = () => [
    { content: 'We use REST for the public API', scope: 'api', agent_id: 'agent-1', committed_at: hoursAgo(720) },
    { content: 'The public API is REST-based', scope: 'api', agent_id: 'agent-3', committed_at: hoursAgo(48) },
    { content: 'We switched the public API to GraphQL', scope: 'api', agent_id: 'agent-2', committed_at: hoursAgo(480), fact_type: 'decision', confidence: 0.8, provenance: 'ADR-7' },
  ];

  it('imports facts with their original time and agent, answering in input order', async () => {
    const ws = await workspace();
    const input = story();
    const res = await ws.importFacts({ facts: input });
    expect(res.statusCode).toBe(200);
    const result = res.json().facts as { id: string; duplicate: boolean }[];
    expect(result.map((r) => r.duplicate)).toEqual([false, false, false]);
    for (const [i, fact] of input.entries()) {
      const [row] = await ws.tenant.select(facts, eq(facts.id, result[i]!.id));
      expect(row).toMatchObject({ content: fact.content, agentId: fact.agent_id, scope: 'api', source: 'import' });
      expect(row?.committedAt.toISOString()).toBe(fact.committed_at);
      expect(row?.validFrom.toISOString()).toBe(fact.committed_at);
    }
    const [decision] = await ws.tenant.select(facts, eq(facts.id, result[2]!.id));
    expect(decision).toMatchObject({ factType: 'decision', confidence: 0.8, provenance: 'ADR-7' });
    const jobs = await ws.tenant.select(detectionJobs);
    expect(jobs.map((j) => j.reason)).toEqual(['import', 'import', 'import']);
    expect(new Set(jobs.map((j) => j.triggerFactId))).toEqual(new Set(result.map((r) => r.id)));
  });

  it('is idempotent: importing again returns the same ids as duplicates', async () => {
    const ws = await workspace();
    const input = story();
    const first = (await ws.importFacts({ facts: input })).json().facts as { id: string }[];
    const again = (await ws.importFacts({ facts: input })).json().facts as { id: string; duplicate: boolean }[];
    expect(again).toEqual(first.map((f) => ({ id: f.id, duplicate: true })));
    expect(await ws.tenant.select(facts)).toHaveLength(3);
  });

  it('runs the commit pipeline: a repeat of a current fact is a duplicate', async () => {
    const ws = await workspace();
    const res = await ws.importFacts({
      facts: [
        { content: 'Redis runs on port 6379', scope: 'infra', agent_id: 'a', committed_at: hoursAgo(10) },
        { content: 'redis runs on port 6379.', scope: 'infra', agent_id: 'b', committed_at: hoursAgo(5) },
      ],
    });
    const [a, b] = res.json().facts as { id: string; duplicate: boolean }[];
    expect(b).toEqual({ id: a!.id, duplicate: true });
  });

  it('rejects the whole batch when one fact carries a secret, naming it', async () => {
    const ws = await workspace();
    const input = story();
    input[1]!.content = `Deploys use AKIA${'QWERTYUIOPASDFGH'}`;
    const res = await ws.importFacts({ facts: input });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.problems).toEqual([
      { field: 'facts.1.content', message: expect.stringMatching(/AWS access key id \(pattern: aws_access_key_id\)/) },
    ]);
    expect(res.body).not.toContain('QWERTYUIOPASDFGH');
    expect(await ws.tenant.select(facts)).toHaveLength(0);
  });

  it('names invalid fields, future timestamps and oversized batches', async () => {
    const ws = await workspace();
    const missing = await ws.importFacts({ facts: [{ content: 'x', scope: 'a', committed_at: hoursAgo(1) }] });
    expect(missing.statusCode).toBe(400);
    const problems = missing.json<{ error: { details: { problems: { field: string }[] } } }>().error.details.problems;
    expect(problems.map((p) => p.field)).toContain('facts.0.agent_id');
    const future = await ws.importFacts({
      facts: [{ content: 'x', scope: 'a', agent_id: 'a', committed_at: new Date(Date.now() + 3_600_000).toISOString() }],
    });
    expect(future.json().error.details.problems).toEqual([{ field: 'facts.0.committed_at', message: 'is in the future' }]);
    const many = Array.from({ length: 1001 }, (_, i) => ({ content: `fact ${i}`, scope: 'a', agent_id: 'a', committed_at: hoursAgo(1) }));
    const tooMany = await ws.importFacts({ facts: many });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.message).toMatch(/at most 1000 facts/);
  });

  it('refuses readers and callers without a token', async () => {
    const ws = await workspace();
    const [reader] = await ws.tenant.insert(members, { role: 'reader' }).returning();
    const { token } = await issueToken(ws.tenant, reader!.id);
    const asReader = await app.inject({
      method: 'POST',
      url: '/api/v1/facts/import',
      headers: { host: HOST, authorization: `Bearer ${token}` },
      payload: { facts: story() },
    });
    expect(asReader.statusCode).toBe(403);
    const anonymous = await app.inject({ method: 'GET', url: '/api/v1/facts/since', headers: { host: HOST } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('streams every version after a watermark as NDJSON, oldest first', async () => {
    const ws = await workspace();
    const ids = ((await ws.importFacts({ facts: story() })).json().facts as { id: string }[]).map((f) => f.id);
    const principal = await authenticateToken(handle.db, ws.ownerToken);
    const services = { db: handle.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log: silentLogger };
    const correction = await commitFact(
      services,
      principal,
      CommitInput.parse({ content: 'The public API is GraphQL only', scope: 'api/public', confidence: 1, corrects_lineage: ids[1] }),
    );

    const res = await ws.since();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = res.body.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.id)).toEqual([ids[0], ids[2], ids[1], correction.fact_id]);
    expect(Object.keys(lines[0]!)).toEqual(
      expect.arrayContaining(['id', 'lineage_id', 'content', 'scope', 'agent_id', 'committed_at', 'valid_from', 'valid_until', 'memory_op']),
    );
    expect(lines[2]).toMatchObject({ id: ids[1], valid_until: expect.any(String) });
    expect(lines[3]).toMatchObject({ lineage_id: ids[1], memory_op: 'update', valid_until: null });

    const after = await ws.since(`?after=${encodeURIComponent(String(lines[1]!.committed_at))}`);
    expect(after.body.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([ids[1], correction.fact_id]);
    const scoped = await ws.since('?scope=api/public');
    expect(scoped.body.trim().split('\n')).toHaveLength(1);
    const bad = await ws.since('?after=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/after: must be an ISO 8601 timestamp/);

    // Paging keeps every row exactly once, even with a page smaller than the journal.
    const paged: string[] = [];
    for await (const entry of readJournal(handle.db, principal, { pageSize: 2 })) paged.push(entry.id);
    expect(paged).toEqual(lines.map((l) => l.id));
  });

  it('never exports another workspace', async () => {
    const a = await workspace();
    const b = await workspace();
    await b.importFacts({ facts: story() });
    const res = await a.since();
    expect(res.body).toBe('');
  });

  it('re-embeds facts stored without a vector', async () => {
    const ws = await workspace();
    await ws.importFacts({ facts: story() });
    await ws.tenant.update(facts, { embedding: null, embeddingModel: null });
    expect(await ws.tenant.select(facts, isNull(facts.embedding))).toHaveLength(3);
    const done = await reembedFacts(handle.db, new LocalEmbedder(), { batchSize: 2 });
    expect(done).toBeGreaterThanOrEqual(3);
    expect(await ws.tenant.select(facts, isNull(facts.embedding))).toHaveLength(0);
  });
});

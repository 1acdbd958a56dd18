/** The facts journal over REST (import, since) and the maintenance around facts, on each engine. */
import {
  authenticateToken,
  commitFact,
  CommitInput,
  ImportInput,
  importFacts,
  issueToken,
  type ImportOutput,
  LocalEmbedder,
  MAX_IMPORT_BYTES,
  provisionWorkspace,
  readJournal,
  reembedFacts,
  silentLogger,
} from '@engram/core';
import { detectionJobs, facts, forWorkspace, members } from '@engram/db';
import { eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appSuite, TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';
// Split so that no scanner of this repository takes the test for a leak.
const SECRET_VALUE = `${'k3v9Qz7LmP2x'}${'R8tW4yB6nD1fH5jS0aZc'}`;
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

describe.each(testDatabases())('facts journal on $name', (engine) => {
  const suite = appSuite(engine);

  async function workspace() {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const headers = { host: HOST, authorization: `Bearer ${created.ownerToken}` };
    const post = (payload: unknown) =>
      suite.app.inject({ method: 'POST', url: '/api/v1/facts/import', headers, payload: payload as Record<string, unknown> });
    const since = (query = '') => suite.app.inject({ method: 'GET', url: `/api/v1/facts/since${query}`, headers });
    return { ...created, headers, importFacts: post, since, tenant: forWorkspace(suite.handle.db, created.workspaceId) };
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
    expect(res.json()).toMatchObject({ stored: 3, duplicates: 0, refused: 0 });
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
    const first = (await ws.importFacts({ facts: input })).json<ImportOutput>();
    expect(first).toMatchObject({ stored: 3, duplicates: 0, refused: 0 });
    const again = (await ws.importFacts({ facts: input })).json<ImportOutput>();
    expect(again).toEqual({ stored: 0, duplicates: 3, refused: 0, facts: first.facts.map((f) => ({ ...f, duplicate: true })) });
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

  it('replays a request in the order it happened: a later near-duplicate of another agent corroborates the earlier one', async () => {
    const ws = await workspace();
    // Listed latest first, and in one request: the earlier fact is stored, the later one answers with its id.
    const res = await ws.importFacts({
      facts: [
        { content: 'Billing service retries failed webhooks 5 times', scope: 'billing', agent_id: 'agent-2', committed_at: hoursAgo(10) },
        { content: 'The billing service retries failed webhooks 5 times', scope: 'billing', agent_id: 'agent-1', committed_at: hoursAgo(20) },
        { content: 'Billing webhooks time out after 30 s', scope: 'billing', agent_id: 'agent-3', committed_at: hoursAgo(20) },
      ],
    });
    const [later, earlier, other] = res.json<ImportOutput>().facts as { id: string; duplicate: boolean }[];
    expect(earlier?.duplicate).toBe(false);
    expect(later).toEqual({ id: earlier!.id, duplicate: true });
    expect(other?.duplicate).toBe(false);
    expect(await ws.tenant.select(facts)).toHaveLength(2);

    // A near-duplicate committed before the stored fact does not corroborate it: it is stored too.
    const before = await ws.importFacts({
      facts: [{ content: 'The billing service retries the failed webhooks 5 times', scope: 'billing', agent_id: 'agent-4', committed_at: hoursAgo(30) }],
    });
    expect(before.json<ImportOutput>()).toMatchObject({ stored: 1, duplicates: 0 });
    expect(await ws.tenant.select(facts)).toHaveLength(3);
  });

  /** 100 facts, the one at `index` with a secret pasted into it. */
  const hundredWithSecret = (index: number) =>
    Array.from({ length: 100 }, (_, i) => ({
      content:
        i === index
          ? `Django settings hard-code SECRET_KEY = '${SECRET_VALUE}' in settings.py`
          : `Service number ${i} listens on port ${10_000 + i} in the staging cluster.`,
      scope: `services/s${i % 7}`,
      agent_id: `agent-${i % 3}`,
      committed_at: hoursAgo(200 - i),
    }));

  it('stores the other 99 of 100 facts when one carries a secret, naming its index and never the secret', async () => {
    const ws = await workspace();
    const res = await ws.importFacts({ facts: hundredWithSecret(37) });
    expect(res.statusCode).toBe(200);
    const body = res.json<ImportOutput>();
    expect(body).toMatchObject({ stored: 99, duplicates: 0, refused: 1 });
    expect(body.facts).toHaveLength(100);
    expect(body.facts[37]).toEqual({
      index: 37,
      refused: true,
      problems: [{ field: 'facts.37.content', message: expect.stringMatching(/^appears to contain a secret assigned to a variable \(pattern: secret_assignment\); remove it$/) }],
    });
    expect(body.facts.filter((f) => 'id' in f && !f.duplicate)).toHaveLength(99);
    expect(res.body).not.toContain(SECRET_VALUE);
    const rows = await ws.tenant.select(facts);
    expect(rows).toHaveLength(99);
    expect(rows.some((r) => r.content.includes('SECRET_KEY'))).toBe(false);
    expect(await ws.tenant.select(detectionJobs)).toHaveLength(99);

    // Importing the file again (say, after fixing nothing) stores nothing twice.
    const again = (await ws.importFacts({ facts: hundredWithSecret(37) })).json<ImportOutput>();
    expect(again).toMatchObject({ stored: 0, duplicates: 99, refused: 1 });
    expect(again.facts.map((f) => ('id' in f ? f.id : null))).toEqual(body.facts.map((f) => ('id' in f ? f.id : null)));
    expect(await ws.tenant.select(facts)).toHaveLength(99);
  });

  it('keeps the secret out of the log too', async () => {
    const ws = await workspace();
    const principal = await authenticateToken(suite.handle.db, ws.ownerToken);
    const lines: string[] = [];
    const log = { info: (obj: object, msg?: string) => lines.push(JSON.stringify([obj, msg])), warn: () => {}, error: () => {} };
    const out = await importFacts(
      { db: suite.handle.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log },
      principal,
      ImportInput.parse({ facts: hundredWithSecret(5).slice(0, 10) }),
    );
    expect(out).toMatchObject({ stored: 9, refused: 1 });
    expect(lines.join('\n')).toContain('facts.5.content');
    expect(lines.join('\n')).not.toContain(SECRET_VALUE);
  });

  it('embeds a large import in calls of a bounded size, and after a failed call stores the rest without vectors', async () => {
    const ws = await workspace();
    const principal = await authenticateToken(suite.handle.db, ws.ownerToken);
    const local = new LocalEmbedder();
    const calls: number[] = [];
    let failing = false;
    const embedder = {
      model: local.model,
      embed: async (texts: string[]) => {
        calls.push(texts.length);
        if (failing) throw new Error('embedding service unavailable');
        return local.embed(texts);
      },
    };
    const services = { db: suite.handle.db, embedder, secret: TEST_SECRET, log: silentLogger };
    const batch = (offset: number) =>
      ImportInput.parse({
        facts: Array.from({ length: 150 }, (_, i) => ({
          content: `Service number ${offset + i} listens on port ${10_000 + offset + i}.`,
          scope: 'services',
          agent_id: 'agent-1',
          committed_at: hoursAgo(400 - i),
        })),
      });
    expect(await importFacts(services, principal, batch(0))).toMatchObject({ stored: 150 });
    expect(calls).toEqual([64, 64, 22]);
    expect(await ws.tenant.select(facts, isNull(facts.embedding))).toHaveLength(0);

    calls.length = 0;
    failing = true;
    expect(await importFacts(services, principal, batch(1000))).toMatchObject({ stored: 150 });
    expect(calls).toEqual([64]);
    expect(await ws.tenant.select(facts, isNull(facts.embedding))).toHaveLength(150);
  });

  it('with atomic, one refused fact rejects the whole request, naming it, and stores nothing', async () => {
    const ws = await workspace();
    const res = await ws.importFacts({ facts: hundredWithSecret(37), atomic: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.problems).toEqual([
      { field: 'facts.37.content', message: expect.stringMatching(/a secret assigned to a variable \(pattern: secret_assignment\)/) },
    ]);
    expect(res.body).not.toContain(SECRET_VALUE);
    expect(await ws.tenant.select(facts)).toHaveLength(0);
    expect(await ws.tenant.select(detectionJobs)).toHaveLength(0);

    const clean = await ws.importFacts({ facts: story(), atomic: true });
    expect(clean.json<ImportOutput>()).toMatchObject({ stored: 3, refused: 0 });
  });

  it('refuses a fact whose values break a rule, and stores the others', async () => {
    const ws = await workspace();
    const fine = { content: 'Redis runs on port 6379', scope: 'infra', agent_id: 'a', committed_at: hoursAgo(1) };
    const res = await ws.importFacts({
      facts: [
        { ...fine, committed_at: new Date(Date.now() + 3_600_000).toISOString() },
        { ...fine, content: 'x'.repeat(4001) },
        { ...fine, scope: 'Not A Scope!' },
        { ...fine, committed_at: 'yesterday' },
        fine,
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<ImportOutput>();
    expect(body).toMatchObject({ stored: 1, duplicates: 0, refused: 4 });
    const problems = body.facts.map((f) => ('problems' in f ? f.problems.map((p) => p.field) : []));
    expect(problems).toEqual([['facts.0.committed_at'], ['facts.1.content'], ['facts.2.scope'], ['facts.3.committed_at'], []]);
    expect(body.facts[0]).toMatchObject({ problems: [{ message: 'is in the future' }] });
    expect(body.facts[1]).toMatchObject({ problems: [{ message: expect.stringMatching(/at most 4000 characters/) }] });
  });

  it('rejects a request of the wrong shape whole: a fact without its fields, not an array, too many facts', async () => {
    const ws = await workspace();
    const fine = { content: 'Redis runs on port 6379', scope: 'infra', agent_id: 'a', committed_at: hoursAgo(1) };
    const missing = await ws.importFacts({ facts: [fine, { content: 'x', scope: 'a', committed_at: hoursAgo(1) }] });
    expect(missing.statusCode).toBe(400);
    const problems = missing.json<{ error: { details: { problems: { field: string }[] } } }>().error.details.problems;
    expect(problems.map((p) => p.field)).toEqual(['facts.1.agent_id']);
    const notArray = await ws.importFacts({ facts: fine });
    expect(notArray.statusCode).toBe(400);
    expect(notArray.json().error.message).toMatch(/facts: must be an array of facts/);
    const many = Array.from({ length: 1001 }, (_, i) => ({ ...fine, content: `fact ${i}` }));
    const tooMany = await ws.importFacts({ facts: many });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.message).toMatch(/at most 1000 facts per request; split the import/);
    const tooLarge = await ws.importFacts({ facts: [{ ...fine, content: 'x'.repeat(MAX_IMPORT_BYTES) }] });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json().error.message).toBe(`The request body is larger than the ${MAX_IMPORT_BYTES} bytes this route accepts; split it into smaller requests.`);
    expect(await ws.tenant.select(facts)).toHaveLength(0);
  });

  it('refuses readers and callers without a token', async () => {
    const ws = await workspace();
    const [reader] = await ws.tenant.insert(members, { role: 'reader' }).returning();
    const { token } = await issueToken(ws.tenant, reader!.id);
    const asReader = await suite.app.inject({
      method: 'POST',
      url: '/api/v1/facts/import',
      headers: { host: HOST, authorization: `Bearer ${token}` },
      payload: { facts: story() },
    });
    expect(asReader.statusCode).toBe(403);
    const anonymous = await suite.app.inject({ method: 'GET', url: '/api/v1/facts/since', headers: { host: HOST } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('streams every version after a watermark as NDJSON, oldest first', async () => {
    const ws = await workspace();
    const ids = ((await ws.importFacts({ facts: story() })).json().facts as { id: string }[]).map((f) => f.id);
    const principal = await authenticateToken(suite.handle.db, ws.ownerToken);
    const services = { db: suite.handle.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log: silentLogger };
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
    for await (const entry of readJournal(suite.handle.db, principal, { pageSize: 2 })) paged.push(entry.id);
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
    const done = await reembedFacts(suite.handle.db, new LocalEmbedder(), { batchSize: 2 });
    expect(done).toBeGreaterThanOrEqual(3);
    expect(await ws.tenant.select(facts, isNull(facts.embedding))).toHaveLength(0);
  });
});

/**
 * engram_commit, engram_query and engram_promote through the SDK's real MCP client, against a
 * started server, on PGlite and (with TEST_DATABASE_URL) Postgres. Every test works in its own
 * workspace.
 */
import { readFact, type CommitOutput, type PromoteOutput, type QueryOutput } from '@engram/core';
import {
  conflictFacts,
  conflicts,
  detectionJobs,
  facts,
  forWorkspace,
  queryRows,
  type Database,
} from '@engram/db';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, mustCall, provisionOverHttp, serverEngines, startTestServer } from '../support/mcp.ts';
import { momentAfter } from '../support/poll.ts';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(serverEngines())('facts over MCP on $name', ({ overrides }) => {
  let server: Server;
  let db: Database;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer(overrides);
    db = server.db.db;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
  });

  /** A fresh workspace and a connected client for its owner. */
  async function workspace(body: Record<string, unknown> = {}) {
    const created = await provisionOverHttp(server.baseUrl, body);
    const client = await connectMcp(`${server.baseUrl}/mcp`, created.owner_token);
    clients.push(client);
    const commit = (args: Record<string, unknown>) =>
      mustCall<CommitOutput>(client, 'engram_commit', { confidence: 0.9, ...args });
    const query = (args: Record<string, unknown>) => mustCall<QueryOutput>(client, 'engram_query', args);
    return { ...created, client, commit, query, tenant: forWorkspace(db, created.workspace_id) };
  }

  it('lists the fact tools with annotations', async () => {
    const { client } = await workspace();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['engram_status', 'engram_query', 'engram_commit', 'engram_promote']));
    expect(byName.engram_commit?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.engram_query?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.engram_promote?.annotations).toMatchObject({ idempotentHint: true });
    expect(byName.engram_commit?.description).toMatch(/Never include secrets/);
    expect(byName.engram_commit?.inputSchema.required).toEqual(expect.arrayContaining(['content', 'scope', 'confidence']));
    expect(byName.engram_query?.outputSchema).toBeDefined();
  });

  it('commits a fact with its entities, hash, embedding and a detection job in the same write', async () => {
    const ws = await workspace();
    const content = 'The auth service rate limit is 1000 req/s per IP, configured via AUTH_RATE_LIMIT';
    const result = await ws.commit({
      content,
      scope: 'Auth/',
      provenance: 'services/auth/src/limits.ts:12',
      fact_type: 'decision',
      agent_id: 'claude-1',
    });
    expect(result).toMatchObject({ duplicate: false, corroborated: false, memory_op: 'add', verified: true, durability: 'durable' });
    expect(result.lineage_id).toBe(result.fact_id);
    const [row] = await ws.tenant.select(facts, eq(facts.id, result.fact_id!));
    expect(row).toMatchObject({
      scope: 'auth',
      factType: 'decision',
      agentId: 'claude-1',
      source: 'commit',
      embeddingModel: 'engram-local-hash-v1',
      validUntil: null,
    });
    // What the reader made of it is stored with it: the auth rate limit, at most 1000 req/s per IP, in its canonical value.
    expect(row?.entities).toEqual(readFact(content));
    expect(row?.entities).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'claim',
          kind: 'rate',
          measure: 'limit',
          anchors: expect.arrayContaining(['auth']),
          values: ['1000'],
          display: ['1000 req/s'],
          extreme: 'max',
          per: 'ip',
        }),
        expect.objectContaining({ type: 'mentions', value: expect.arrayContaining(['auth']) }),
      ]),
    );
    // The detector finds it by what it measures of what it names.
    expect(row?.matchKeys).toContain('c:rate:limit@auth');
    expect(row?.embedding).toHaveLength(512);
    expect(row?.contentHash).toMatch(/^[0-9a-f]{64}$/);
    const jobs = await ws.tenant.select(detectionJobs);
    expect(jobs).toEqual([expect.objectContaining({ triggerFactId: result.fact_id, reason: 'commit', status: 'pending' })]);
  });

  it('answers an exact duplicate (after normalization) with the existing fact, per scope', async () => {
    const ws = await workspace();
    const first = await ws.commit({ content: 'Redis runs on port 6379', scope: 'infra/cache' });
    const again = await ws.commit({ content: '  redis runs on PORT 6379. ', scope: 'infra/cache' });
    expect(again).toMatchObject({ duplicate: true, fact_id: first.fact_id, memory_op: 'none' });
    const elsewhere = await ws.commit({ content: 'Redis runs on port 6379', scope: 'infra/queue' });
    expect(elsewhere.duplicate).toBe(false);
    expect(await ws.tenant.select(facts)).toHaveLength(2);
  });

  it('stores exactly one fact when identical commits race', async () => {
    const ws = await workspace();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ws.commit({ content: 'The search indexer runs every 5 minutes', scope: 'search', agent_id: `racer-${i}` }),
      ),
    );
    const ids = new Set(results.map((r) => r.fact_id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(await ws.tenant.select(facts)).toHaveLength(1);
  });

  it('rejects secrets, naming the pattern and storing nothing', async () => {
    const ws = await workspace();
    const token = `ghp_${'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A7'}`;
    const outcome = await callTool(ws.client, 'engram_commit', {
      content: `CI pushes with ${token}`,
      scope: 'ci',
      confidence: 1,
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatch(/GitHub token \(pattern: github_token\)/);
    expect(outcome.error).not.toContain(token);
    expect(await ws.tenant.select(facts)).toHaveLength(0);
  });

  it('explains invalid input field by field', async () => {
    const ws = await workspace();
    const outcome = await callTool(ws.client, 'engram_commit', { content: '', scope: 'Not A Scope!', confidence: 2 });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatch(/content/);
    expect(outcome.error).toMatch(/scope/);
    expect(outcome.error).toMatch(/confidence/);
    const del = await callTool(ws.client, 'engram_commit', { content: 'x', scope: 'a', confidence: 1, operation: 'delete' });
    expect(del.ok ? '' : del.error).toMatch(/corrects_lineage/);
  });

  it('updates the most similar current fact in scope, keeping the lineage', async () => {
    const ws = await workspace();
    const old = await ws.commit({ content: 'Cache TTL is 300 seconds', scope: 'cache' });
    const updated = await ws.commit({ content: 'Cache TTL is 600 seconds', scope: 'cache', operation: 'update' });
    expect(updated).toMatchObject({ memory_op: 'update', supersedes_fact_id: old.fact_id, lineage_id: old.lineage_id });
    const [closed] = await ws.tenant.select(facts, eq(facts.id, old.fact_id!));
    expect(closed?.validUntil).toBeInstanceOf(Date);
    const current = await ws.query({ topic: 'cache ttl' });
    expect(current.results.map((r) => r.content)).toEqual(['Cache TTL is 600 seconds']);

    const unrelated = await ws.commit({ content: 'Deploys happen on Tuesdays', scope: 'cache', operation: 'update' });
    expect(unrelated).toMatchObject({ memory_op: 'add', supersedes_fact_id: null });
    expect(unrelated.note).toMatch(/similar enough/);
  });

  it('corrects an explicit lineage, retires one with delete, and ignores "none"', async () => {
    const ws = await workspace();
    const wrong = await ws.commit({ content: 'Payments use Braintree', scope: 'payments' });
    const fixed = await ws.commit({
      content: 'Payments moved to Stripe in 2024',
      scope: 'payments',
      corrects_lineage: wrong.lineage_id,
    });
    expect(fixed).toMatchObject({ memory_op: 'update', supersedes_fact_id: wrong.fact_id, lineage_id: wrong.lineage_id });

    const missing = await callTool(ws.client, 'engram_commit', {
      content: 'x',
      scope: 'payments',
      confidence: 1,
      corrects_lineage: '00000000-0000-4000-8000-000000000000',
    });
    expect(missing.ok ? '' : missing.error).toMatch(/was not found/);

    const retired = await ws.commit({ content: 'retire it', scope: 'payments', operation: 'delete', corrects_lineage: wrong.lineage_id });
    expect(retired).toMatchObject({ fact_id: null, memory_op: 'delete', supersedes_fact_id: fixed.fact_id });
    // Nothing current is left; the retired fact that matches best is shown once, marked as closed.
    const afterDelete = await ws.query({ topic: 'payments moved to Stripe' });
    expect(afterDelete.results.map((r) => [r.fact_id, r.closed?.closed_by])).toEqual([[fixed.fact_id, 'deleted']]);
    expect(afterDelete.results[0]!.valid_until).not.toBeNull();
    expect(afterDelete.note).toMatch(/closed fact matches this topic better than any current one/);

    const none = await ws.commit({ content: 'nothing new', scope: 'payments', operation: 'none' });
    expect(none).toMatchObject({ fact_id: null, memory_op: 'none' });
    expect(await ws.tenant.select(facts)).toHaveLength(2);
  });

  it("counts another agent's near-duplicate as corroboration, but never one that changes a value", async () => {
    const ws = await workspace();
    const base = await ws.commit({ content: 'The auth service rate limit is 1000 req/s per IP', scope: 'auth', agent_id: 'a' });
    const same = await ws.commit({ content: 'Auth service rate limit: 1000 req/s per IP', scope: 'auth', agent_id: 'b' });
    expect(same).toMatchObject({ duplicate: true, corroborated: true, fact_id: base.fact_id });
    const [row] = await ws.tenant.select(facts, eq(facts.id, base.fact_id!));
    expect(row?.corroboratingAgents).toBe(1);

    const different = await ws.commit({ content: 'The auth service rate limit is 2000 req/s per IP', scope: 'auth', agent_id: 'b' });
    expect(different).toMatchObject({ duplicate: false, corroborated: false });
    expect(await ws.tenant.select(facts)).toHaveLength(2);
  });

  it('stores a second member\'s fact that changes one value of any kind as its own fact, and corroborates only true agreement', async () => {
    const ws = await workspace();
    const joined = (await (
      await fetch(`${server.baseUrl}/api/v1/join`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ invite_key: ws.invite_key }) })
    ).json()) as { token: string };
    const other = await connectMcp(`${server.baseUrl}/mcp`, joined.token);
    clients.push(other);
    const commitAs = (client: typeof other, content: string, scope: string) =>
      mustCall<CommitOutput>(client, 'engram_commit', { content, scope, confidence: 0.9, agent_id: client === other ? 'agent-b' : 'agent-a' });

    const pairs: [string, string, string][] = [
      ['bare count', 'The billing queue retries failed jobs 3 times with exponential backoff', 'The billing queue retries failed jobs 7 times with exponential backoff'],
      ['number with unit', 'The circuit breaker opens after 3 consecutive failures', 'The circuit breaker opens after 10 consecutive failures'],
      ['name', 'Priya owns the release process', 'Tomas owns the release process'],
      ['version', 'The API server runs on Node 20', 'The API server runs on Node 22'],
      ['date', 'The first sprint is due April 1', 'The first sprint is due April 5'],
      ['boolean', 'ENABLE_BETA_SEARCH is on by default', 'ENABLE_BETA_SEARCH is off by default'],
      ['negation', 'The CLI sends usage telemetry to PostHog', 'The CLI sends no usage telemetry to PostHog'],
    ];
    for (const [kind, first, second] of pairs) {
      const a = await commitAs(ws.client, first, 'values');
      const b = await commitAs(other, second, 'values');
      expect(b, kind).toMatchObject({ duplicate: false, corroborated: false });
      expect(b.fact_id, kind).not.toBe(a.fact_id);
    }
    expect(await ws.tenant.select(facts)).toHaveLength(pairs.length * 2);

    // The same values in other words from the other member: agreement, counted once.
    const base = await commitAs(ws.client, 'The auth service rate limit is 1000 req/s per IP', 'agree');
    const same = await commitAs(other, 'Auth service rate limit: 1000 req/s per IP', 'agree');
    expect(same).toMatchObject({ duplicate: true, corroborated: true, fact_id: base.fact_id });
  });

  it('stores a restatement after the claim moved on as a new commit of the old lineage, never as agreement', async () => {
    const ws = await workspace();
    const first = await ws.commit({ content: 'The first sprint is due April 1', scope: 'planning', agent_id: 'agent-a' });
    await ws.commit({ content: 'The first sprint is now due April 5 instead of April 1', scope: 'planning', agent_id: 'agent-b' });
    const again = await ws.commit({ content: 'The first sprint is due April 1', scope: 'planning', agent_id: 'agent-c' });
    expect(again).toMatchObject({ duplicate: false, corroborated: false, memory_op: 'update', supersedes_fact_id: first.fact_id, lineage_id: first.lineage_id });
    const [old] = await ws.tenant.select(facts, eq(facts.id, first.fact_id!));
    expect(old?.validUntil).not.toBeNull();
    // Said once more with nothing in between: the identical current fact, as before.
    const repeat = await ws.commit({ content: 'The first sprint is due April 1', scope: 'planning', agent_id: 'agent-d' });
    expect(repeat).toMatchObject({ duplicate: true, fact_id: again.fact_id });
  });

  it('reads a claim as unchanged when a human dismissed the conflict with the fact that seemed to move it', async () => {
    const ws = await workspace();
    const first = await ws.commit({ content: 'The first sprint is due April 1', scope: 'planning', agent_id: 'agent-a' });
    // The same later fact that moves the claim on in the test before: only the dismissal keeps the claim unchanged here.
    const moved = await ws.commit({ content: 'The first sprint is now due April 5 instead of April 1', scope: 'planning', agent_id: 'agent-b' });
    const [conflict] = await ws.tenant
      .insert(conflicts, { kind: 'reversal', question: 'Which is the deadline?', detectedBy: 'tier0_entity', severity: 'high', factSetKey: `${first.fact_id}:${moved.fact_id}`, status: 'dismissed' })
      .returning();
    await ws.tenant.insert(conflictFacts, [
      { conflictId: conflict!.id, factId: first.fact_id! },
      { conflictId: conflict!.id, factId: moved.fact_id! },
    ]);
    // The two were judged compatible: saying the first again is the identical current fact, not a return.
    const again = await ws.commit({ content: 'The first sprint is due April 1', scope: 'planning', agent_id: 'agent-c' });
    expect(again).toMatchObject({ duplicate: true, fact_id: first.fact_id });
  });

  it('retrieves by meaning and words, filters by scope hierarchy and fact type, and flags conflicts', async () => {
    const ws = await workspace();
    const jwt = await ws.commit({ content: 'Auth refreshes JWT access tokens with a rotating refresh token', scope: 'auth/jwt', fact_type: 'decision', provenance: 'ADR-12' });
    await ws.commit({ content: 'OAuth login goes through the identity provider', scope: 'auth/oauth' });
    await ws.commit({ content: 'Webhook signatures are verified with HMAC-SHA256', scope: 'payments/webhooks' });
    await ws.commit({ content: 'The authz service caches role lookups', scope: 'authz' });

    const all = await ws.query({ topic: 'How does auth refresh JWT tokens?' });
    expect(all.mode).toBe('current');
    expect(all.results[0]).toMatchObject({ fact_id: jwt.fact_id, verified: true, fact_type: 'decision', has_open_conflict: false });

    const scoped = await ws.query({ topic: 'login tokens webhooks roles', scope: 'auth' });
    expect(scoped.results.map((r) => r.scope).sort()).toEqual(['auth/jwt', 'auth/oauth']);
    const decisions = await ws.query({ topic: 'tokens login', fact_type: 'decision' });
    expect(decisions.results.map((r) => r.fact_id)).toEqual([jwt.fact_id]);

    const [conflict] = await ws.tenant
      .insert(conflicts, { kind: 'ambiguity', question: 'Is it so?', detectedBy: 'tier0_entity', severity: 'high', factSetKey: jwt.fact_id! })
      .returning();
    await ws.tenant.insert(conflictFacts, { conflictId: conflict!.id, factId: jwt.fact_id! });
    const flagged = await ws.query({ topic: 'JWT refresh' });
    expect(flagged.results.find((r) => r.fact_id === jwt.fact_id)?.has_open_conflict).toBe(true);
  });

  it('answers as of a past instant, and includes history for "used to" questions', async () => {
    const ws = await workspace();
    const first = await ws.commit({ content: 'The auth service uses Memcached for sessions', scope: 'auth' });
    // A moment after the first commit and before the second, whatever the clock's resolution.
    const moment = await momentAfter(Date.now());
    const between = moment.toISOString();
    await momentAfter(moment.getTime());
    await ws.commit({ content: 'The auth service uses Redis for sessions', scope: 'auth', corrects_lineage: first.lineage_id });

    const now = await ws.query({ topic: 'auth sessions store' });
    expect(now.results.map((r) => r.content)).toEqual(['The auth service uses Redis for sessions']);
    const then = await ws.query({ topic: 'auth sessions store', as_of: between });
    expect(then).toMatchObject({ mode: 'as_of', as_of: between });
    expect(then.results.map((r) => r.content)).toEqual(['The auth service uses Memcached for sessions']);
    const history = await ws.query({ topic: 'what did auth originally use for sessions?' });
    expect(history.mode).toBe('history');
    expect(history.results.map((r) => r.content).sort()).toEqual([
      'The auth service uses Memcached for sessions',
      'The auth service uses Redis for sessions',
    ]);
    expect(history.results.find((r) => r.content.includes('Memcached'))?.valid_until).not.toBeNull();
    const explicit = await ws.query({ topic: 'auth sessions store', include_history: false });
    expect(explicit.mode).toBe('current');
  });

  it('shows a closed fact that matches better than any current one, marked, unless what replaced it is in the answer', async () => {
    const ws = await workspace();
    const old = await ws.commit({ content: 'Search results are cached in Memcached for 5 minutes', scope: 'search' });
    const kept = await ws.commit({ content: 'Search indexing runs in a nightly Airflow job', scope: 'search' });
    // A later version of its lineage replaces the first fact and is a match: the answer holds it, so
    // the old version stays out of the default answer.
    const later = await ws.commit({ content: 'Search results are cached in Redis for 5 minutes', scope: 'search', corrects_lineage: old.lineage_id });
    const replaced = await ws.query({ topic: 'Memcached search cache' });
    expect(replaced.results.map((r) => r.fact_id)).toContain(later.fact_id);
    expect(replaced.results.map((r) => r.fact_id)).not.toContain(old.fact_id);
    // Once the lineage is retired, nothing in the answer replaces the old version, which answers
    // the topic best: shown once, marked with when and by what it was superseded.
    await ws.commit({ content: 'retire it', scope: 'search', operation: 'delete', corrects_lineage: old.lineage_id });
    const answer = await ws.query({ topic: 'Memcached search cache' });
    const closed = answer.results.filter((r) => r.closed);
    expect(closed.map((r) => [r.fact_id, r.closed?.closed_by, r.closed?.replaced_by])).toEqual([[old.fact_id, 'superseded', later.fact_id]]);
    expect(closed[0]!.valid_until).not.toBeNull();
    expect(answer.results.map((r) => r.fact_id)).toContain(kept.fact_id);
    expect(answer.note).toContain(old.fact_id!);
    // Asked for history, every version is listed as before, with no extra marking.
    const history = await ws.query({ topic: 'Memcached search cache', include_history: true });
    expect(history.results.every((r) => r.closed === undefined)).toBe(true);
  });

  it('expires facts by TTL, in queries at once and in storage by the sweep', async () => {
    const ws = await workspace();
    const fact = await ws.commit({ content: 'The staging certificate is temporary', scope: 'infra', ttl_days: 1 });
    expect(new Date(fact.expires_at!).getTime() - new Date(fact.committed_at!).getTime()).toBe(86_400_000);
    // Move the expiry into the past, as a day passing would.
    await ws.tenant.update(facts, { expiresAt: new Date(Date.now() - 1000), validFrom: new Date(Date.now() - 5000), committedAt: new Date(Date.now() - 5000) }, eq(facts.id, fact.fact_id!));
    const expired = await ws.query({ topic: 'staging certificate' });
    expect(expired.results.map((r) => [r.fact_id, r.closed?.closed_by])).toEqual([[fact.fact_id, 'expired']]);
    // The server's own maintenance sweep closes the window, no query needed.
    await server.maintenance.tick();
    const [row] = await ws.tenant.select(facts, eq(facts.id, fact.fact_id!));
    expect(row?.validUntil?.getTime()).toBe(row?.expiresAt?.getTime());
  });

  it('keeps ephemeral facts out of default queries until two hits or engram_promote make them durable', async () => {
    const ws = await workspace();
    const durable = await ws.commit({ content: 'The billing cron runs hourly', scope: 'billing' });
    const scratch = await ws.commit({ content: 'The billing cron seemed slow today', scope: 'billing', durability: 'ephemeral' });
    expect(scratch.durability).toBe('ephemeral');
    expect(new Date(scratch.expires_at!).getTime() - new Date(scratch.committed_at!).getTime()).toBe(86_400_000);
    expect(await ws.tenant.select(detectionJobs, eq(detectionJobs.triggerFactId, scratch.fact_id!))).toEqual([]);

    expect((await ws.query({ topic: 'billing cron' })).results.map((r) => r.fact_id)).toEqual([durable.fact_id]);
    const withScratch = await ws.query({ topic: 'billing cron', include_ephemeral: true });
    const ranked = withScratch.results.map((r) => r.fact_id);
    expect(ranked).toContain(scratch.fact_id);
    const scratchScore = withScratch.results.find((r) => r.fact_id === scratch.fact_id)!.score;
    const durableScore = withScratch.results.find((r) => r.fact_id === durable.fact_id)!.score;
    expect(scratchScore).toBeLessThan(durableScore);

    const second = await ws.query({ topic: 'billing cron', include_ephemeral: true });
    expect(second.results.find((r) => r.fact_id === scratch.fact_id)?.durability).toBe('durable');
    expect(second.note).toMatch(/became durable/);
    const [row] = await ws.tenant.select(facts, eq(facts.id, scratch.fact_id!));
    expect(row).toMatchObject({ durability: 'durable', expiresAt: null, queryHits: 2 });
    expect(await ws.tenant.select(detectionJobs, eq(detectionJobs.triggerFactId, scratch.fact_id!))).toHaveLength(1);

    const other = await ws.commit({ content: 'Invoices render with wkhtmltopdf', scope: 'billing', durability: 'ephemeral' });
    const promoted = await mustCall<PromoteOutput>(ws.client, 'engram_promote', { fact_id: other.fact_id });
    expect(promoted).toMatchObject({ promoted: true, durability: 'durable' });
    expect(await mustCall<PromoteOutput>(ws.client, 'engram_promote', { fact_id: other.fact_id })).toMatchObject({ promoted: false, durability: 'durable' });
    const unknown = await callTool(ws.client, 'engram_promote', { fact_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.ok ? '' : unknown.error).toMatch(/not found/);
  });

  it('caps the response near 4,000 tokens and truncates long facts', async () => {
    const ws = await workspace();
    for (let i = 0; i < 12; i++) {
      await ws.commit({ content: `Checkout step ${i} notes: ${'the checkout flow validates carts and applies coupons. '.repeat(70)}`.slice(0, 3990), scope: 'checkout' });
    }
    const result = await ws.query({ topic: 'checkout flow carts coupons', limit: 12 });
    expect(JSON.stringify(result.results).length).toBeLessThanOrEqual(16_000 + 4_000);
    expect(result.results.every((r) => r.content.length < 2_200)).toBe(true);
    expect(result.results[0]?.truncated).toBe(true);
    expect(result.omitted).toBeGreaterThan(0);
    expect(result.results.length + result.omitted).toBe(12);
    expect(result.note).toMatch(/4,000 tokens/);
  });

  it('strips member identity and pseudonymizes agents when the workspace asks', async () => {
    const ws = await workspace({ anonymous_mode: true, anon_agents: true });
    const result = await ws.commit({ content: 'Feature flags come from LaunchDarkly', scope: 'flags', agent_id: 'alice-laptop' });
    const [row] = await ws.tenant.select(facts, eq(facts.id, result.fact_id!));
    expect(row?.memberId).toBeNull();
    expect(row?.agentId).toMatch(/^anon-[0-9a-f]{12}$/);
    const named = await workspace();
    const plain = await named.commit({ content: 'Feature flags come from LaunchDarkly', scope: 'flags', agent_id: 'alice-laptop' });
    const [plainRow] = await named.tenant.select(facts, eq(facts.id, plain.fact_id!));
    expect(plainRow?.agentId).toBe('alice-laptop');
    expect(plainRow?.memberId).not.toBeNull();
  });

  it('never shows one workspace the facts of another', async () => {
    const a = await workspace();
    const b = await workspace();
    const secret = await b.commit({ content: 'Team B uses Kafka for the order events', scope: 'orders' });
    expect((await a.query({ topic: 'Kafka order events' })).results).toEqual([]);
    const promote = await callTool(a.client, 'engram_promote', { fact_id: secret.fact_id });
    expect(promote.ok ? '' : promote.error).toMatch(/not found/);
    const correct = await callTool(a.client, 'engram_commit', { content: 'x', scope: 'orders', confidence: 1, corrects_lineage: secret.lineage_id });
    expect(correct.ok ? '' : correct.error).toMatch(/not found/);
    const [count] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from facts where workspace_id = ${a.workspace_id}`);
    expect(count?.n).toBe(0);
  });
});

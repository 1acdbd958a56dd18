/**
 * Detection as an agent and a teammate meet it: commits over MCP, the server's in-process worker
 * finding conflicts in the background, engram_conflicts and the REST views, settling and undoing a
 * settlement. On PGlite and (with TEST_DATABASE_URL) a Postgres database of its own.
 */
import type { CommitOutput, ConflictsOutput, QueryOutput } from '@engram/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, isolatedServerEngines, mustCall, provisionOverHttp, startTestServer } from '../support/mcp.ts';
import { raiseLimits } from '../bench/limits.ts';

type Server = Awaited<ReturnType<typeof startTestServer>>;

interface Status {
  llm_enabled: boolean;
  pending_jobs: number;
  running_jobs: number;
  failed_jobs: number;
  last_run_at: string | null;
  runs_total: number;
  recent_runs: { status: string; jobs_coalesced: number; facts_read: number; conflicts_raised: number; facts_retired: number; duration_ms: number }[];
}

describe.each(isolatedServerEngines())('detection end to end on $name', (engine) => {
  let server: Server;
  let cleanup = async () => {};
  const clients: Client[] = [];

  beforeAll(async () => {
    const prepared = await engine.prepare();
    cleanup = () => prepared.cleanup();
    server = await startTestServer({ ...prepared.overrides, inProcessWorker: true });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
    await cleanup();
  });

  async function workspace() {
    const created = await provisionOverHttp(server.baseUrl);
    const client = await connectMcp(`${server.baseUrl}/mcp`, created.owner_token);
    clients.push(client);
    const rest = async <T>(method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${created.owner_token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as T };
    };
    const commit = (content: string, agent: string, scope = 'auth') =>
      mustCall<CommitOutput>(client, 'engram_commit', { content, scope, confidence: 0.9, agent_id: agent });
    /**
     * Waits until the workspace's detection queue is empty: on state, however long a busy machine
     * takes (the test's own timeout is the only clock).
     */
    const settled = async () => {
      for (;;) {
        const { body } = await rest<Status>('GET', '/api/v1/detection/status');
        if (body.pending_jobs === 0 && body.running_jobs === 0 && body.runs_total > 0) return body;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    return { ...created, client, rest, commit, settled };
  }

  it('finds a conflict in the background and shows it through engram_conflicts, engram_query and the status', async () => {
    const ws = await workspace();
    const first = await ws.commit('The auth service rate limit is 1000 req/s per IP', 'agent-a');
    const second = await ws.commit('The auth service rate limit is 2000 req/s per IP', 'agent-b');
    expect(second).not.toHaveProperty('conflicts'); // the commit does not wait for detection

    const status = await ws.settled();
    expect(status).toMatchObject({ llm_enabled: false, pending_jobs: 0, running_jobs: 0, failed_jobs: 0, last_run_at: expect.any(String) });
    expect(status.recent_runs[0]).toMatchObject({ status: 'succeeded', conflicts_raised: 1 });
    expect(status.recent_runs.reduce((n, r) => n + r.jobs_coalesced, 0)).toBe(2);

    const found = await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', {});
    expect(found.total).toBe(1);
    expect(found.next_prompt).toMatch(/1 open conflict/);
    const [group] = found.groups;
    expect(group!.scope).toBe('auth');
    const conflict = group!.conflicts[0]!;
    expect(conflict).toMatchObject({
      kind: 'value_mismatch',
      severity: 'high',
      status: 'open',
      detected_by: 'tier2_numeric',
      // (The "per IP" of the facts also reads as a thing the limit is of: "auth ip".)
      question: expect.stringMatching(/^Which is the limit of auth(?: ip)? \(maximum\) now: 1000 req\/s or 2000 req\/s\?$/),
    });
    expect(conflict.facts.map((f) => [f.fact_id, f.agent_id])).toEqual([
      [first.fact_id, 'agent-a'],
      [second.fact_id, 'agent-b'],
    ]);

    const rest = await ws.rest<ConflictsOutput>('GET', '/api/v1/conflicts?kind=value_mismatch');
    expect(rest.status).toBe(200);
    expect(rest.body.groups[0]!.conflicts[0]!.conflict_id).toBe(conflict.conflict_id);
    expect((await ws.rest<ConflictsOutput>('GET', '/api/v1/conflicts?limit=1')).body.total).toBe(1);
    const tooMany = await ws.rest<{ error: { message: string } }>('GET', '/api/v1/conflicts?limit=0');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toContain('limit');
    expect((await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { scope: 'payments' })).total).toBe(0);
    expect((await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { status: 'resolved' })).total).toBe(0);

    const query = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic: 'auth service rate limit' });
    expect(query.results.filter((r) => r.has_open_conflict).map((r) => r.fact_id).sort()).toEqual([first.fact_id, second.fact_id].sort());
    const status2 = await mustCall<{ memory: { open_conflicts: number } }>(ws.client, 'engram_status', {});
    expect(status2.memory.open_conflicts).toBe(1);
  });

  it('settles a fact a later one replaces, and a human can undo that: the pair becomes a conflict', async () => {
    const ws = await workspace();
    // The same agent restating a different value within its working session: settled, nothing asked.
    const older = await ws.commit('Cache TTL is 300 seconds', 'agent-a', 'cache');
    const newer = await ws.commit('Cache TTL is 600 seconds', 'agent-a', 'cache');
    const status = await ws.settled();
    expect(status.recent_runs[0]).toMatchObject({ facts_retired: 1, conflicts_raised: 0 });
    const current = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic: 'cache TTL' });
    expect(current.results.map((r) => r.fact_id)).toEqual([newer.fact_id]);
    expect((await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', {})).total).toBe(0);
    // The settlement is on record, resolved by the detector with its reason, kept by the later fact.
    const resolved = await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { status: 'resolved' });
    expect(resolved.total).toBe(1);
    const settlement = resolved.groups[0]!.conflicts[0]!;
    expect(settlement).toMatchObject({
      kind: 'probable_update',
      status: 'resolved',
      resolution_type: 'detector',
      resolution: 'Settled by the detector: the same agent refined its own note within a working session.',
      winning_fact_id: newer.fact_id,
      resolved_at: expect.any(String),
    });
    expect(settlement.facts.map((f) => [f.fact_id, f.valid_until === null])).toEqual([
      [older.fact_id, false],
      [newer.fact_id, true],
    ]);
    const all = await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { status: 'all' });
    expect(all.groups.flatMap((g) => g.conflicts).map((c) => c.conflict_id)).toEqual([settlement.conflict_id]);

    const restored = await ws.rest<{ fact_id: string; restored: boolean }>('POST', `/api/v1/facts/${older.fact_id}/restore`);
    expect(restored).toEqual({ status: 200, body: { fact_id: older.fact_id, restored: true } });
    await ws.settled();
    // The settlement reopens as the question it would have been; both facts are current.
    const conflicts = await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', {});
    expect(conflicts.total).toBe(1);
    const reopened = conflicts.groups[0]!.conflicts[0]!;
    expect(reopened).toMatchObject({ conflict_id: settlement.conflict_id, status: 'open', resolution_type: null, resolution: null, winning_fact_id: null });
    expect(reopened.facts.map((f) => [f.fact_id, f.valid_until])).toEqual([
      [older.fact_id, null],
      [newer.fact_id, null],
    ]);
    expect((await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { status: 'resolved' })).total).toBe(0);

    const again = await ws.rest<{ error: { code: string; message: string } }>('POST', `/api/v1/facts/${older.fact_id}/restore`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/Only a fact the detector retired/);
    const missing = await ws.rest<{ error: { code: string } }>('POST', '/api/v1/facts/not-a-uuid/restore');
    expect(missing.status).toBe(400);
  });

  it('lets engram_resolve overrule a settlement by keeping the fact the detector closed', async () => {
    const ws = await workspace();
    // Another agent names the value it replaces: settled with nothing asked.
    const older = await ws.commit('The image cache TTL is 300 seconds', 'agent-a', 'media');
    const newer = await ws.commit('Raised the image cache TTL from 300 seconds to 900 seconds', 'agent-b', 'media');
    expect((await ws.settled()).recent_runs[0]).toMatchObject({ facts_retired: 1, conflicts_raised: 0 });
    const [settlement] = (await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { status: 'resolved' })).groups.flatMap((g) => g.conflicts);
    expect(settlement).toMatchObject({
      kind: 'probable_update',
      resolution_type: 'detector',
      resolution: 'Settled by the detector: the later fact names this value as the one it replaces.',
      winning_fact_id: newer.fact_id,
    });

    // A person knows better: the earlier value holds. The settlement is undone and settled their way.
    const out = await mustCall<{ status: string; resolution_type: string; winning_fact_id: string; closed_fact_ids: string[]; already_resolved: boolean }>(ws.client, 'engram_resolve', {
      conflict_id: settlement!.conflict_id,
      resolution_type: 'winner',
      winning_claim_id: older.fact_id,
      resolution: 'The raise was rolled back the same day.',
    });
    expect(out).toMatchObject({ status: 'resolved', resolution_type: 'winner', winning_fact_id: older.fact_id, closed_fact_ids: [newer.fact_id], already_resolved: false });
    const query = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic: 'image cache TTL' });
    expect(query.results.map((r) => r.fact_id)).toEqual([older.fact_id]);
    const [listed] = (await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { status: 'resolved' })).groups.flatMap((g) => g.conflicts);
    expect(listed).toMatchObject({ conflict_id: settlement!.conflict_id, resolution_type: 'winner', winning_fact_id: older.fact_id, resolution: 'The raise was rolled back the same day.' });
  });

  it('asks about a change announced without the old value, retiring nothing and ranking the earlier fact below meanwhile', async () => {
    const ws = await workspace();
    const earlier = await ws.commit('The export worker concurrency is 4', 'agent-a', 'exports');
    const later = await ws.commit('Bumped the export worker concurrency to 8', 'agent-b', 'exports');
    expect((await ws.settled()).recent_runs[0]).toMatchObject({ facts_retired: 0, conflicts_raised: 1 });
    const found = await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { kind: 'probable_update' });
    expect(found.total).toBe(1);
    const conflict = found.groups[0]!.conflicts[0]!;
    expect(conflict).toMatchObject({
      kind: 'probable_update',
      status: 'open',
      question: 'Probable update: is the concurrency of export still 4, or is 8 now, as a later fact says?',
    });
    expect(conflict.facts.map((f) => [f.fact_id, f.valid_until])).toEqual([
      [earlier.fact_id, null],
      [later.fact_id, null],
    ]);

    // Asked in the earlier fact's own words, the later fact still comes first while the question is open...
    const topic = 'The export worker concurrency is 4';
    const asked = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic });
    expect(asked.results.map((r) => [r.fact_id, r.has_open_conflict])).toEqual([
      [later.fact_id, true],
      [earlier.fact_id, true],
    ]);
    // ... and the earlier one comes back to its own place once a person says both hold.
    await mustCall(ws.client, 'engram_resolve', { conflict_id: conflict.conflict_id, resolution_type: 'dismissed', resolution: 'Both hold: 4 on weekdays, 8 at month end.' });
    const answered = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic });
    expect(answered.results.map((r) => [r.fact_id, r.has_open_conflict])).toEqual([
      [earlier.fact_id, false],
      [later.fact_id, false],
    ]);
  });

  it('explains bad engram_conflicts input', async () => {
    const ws = await workspace();
    const bad = await callTool(ws.client, 'engram_conflicts', { status: 'closed' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/status: must be "open", "resolved", "dismissed" or "all"/);
    const badKind = await callTool(ws.client, 'engram_conflicts', { kind: 'contradiction' });
    expect(!badKind.ok && badKind.error).toMatch(/kind: must be one of reversal, ambiguity, stale, value_mismatch, cross_scope, probable_update\b/);
  });

  it('turns a burst of 1,000 commits to one workspace into far fewer detection runs', { timeout: 300_000 }, async () => {
    const ws = await workspace();
    await raiseLimits(server.baseUrl, ws.owner_token);
    const lanes = 8;
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        const client = await connectMcp(`${server.baseUrl}/mcp`, ws.owner_token);
        clients.push(client);
        while (next < 1_000) {
          const i = next++;
          await mustCall<CommitOutput>(client, 'engram_commit', {
            content: `Service s${i} request timeout is ${10 + (i % 50)} seconds`,
            scope: 'services',
            confidence: 0.9,
            agent_id: `agent-${lane}`,
          });
        }
      }),
    );
    const committedIn = performance.now() - started;
    // Waits on the queue's state (nothing pending or running), however long a busy machine takes.
    const status = await ws.settled();
    const drainedIn = performance.now() - started - committedIn;
    const { body } = await ws.rest<Status>('GET', '/api/v1/detection/status');
    const coalesced = body.recent_runs.reduce((n, r) => n + r.jobs_coalesced, 0);
    process.stdout.write(
      `[${engine.name}] 1,000 commits over MCP in ${(committedIn / 1000).toFixed(1)} s, detection drained ${(drainedIn / 1000).toFixed(1)} s after the last → ${status.runs_total} detection runs ` +
        `(${body.recent_runs.map((r) => `${r.jobs_coalesced} jobs/${r.duration_ms} ms`).join(', ')})\n`,
    );
    expect(status.failed_jobs).toBe(0);
    expect(status.runs_total).toBeLessThanOrEqual(100);
    if (status.runs_total <= body.recent_runs.length) expect(coalesced).toBe(1_000);
  });
});

/** Rate limits shared between instances, and the audit log, on each engine. */
import { AuditLog, authenticateToken, provisionWorkspace, RateLimiter, silentLogger } from '@engram/core';
import { countHits, queryRows, type DbHandle } from '@engram/db';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { limiterOf, TEST_SECRET, testApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';

describe.each(testDatabases())('rate limits and audit on $name', (engine) => {
  let handles: DbHandle[];
  let first: FastifyInstance;
  let second: FastifyInstance;
  beforeAll(async () => {
    // Two app instances. On Postgres each has its own connection pool, like two machines.
    const a = await engine.open();
    const b = engine.name === 'postgres' ? await engine.open() : a;
    handles = engine.name === 'postgres' ? [a, b] : [a];
    first = await testApp(a);
    second = await testApp(b, { anonymousLimits: { requestsPerMinute: 100_000, signupsPerHour: 2 }, openSignup: true });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    for (const h of handles ?? []) await h.close();
  });

  const tool = (app: FastifyInstance, token: string | null, name: string, args: Record<string, unknown>) =>
    app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: HOST, accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
  const text = (res: { json<T>(): T }) => res.json<{ result: { isError?: boolean; content: { text: string }[] } }>().result;

  async function workspace(settings: Record<string, number>) {
    const created = await provisionWorkspace(handles[0]!.db, TEST_SECRET, {});
    const res = await first.inject({
      method: 'PATCH',
      url: '/api/v1/workspace',
      headers: { host: HOST, authorization: `Bearer ${created.ownerToken}` },
      payload: { settings },
    });
    expect(res.statusCode).toBe(200);
    return created;
  }

  // Limits count in fixed windows; a test that straddled a window boundary would see its count
  // reset halfway. These tests pin the clock to the start of the current hour (only Date; timers
  // stay real so the instances still sync), however long a busy machine takes to run them.
  function pinClockToWindowStart(): void {
    const hour = 3_600_000;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Math.floor(Date.now() / hour) * hour + 1000);
  }
  afterEach(() => {
    vi.useRealTimers();
  });

  it('limits commits per agent per hour, across instances, with retry_after_seconds', async () => {
    pinClockToWindowStart();
    const ws = await workspace({ commits_per_agent_per_hour: 3 });
    const commit = (app: FastifyInstance, n: number, agent = 'busy-agent') =>
      tool(app, ws.ownerToken, 'engram_commit', { content: `Limit probe fact number ${n}`, scope: 'limits', confidence: 1, agent_id: agent });
    expect(text(await commit(first, 1)).isError).toBeFalsy();
    expect(text(await commit(second, 2)).isError).toBeFalsy();
    expect(text(await commit(first, 3)).isError).toBeFalsy();
    const over = text(await commit(second, 4));
    expect(over.isError).toBe(true);
    expect(over.content[0]?.text).toMatch(/Rate limit reached: 3 commits per hour for agent "busy-agent".*\(code: rate_limited; retry_after_seconds: \d+\)/);
    const seconds = Number(/retry_after_seconds: (\d+)/.exec(over.content[0]!.text)![1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(3600);
    // Another agent of the same workspace has its own budget.
    expect(text(await commit(first, 5, 'calm-agent')).isError).toBeFalsy();
  });

  it('never admits more commits than the limit, however many instances commit at once', async () => {
    pinClockToWindowStart();
    const ws = await workspace({ commits_per_agent_per_hour: 20 });
    const principal = await authenticateToken(handles[0]!.db, ws.ownerToken);
    // Four instances with their own counters (and, on Postgres, two pools), all committing at once.
    const limiters = [0, 1, 2, 3].map((i) => new RateLimiter(handles[i % handles.length]!.db, { syncMs: 50 }));
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) => limiters[i % limiters.length]!.commit({ workspaceId: ws.workspaceId, agentId: 'racing-agent', settings: principal.settings })),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(20);
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(refused).toHaveLength(40);
      expect(refused.every((o) => (o.reason as { code?: string }).code === 'rate_limited')).toBe(true);
      const [counted] = await queryRows<{ count: number }>(
        handles[0]!.db,
        sql`select coalesce(sum(count), 0)::int as count from rate_limit_counters where key = ${`agent:${ws.workspaceId}:racing-agent:commits`}`,
      );
      expect(Number(counted?.count)).toBe(20);
    } finally {
      for (const limiter of limiters) await limiter.close();
    }
  });

  it('reserves commits far below the limit, one statement for many, and gives back what it did not use', async () => {
    pinClockToWindowStart();
    const ws = await workspace({ commits_per_agent_per_hour: 1_000 });
    const principal = await authenticateToken(handles[0]!.db, ws.ownerToken);
    const limiter = new RateLimiter(handles[0]!.db, { syncMs: 0 });
    const key = `agent:${ws.workspaceId}:reserving-agent:commits`;
    const counted = async () =>
      Number((await queryRows<{ count: number }>(handles[0]!.db, sql`select coalesce(sum(count), 0)::int as count from rate_limit_counters where key = ${key}`))[0]?.count);
    const commit = () => limiter.commit({ workspaceId: ws.workspaceId, agentId: 'reserving-agent', settings: principal.settings });
    try {
      await commit();
      // The first commit counted sixteen in the shared counter: itself and fifteen held for the next.
      expect(await counted()).toBe(16);
      for (let i = 0; i < 15; i++) await commit();
      expect(await counted()).toBe(16);
      await commit();
      expect(await counted()).toBe(32);
      // A sync keeps a reservation in use (the last commit was just now).
      await limiter.flush();
      expect(await counted()).toBe(32);
      // Closing gives back the fifteen reserved and not used: the counter holds the commits made.
      await limiter.close();
      expect(await counted()).toBe(17);
      // An instance whose reservation went unused for `freshMs` gives it back at its next sync.
      const idle = new RateLimiter(handles[0]!.db, { syncMs: 0, freshMs: 0 });
      await idle.commit({ workspaceId: ws.workspaceId, agentId: 'reserving-agent', settings: principal.settings });
      expect(await counted()).toBe(33);
      await idle.flush();
      expect(await counted()).toBe(18);
      await idle.close();
    } finally {
      await limiter.close();
    }
  });

  it('checks every commit on its own near the limit, and refuses early only while another instance holds a reservation', async () => {
    pinClockToWindowStart();
    const ws = await workspace({ commits_per_agent_per_hour: 40 });
    const principal = await authenticateToken(handles[0]!.db, ws.ownerToken);
    const [a, b] = [0, 1].map((i) => new RateLimiter(handles[i % handles.length]!.db, { syncMs: 0 }));
    const commit = (limiter: RateLimiter) => limiter.commit({ workspaceId: ws.workspaceId, agentId: 'shared-agent', settings: principal.settings });
    try {
      // A reserves a tenth of the forty (itself and three more) and uses one.
      await commit(a!);
      let admitted = 0;
      while (await commit(b!).then(() => true, () => false)) admitted++;
      // B is refused once the counter holds forty: its own 36 and A's four.
      expect(admitted).toBe(36);
      // A still admits the three it holds, and nothing more.
      for (let i = 0; i < 3; i++) await commit(a!);
      await expect(commit(a!)).rejects.toMatchObject({ code: 'rate_limited' });
      await expect(commit(b!)).rejects.toMatchObject({ code: 'rate_limited' });
    } finally {
      await a!.close();
      await b!.close();
    }
  });

  it('limits requests per token per minute with HTTP 429 and Retry-After, across instances', async () => {
    pinClockToWindowStart();
    const ws = await workspace({ requests_per_token_per_minute: 4 });
    const headers = { host: HOST, authorization: `Bearer ${ws.ownerToken}` };
    // The PATCH above was request 1.
    expect((await second.inject({ url: '/api/v1/members', headers })).statusCode).toBe(200);
    expect((await first.inject({ url: '/api/v1/members', headers })).statusCode).toBe(200);
    expect((await tool(second, ws.ownerToken, 'engram_status', {})).statusCode).toBe(200);
    const limited = await first.inject({ url: '/api/v1/members', headers });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().error).toMatchObject({ code: 'rate_limited', details: { retry_after_seconds: expect.any(Number) } });
    expect((await tool(second, ws.ownerToken, 'engram_status', {})).statusCode).toBe(429);
  });

  it('counts every call of a JSON-RPC batch against the per-token limit', async () => {
    pinClockToWindowStart();
    const ws = await workspace({ requests_per_token_per_minute: 10 });
    const batch = (n: number) =>
      first.inject({
        method: 'POST',
        url: '/mcp',
        headers: { host: HOST, accept: 'application/json, text/event-stream', authorization: `Bearer ${ws.ownerToken}` },
        payload: Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'engram_query', arguments: { topic: 'ports' } } })) as never,
      });
    // The PATCH above was request 1; a batch of 5 makes 6.
    const small = await batch(5);
    expect(small.statusCode).toBe(200);
    expect(small.json<unknown[]>()).toHaveLength(5);
    const big = await batch(100);
    expect(big.statusCode).toBe(429);
    expect(big.json().error).toMatchObject({ code: 'rate_limited' });
    // The refused batch was counted too: even one more call is over the limit.
    expect((await tool(first, ws.ownerToken, 'engram_status', {})).statusCode).toBe(429);
  });

  it('counts every request in the shared counter, even those admitted locally far below the limit', async () => {
    const ws = await workspace({ requests_per_token_per_minute: 1_000_000 });
    const headers = { host: HOST, authorization: `Bearer ${ws.ownerToken}` };
    for (let i = 0; i < 40; i++) expect((await (i % 2 ? first : second).inject({ url: '/api/v1/members', headers })).statusCode).toBe(200);
    const principal = await authenticateToken(handles[0]!.db, ws.ownerToken);
    // Summed over windows, in case the test straddled a minute boundary.
    const total = async () =>
      (
        await queryRows<{ total: number }>(
          handles[0]!.db,
          sql`select coalesce(sum(count), 0)::int as total from rate_limit_counters where key = ${`token:${principal.tokenId}:requests`}`,
        )
      )[0]?.total;
    // The instances add their locally admitted hits at their next sync (every 50 ms in tests, later
    // on a busy machine): wait for the counter to reach the total; then, once each instance has
    // synced again (a flush runs after any under way), check it went no further.
    await expect.poll(total, { timeout: 30_000, interval: 50 }).toBe(41); // the PATCH and the 40 reads
    await Promise.all([limiterOf(first).flush(), limiterOf(second).flush()]);
    expect(await total()).toBe(41);
  });

  it('adds the hits it admitted in a window that ended before its next sync to that window', async () => {
    const db = handles[0]!.db;
    const ws = await provisionWorkspace(db, TEST_SECRET, {});
    const limiter = new RateLimiter(db, { syncMs: 0 });
    const key = `token:ended-${Date.now()}-${Math.random().toString(36).slice(2)}:requests`;
    const rule = { key, windowSeconds: 60, limit: 1_000, workspaceId: ws.workspaceId, what: 'a test limit' };
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    try {
      // The first hit of a window is counted in the database; the next four are admitted here.
      for (let i = 0; i < 5; i++) await limiter.hit(rule, minute + 1_000 + i);
      // The next window's first hit arrives before a sync: the four are still owed to the first window.
      await limiter.hit(rule, minute + 61_000);
      await limiter.flush();
      const counted = await queryRows<{ at: string; count: number }>(
        db,
        sql`select (extract(epoch from window_start) * 1000)::float8::text as at, count from rate_limit_counters where key = ${key} order by window_start`,
      );
      expect(counted.map((r) => [Number(r.at), r.count])).toEqual([
        [minute, 5],
        [minute + 60_000, 1],
      ]);
    } finally {
      await limiter.close();
    }
  });

  it('adds the hits of many counters in one statement and returns each count', async () => {
    const db = handles[0]!.db;
    const ws = await provisionWorkspace(db, TEST_SECRET, {});
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const tag = `batch-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const keys = { token: `token:${tag}:requests`, agent: `agent:${tag}:commits`, address: `address:${tag}:requests` };
    const first = await countHits(db, [
      { key: keys.token, windowStart: minute, windowSeconds: 60, workspaceId: ws.workspaceId, weight: 3 },
      { key: keys.agent, windowStart: hour, windowSeconds: 3600, workspaceId: ws.workspaceId, weight: 1 },
      { key: keys.address, windowStart: minute, windowSeconds: 60, workspaceId: null, weight: 2 },
    ]);
    expect(Object.fromEntries(first)).toEqual({ [keys.token]: 3, [keys.agent]: 1, [keys.address]: 2 });
    // Existing counters grow; a counter of another window is a row of its own.
    const next = await countHits(db, [
      { key: keys.address, windowStart: minute, windowSeconds: 60, workspaceId: null, weight: 5 },
      { key: keys.token, windowStart: new Date(minute.getTime() + 60_000), windowSeconds: 60, workspaceId: ws.workspaceId, weight: 4 },
    ]);
    expect(Object.fromEntries(next)).toEqual({ [keys.address]: 7, [keys.token]: 4 });
    const stored = await queryRows<{ key: string; count: number; workspace_id: string | null; expires_at: string }>(
      db,
      sql`select key, count, workspace_id, expires_at::text from rate_limit_counters where key like ${`%:${tag}:%`} order by key, window_start`,
    );
    expect(stored.map((r) => [r.key, r.count, r.workspace_id])).toEqual([
      [keys.address, 7, null],
      [keys.agent, 1, ws.workspaceId],
      [keys.token, 3, ws.workspaceId],
      [keys.token, 4, ws.workspaceId],
    ]);
    expect(new Date(stored[1]!.expires_at.replace(' ', 'T').replace(/\+00$/, 'Z')).getTime()).toBe(hour.getTime() + 3_600_000);
    expect(await countHits(db, [])).toEqual(new Map());
  });

  it('limits workspaces created per address through open signup', async () => {
    const init = () => tool(second, null, 'engram_init', { name: 'Signup probe' });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(text(await init()));
    const limited = results.filter((r) => r.isError);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expect(limited[0]?.content[0]?.text).toMatch(/new workspaces per hour from one address/);
  });

  it('records tool calls and API writes without content or secrets; only owners read it', async () => {
    const ws = await workspace({});
    const secretContent = 'The billing cron runs at 02:00 UTC and emails finance';
    await tool(first, ws.ownerToken, 'engram_commit', { content: secretContent, scope: 'billing', confidence: 1, agent_id: 'auditor' });
    await tool(first, ws.ownerToken, 'engram_commit', { content: `leaks ghp_${'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A7'}`, scope: 'billing', confidence: 1 });
    await tool(first, ws.ownerToken, 'engram_query', { topic: 'when does the billing cron run' });
    const invite = await first.inject({ method: 'POST', url: '/api/v1/invites', headers: { host: HOST, authorization: `Bearer ${ws.ownerToken}` }, payload: { role: 'reader' } });
    const inviteKey = invite.json<{ invite_key: string }>().invite_key;
    const joined = await first.inject({ method: 'POST', url: '/api/v1/join', headers: { host: HOST }, payload: { invite_key: inviteKey, display_name: 'Auditee' } });
    const readerToken = joined.json<{ token: string }>().token;

    const res = await first.inject({ url: '/api/v1/audit?limit=50', headers: { host: HOST, authorization: `Bearer ${ws.ownerToken}` } });
    expect(res.statusCode).toBe(200);
    const entries = res.json<{ entries: { action: string; outcome: string; error_code: string | null; actor: string; summary: Record<string, unknown>; duration_ms: number; member_id: string | null }[] }>().entries;
    const actions = entries.map((e) => `${e.action}:${e.outcome}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        'PATCH /api/v1/workspace:ok',
        'engram_commit:ok',
        'engram_commit:error',
        'engram_query:ok',
        'POST /api/v1/invites:ok',
        'POST /api/v1/join:ok',
      ]),
    );
    const commit = entries.find((e) => e.action === 'engram_commit' && e.outcome === 'ok')!;
    expect(commit.summary).toMatchObject({ scope: 'billing', agent_id: 'auditor', confidence: 1, content: { length: secretContent.length } });
    expect(commit.member_id).not.toBeNull();
    expect(entries.find((e) => e.action === 'engram_commit' && e.outcome === 'error')?.error_code).toBe('secret_detected');
    const all = JSON.stringify(entries);
    expect(all).not.toContain('billing cron runs');
    expect(all).not.toContain('ghp_');
    expect(all).not.toContain(inviteKey);
    expect(all).not.toContain(readerToken);

    const asReader = await first.inject({ url: '/api/v1/audit', headers: { host: HOST, authorization: `Bearer ${readerToken}` } });
    expect(asReader.statusCode).toBe(403);
  });

  it('keeps auditing every tenant after a request full of text Postgres cannot store, and drops only what it refuses', async () => {
    const ws = await workspace({});
    // A rejected join whose audited fields hold NUL and a lone surrogate (they were kept verbatim).
    const bad = await first.inject({
      method: 'POST',
      url: '/api/v1/join',
      headers: { host: HOST, 'content-type': 'application/json' },
      payload: '{"invite_key":"x","role":"\\u0000","agent_id":"\\ud800"}',
    });
    expect(bad.statusCode).toBe(400);
    await tool(first, ws.ownerToken, 'engram_query', { topic: 'after the bad request' });
    const read = await first.inject({ url: '/api/v1/audit?limit=20', headers: { host: HOST, authorization: `Bearer ${ws.ownerToken}` } });
    expect(read.json<{ entries: { action: string }[] }>().entries.map((e) => e.action)).toContain('engram_query');

    // An entry the database refuses whatever the sanitizing: written one by one, it alone is dropped.
    const log = new AuditLog(handles[0]!.db, silentLogger, { flushMs: 60_000 });
    const entry = { workspaceId: ws.workspaceId, memberId: null, tokenId: null, actor: 'system' as const, summary: {}, outcome: 'ok' as const, errorCode: null, durationMs: 1 };
    log.record({ ...entry, action: 'audit probe one' });
    log.record({ ...entry, action: 'audit probe poison', errorCode: 'bad\u0000code' });
    log.record({ ...entry, action: 'audit probe two' });
    await log.close();
    expect(log.dropped).toEqual({ rejected: 1, overflow: 0 });
    const rows = await queryRows<{ action: string }>(handles[0]!.db, sql`select action from audit_log where workspace_id = ${ws.workspaceId} and action like 'audit probe%' order by id`);
    expect(rows.map((r) => r.action)).toEqual(['audit probe one', 'audit probe two']);

    // A full buffer drops the oldest, counted.
    const small = new AuditLog(handles[0]!.db, silentLogger, { flushMs: 60_000, maxBuffer: 2, maxBatch: 1_000 });
    for (let i = 0; i < 5; i++) small.record({ ...entry, action: `overflow ${i}` });
    expect(small.dropped.overflow).toBe(3);
    await small.close();
  });
});

/**
 * Retries that come out exact, and answers that say whether a write was done. An idempotency key
 * on engram_commit and on imports makes a retry return the first answer and store nothing twice;
 * the key is bound to its request and its workspace. A commit still running when its deadline
 * passes is answered as "may have been stored, retry with the same key", never as a plain retry;
 * and a request the deadline already answered is never answered twice.
 */
import { provisionWorkspace } from '@engram/core';
import { createDb, migrate, purgeIdempotencyKeys, queryRows, type DbHandle } from '@engram/db';
import { defaultDatabaseLimits } from '@engram/config';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appSuite, TEST_SECRET, testApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { callTool, connectMcp, provisionOverHttp, startTestServer } from '../support/mcp.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';

const HOST = 'localhost:8080';

const mcpCall = (app: FastifyInstance, token: string, name: string, args: Record<string, unknown>) =>
  app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { host: HOST, accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
const resultOf = (res: { json<T>(): T }) =>
  res.json<{ result: { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, unknown> } }>().result;

describe.each(testDatabases())('idempotency keys on $name', (engine) => {
  const suite = appSuite(engine);

  const factsWith = async (workspaceId: string, content: string) =>
    Number((await queryRows<{ n: number }>(suite.handle.db, sql`select count(*)::int as n from facts where workspace_id = ${workspaceId} and content = ${content}`))[0]?.n);

  it('answers a commit retried with the same key as the first time, and stores one fact', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const args = { content: 'The ledger service batches writes every 250 ms.', scope: 'ledger', confidence: 0.9, idempotency_key: 'commit-key-0001' };
    const first = resultOf(await mcpCall(suite.app, ws.ownerToken, 'engram_commit', args));
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    const again = resultOf(await mcpCall(suite.app, ws.ownerToken, 'engram_commit', args));
    expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
    const { note, ...replayed } = again.structuredContent!;
    const { note: _firstNote, ...original } = first.structuredContent!;
    expect(replayed).toEqual(original);
    expect(replayed).toMatchObject({ duplicate: false, memory_op: 'add' });
    expect(note).toMatch(/earlier call with this idempotency_key/);
    expect(await factsWith(ws.workspaceId, args.content)).toBe(1);
  });

  it('refuses a key reused for another commit, and keeps keys apart per workspace', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const other = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const args = { content: 'The ledger service keeps 30 days of journals.', scope: 'ledger', confidence: 0.9, idempotency_key: 'commit-key-0002' };
    expect(resultOf(await mcpCall(suite.app, ws.ownerToken, 'engram_commit', args)).isError).toBeFalsy();
    const reused = resultOf(await mcpCall(suite.app, ws.ownerToken, 'engram_commit', { ...args, content: 'The ledger service keeps 90 days of journals.' }));
    expect(reused.isError).toBe(true);
    expect(reused.content[0]?.text).toMatch(/first used at .* for a different commit.*same arguments.*new key.*\(code: idempotency_key_reused\)/);
    expect(await factsWith(ws.workspaceId, 'The ledger service keeps 90 days of journals.')).toBe(0);
    // The same key in another workspace is another key.
    const elsewhere = resultOf(await mcpCall(suite.app, other.ownerToken, 'engram_commit', args));
    expect(elsewhere.isError).toBeFalsy();
    expect(elsewhere.structuredContent?.note).toBeUndefined();
    expect(await factsWith(other.workspaceId, args.content)).toBe(1);
    // A key must look like one.
    const bad = resultOf(await mcpCall(suite.app, ws.ownerToken, 'engram_commit', { ...args, idempotency_key: 'a b' }));
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/idempotency_key/);
  });

  it('forgets a key after a week, when a retry is long over', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const args = { content: 'The ledger archive moves to cold storage after a year.', scope: 'ledger', confidence: 0.9, idempotency_key: 'commit-key-0005' };
    expect(resultOf(await mcpCall(suite.app, ws.ownerToken, 'engram_commit', args)).isError).toBeFalsy();
    const keys = () => queryRows<{ key: string }>(suite.handle.db, sql`select key from idempotency_keys where workspace_id = ${ws.workspaceId}`);
    expect(await keys()).toEqual([{ key: 'commit-key-0005' }]);
    await suite.handle.db.execute(sql`update idempotency_keys set created_at = now() - interval '6 days' where workspace_id = ${ws.workspaceId}`);
    await purgeIdempotencyKeys(suite.handle.db);
    expect(await keys()).toHaveLength(1);
    await suite.handle.db.execute(sql`update idempotency_keys set created_at = now() - interval '8 days' where workspace_id = ${ws.workspaceId}`);
    expect(await purgeIdempotencyKeys(suite.handle.db)).toBeGreaterThanOrEqual(1);
    expect(await keys()).toEqual([]);
    // The fact stays; the same call again is now answered as what it is, an identical fact.
    expect(resultOf(await mcpCall(suite.app, ws.ownerToken, 'engram_commit', args)).structuredContent).toMatchObject({ duplicate: true });
  });

  it('answers an import retried with the same Idempotency-Key word for word, and refuses the key for another body', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const body = { facts: [{ content: 'The ledger nightly job starts at 01:30.', scope: 'ledger', committed_at: '2026-01-05T10:00:00Z', agent_id: 'importer', confidence: 0.8 }] };
    const post = (payload: unknown, key?: string) =>
      suite.app.inject({
        method: 'POST',
        url: '/api/v1/facts/import',
        headers: { host: HOST, authorization: `Bearer ${ws.ownerToken}`, ...(key === undefined ? {} : { 'idempotency-key': key }) },
        payload: payload as Record<string, unknown>,
      });
    const first = await post(body, 'import-key-0001');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ stored: 1, duplicates: 0 });
    const again = await post(body, 'import-key-0001');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    // Without the key the retry is still safe, but answered from what is stored now.
    expect((await post(body)).json()).toMatchObject({ stored: 0, duplicates: 1 });
    const other = await post({ facts: [{ ...body.facts[0], content: 'The ledger nightly job starts at 02:30.' }] }, 'import-key-0001');
    expect(other.statusCode).toBe(422);
    expect(other.json().error).toMatchObject({ code: 'idempotency_key_reused' });
    const malformed = await post(body, 'short');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.message).toMatch(/Idempotency-Key header: must be at least 8 characters/);
    expect(await factsWith(ws.workspaceId, 'The ledger nightly job starts at 02:30.')).toBe(0);
  });
});

describe('a request its deadline answered is answered once', () => {
  let handle: DbHandle;
  let app: FastifyInstance;
  const lines: string[] = [];
  beforeAll(async () => {
    handle = await testDatabases()[0]!.open();
    app = await testApp(handle, { logLevel: 'info', databaseLimits: { ...defaultDatabaseLimits(), requestDeadlineMs: 100 } }, lines);
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
  });

  it('answers an engram_commit stuck behind the database with 503 "outcome unknown", and never a second time', async () => {
    const ws = await provisionWorkspace(handle.db, TEST_SECRET, {});
    // The embedded database has one connection: a transaction on it holds every request behind it.
    // A transaction holds the one connection until the answer is in: the commit cannot finish first,
    // however busy the machine.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = () => {};
    const held = new Promise<void>((resolve) => (holding = resolve));
    const busy = handle.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      holding();
      await released;
    });
    await held;
    const content = 'The ledger export runs after the nightly job.';
    const res = await mcpCall(app, ws.ownerToken, 'engram_commit', { content, scope: 'ledger', confidence: 0.9, idempotency_key: 'commit-key-0003' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toMatchObject({ code: 'unavailable', details: { done: 'unknown' } });
    expect(res.json().error.message).toMatch(/may yet take effect \(outcome: unknown\).*idempotency_key/);
    release();
    await busy;
    // The call went on and finished: its audit entry is written once its answer was made.
    await expect
      .poll(async () => (await queryRows<{ n: number }>(handle.db, sql`select count(*)::int as n from audit_log where workspace_id = ${ws.workspaceId} and action = 'engram_commit'`))[0]?.n, { timeout: 60_000 })
      .toBe(1);
    expect(lines.filter((line) => /FST_ERR_REP_ALREADY_SENT|already sent/i.test(line))).toEqual([]);
  });
});

const adminUrl = inject('postgresAdminUrl');

describe.skipIf(!adminUrl)('a commit still running at its deadline (Postgres)', () => {
  let url: string;
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let direct: postgres.Sql;
  let holder: postgres.ReservedSql;

  beforeAll(async () => {
    url = await createScratchDatabase(adminUrl!, 'engram_test_retry');
    const setup = await createDb({ kind: 'postgres', url });
    await migrate(setup.db);
    await setup.close();
    direct = postgres(url, { max: 2, onnotice: () => {} });
    // Inserts into facts wait for a lock the test holds: the database stalls past the deadline
    // with the statement already in it, and stores the fact once the test lets go.
    await direct.unsafe(`create function engram_test_hold() returns trigger language plpgsql as $$ begin perform pg_advisory_xact_lock_shared(4242); return new; end $$`);
    await direct.unsafe('create trigger engram_test_hold before insert on facts for each row execute function engram_test_hold()');
    server = await startTestServer({
      database: { kind: 'postgres', url },
      databaseLimits: { ...defaultDatabaseLimits(), requestDeadlineMs: 3_000, lockTimeoutMs: 120_000, writeTimeoutMs: 120_000 },
    });
  }, 120_000);
  afterAll(async () => {
    await holder?.unsafe('select pg_advisory_unlock_all()').catch(() => {});
    holder?.release();
    await server?.stop();
    await direct?.end();
    if (url) await dropScratchDatabase(adminUrl!, url);
  });

  it('says the fact may have been stored, and a retry with the same key yields its answer and exactly one fact', async () => {
    const workspace = await provisionOverHttp(server.baseUrl);
    const client = await connectMcp(`${server.baseUrl}/mcp`, workspace.owner_token);
    const args = { content: 'The ledger replica lags the primary by at most 5 seconds.', scope: 'ledger', confidence: 0.9, idempotency_key: 'commit-key-0004' };
    const stored = () => direct<{ id: string }[]>`select id from facts where content = ${args.content}`;
    try {
      holder = await direct.reserve();
      await holder`select pg_advisory_lock(4242)`;
      const first = await callTool(client, 'engram_commit', args);
      expect(first.ok).toBe(false);
      if (!first.ok) {
        expect(first.error).toMatch(/engram_commit got no answer within its deadline, so it may or may not have been done \(outcome: unknown\)/);
        expect(first.error).toMatch(/Retrying is safe: call engram_commit again with the same arguments and the same idempotency_key/);
        expect(first.error).toMatch(/code: unavailable/);
      }
      // The statement is in the database, waiting: nothing is stored yet.
      expect(await stored()).toEqual([]);
      await holder`select pg_advisory_unlock(4242)`;
      // The first call goes on and stores the fact it was not able to acknowledge.
      await expect.poll(async () => (await stored()).length, { timeout: 60_000 }).toBe(1);
      const [fact] = await stored();
      const retried = await callTool<{ fact_id: string; duplicate: boolean; note?: string }>(client, 'engram_commit', args);
      expect(retried.ok).toBe(true);
      if (retried.ok) {
        expect(retried.value).toMatchObject({ fact_id: fact!.id, duplicate: false });
        expect(retried.value.note).toMatch(/earlier call with this idempotency_key/);
      }
      expect(await stored()).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 120_000);
});

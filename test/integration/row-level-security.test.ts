/**
 * Tenancy enforced by the database: queries made through a TenantDb run as `engram_app` with the
 * workspace set transaction-locally, and row-level security confines them — even a query written
 * with no workspace filter at all. On each engine.
 */
import { authenticateToken, commitFact, CommitInput, LocalEmbedder, provisionWorkspace, silentLogger, type FactServices } from '@engram/core';
import { facts, forWorkspace, queryRows, TENANT_ROLE, uuidArrayLiteral, workspaces, type DbHandle } from '@engram/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

describe.each(testDatabases())('row-level security on $name', (engine) => {
  let handle: DbHandle;
  let a: string;
  let b: string;
  beforeAll(async () => {
    handle = await engine.open();
    const services: FactServices = { db: handle.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log: silentLogger };
    for (const name of ['A', 'B'] as const) {
      const ws = await provisionWorkspace(handle.db, TEST_SECRET, { name: `RLS ${name}` });
      if (name === 'A') a = ws.workspaceId;
      else b = ws.workspaceId;
      const principal = await authenticateToken(handle.db, ws.ownerToken);
      await commitFact(services, principal, CommitInput.parse({ content: `Workspace ${name} deploys with Helm`, scope: 'infra', confidence: 0.9 }));
    }
  });
  afterAll(async () => {
    await handle?.close();
  });
  /** How many of these connections sit idle inside a transaction (this pool's only: other files share the database). */
  const idleInTransaction = async (pids: number[]) => {
    const [idle] = await queryRows<{ n: number }>(
      handle.control,
      sql`select count(*)::int as n from pg_stat_activity where pid in (${sql.join(pids.map((pid) => sql`${pid}`), sql`, `)}) and state like 'idle in transaction%'`,
    );
    return Number(idle?.n);
  };

  it('returns nothing of another workspace to a query written without a workspace filter', async () => {
    const tenant = forWorkspace(handle.db, a);
    const unfiltered = await tenant.rows<{ workspace_id: string; content: string }>(sql`select workspace_id, content from facts`);
    expect(unfiltered.length).toBeGreaterThan(0);
    expect(new Set(unfiltered.map((r) => r.workspace_id))).toEqual(new Set([a]));
    const viaBuilder = await tenant.run((db) => db.select().from(facts));
    expect(viaBuilder.every((f) => f.workspaceId === a)).toBe(true);
    const spaces = await tenant.run((db) => db.select({ id: workspaces.id }).from(workspaces));
    expect(spaces).toEqual([{ id: a }]);
    // The owner, outside the tenant layer, sees both: the policy is what hid B.
    const all = await queryRows<{ workspace_id: string }>(handle.db, sql`select distinct workspace_id from facts where workspace_id in (${a}, ${b})`);
    expect(new Set(all.map((r) => r.workspace_id))).toEqual(new Set([a, b]));
  });

  it("cannot write another workspace's rows", async () => {
    const tenant = forWorkspace(handle.db, a);
    const refused = await tenant.execute(sql`insert into agents (workspace_id, agent_id) values (${b}, 'intruder')`).then(
      () => null,
      (error: Error & { cause?: Error }) => error.cause?.message ?? error.message,
    );
    expect(refused).toMatch(/row-level security/);
    const changed = await tenant.rows<{ id: string }>(sql`update facts set scope = 'hijacked' where workspace_id = ${b} returning id`);
    expect(changed).toEqual([]);
    const removed = await tenant.rows<{ id: string }>(sql`delete from facts where workspace_id = ${b} returning id`);
    expect(removed).toEqual([]);
    const [still] = await queryRows<{ n: number }>(handle.db, sql`select count(*)::int as n from facts where workspace_id = ${b} and scope = 'infra'`);
    expect(Number(still?.n)).toBe(1);
  });

  it('runs as a role that owns nothing and cannot bypass row-level security', async () => {
    const [who] = await forWorkspace(handle.db, a).rows<{ role: string; bypass: boolean; owns: number }>(
      sql`select current_user as role,
                 (select rolbypassrls or rolsuper from pg_roles where rolname = current_user) as bypass,
                 (select count(*)::int from pg_tables where schemaname = 'public' and tableowner = current_user) as owns`,
    );
    expect(who).toEqual({ role: TENANT_ROLE, bypass: false, owns: 0 });
    // Every table with a workspace_id, and workspaces itself, has row-level security on.
    const unprotected = await queryRows<{ table_name: string }>(
      handle.db,
      sql`select c.table_name from information_schema.columns c join pg_class k on k.relname = c.table_name
          where c.table_schema = 'public' and (c.column_name = 'workspace_id' or c.table_name = 'workspaces') and not k.relrowsecurity`,
    );
    expect(unprotected).toEqual([]);
  });

  it('runs every kind of tenant statement confined: reads, writes, builders, transactions', async () => {
    const tenant = forWorkspace(handle.db, a);
    const probe = sql`select current_user as role, current_setting('engram.workspace_id', true) as ws`;
    const expected = { role: TENANT_ROLE, ws: a };
    expect((await tenant.read<{ role: string; ws: string }>(probe))[0]).toEqual(expected);
    expect((await tenant.rows<{ role: string; ws: string }>(probe))[0]).toEqual(expected);
    expect((await tenant.run((db) => queryRows<{ role: string; ws: string }>(db, probe)))[0]).toEqual(expected);
    expect((await tenant.transaction((tx) => tx.read<{ role: string; ws: string }>(probe)))[0]).toEqual(expected);
    // Many at once, as a busy server sends them: none runs outside its transaction.
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? tenant.read<{ role: string; ws: string }>(probe) : tenant.rows<{ role: string; ws: string }>(probe))),
    );
    expect(many.every(([row]) => row?.role === TENANT_ROLE && row.ws === a)).toBe(true);
    // And the pool's connections come back as the owner, outside any transaction.
    const [after] = await queryRows<{ role: string; open: boolean }>(handle.db, sql`select current_user as role, now() <> statement_timestamp() as open`);
    expect(after?.role).not.toBe(TENANT_ROLE);
  });

  it('runs a read confined and read-only, and a failed read leaves its connection clean', async () => {
    const tenant = forWorkspace(handle.db, a);
    // Unfiltered, and parameterized (its first run on a connection is described before it runs).
    const marker = `m${Math.random()}`;
    const unfiltered = await tenant.read<{ workspace_id: string; marker: string }>(sql`select workspace_id, ${marker}::text as marker from facts`);
    expect(unfiltered.length).toBeGreaterThan(0);
    expect(unfiltered.every((r) => r.workspace_id === a && r.marker === marker)).toBe(true);
    const failed = (query: ReturnType<typeof sql>) =>
      tenant.read(query).then(
        () => 'no error',
        (error: Error & { cause?: Error }) => error.cause?.message ?? error.message,
      );
    expect(await failed(sql`update facts set scope = 'changed by a read' returning id`)).toMatch(/read-only transaction/);
    expect(await failed(sql`select 1 / (count(*) - count(*)) from facts`)).toMatch(/division by zero/);
    const [unchanged] = await queryRows<{ n: number }>(handle.db, sql`select count(*)::int as n from facts where scope = 'changed by a read'`);
    expect(Number(unchanged?.n)).toBe(0);
    // Every connection of the pool, used at once, is back as the owner, and none is left inside a
    // transaction.
    const pool = await Promise.all(
      Array.from({ length: 8 }, () => queryRows<{ role: string; pid: number }>(handle.db, sql`select current_user as role, pg_backend_pid() as pid`)),
    );
    expect(pool.every(([row]) => row?.role !== TENANT_ROLE)).toBe(true);
    if (engine.name === 'postgres') {
      // This pool's connections only: other test files share the database.
      const pids = [...new Set(pool.map(([row]) => Number(row?.pid)))];
      expect(await idleInTransaction(pids)).toBe(0);
    }
  });

  it('ends a transaction with its last statement: confined, atomic, and nothing runs after it', async () => {
    const tenant = forWorkspace(handle.db, a);
    const agent = `last-${Math.random().toString(36).slice(2)}`;
    const agents = async () =>
      (await queryRows<{ agent_id: string; total_commits: number }>(handle.db, sql`select agent_id, total_commits from agents where workspace_id = ${a} and agent_id like ${`${agent}%`} order by agent_id`)).map(
        (r) => `${r.agent_id}:${Number(r.total_commits)}`,
      );
    // A write, then the last statement: both commit, and the last one ran as the tenant.
    const last = await tenant.transaction(async (tx) => {
      await tx.execute(sql`insert into agents (workspace_id, agent_id) values (${a}, ${`${agent}-1`})`);
      const [row] = await tx.lastRows<{ role: string; ws: string }>(
        sql`insert into agents (workspace_id, agent_id) values (${a}, ${`${agent}-2`}) returning current_user as role, current_setting('engram.workspace_id', true) as ws`,
      );
      // The transaction has ended: this handle refuses to run anything more.
      const after = await tx.rows(sql`select 1`).then(
        () => 'ran',
        (error: Error & { cause?: Error }) => error.cause?.message ?? error.message,
      );
      return { row, after };
    });
    expect(last.row).toEqual({ role: TENANT_ROLE, ws: a });
    if (engine.name === 'postgres') expect(last.after).toMatch(/already committed/);
    expect(await agents()).toEqual([`${agent}-1:0`, `${agent}-2:0`]);
    // A last statement that fails takes the transaction's earlier writes with it.
    const failed = await tenant
      .transaction(async (tx) => {
        await tx.execute(sql`insert into agents (workspace_id, agent_id) values (${a}, ${`${agent}-3`})`);
        return tx.lastRows(sql`insert into agents (workspace_id, agent_id) values (${b}, ${`${agent}-4`})`);
      })
      .then(
        () => 'no error',
        (error: Error & { cause?: Error }) => error.cause?.message ?? error.message,
      );
    expect(failed).toMatch(/row-level security/);
    expect(await agents()).toEqual([`${agent}-1:0`, `${agent}-2:0`]);
    // Inside a savepoint it does not end the outer transaction, which goes on and commits.
    await tenant.transaction(async (tx) => {
      await tx.transaction((inner) => inner.lastRows(sql`insert into agents (workspace_id, agent_id) values (${a}, ${`${agent}-5`})`));
      await tx.execute(sql`update agents set total_commits = 7 where workspace_id = ${a} and agent_id = ${`${agent}-5`}`);
    });
    // And on its own, outside any transaction.
    await tenant.lastRows(sql`update agents set total_commits = total_commits + 1 where workspace_id = ${a} and agent_id = ${`${agent}-5`}`);
    expect(await agents()).toEqual([`${agent}-1:0`, `${agent}-2:0`, `${agent}-5:8`]);
    if (engine.name === 'postgres') {
      const pool = await Promise.all(Array.from({ length: 8 }, () => queryRows<{ pid: number }>(handle.db, sql`select pg_backend_pid() as pid`)));
      const pids = [...new Set(pool.map(([row]) => Number(row?.pid)))];
      expect(await idleInTransaction(pids)).toBe(0);
    }
  });

  it("keeps the owner-run full-text candidates to the transaction's workspace", async () => {
    // Both searches: every word (a large workspace) and any word (a small one).
    for (const small of [false, true]) {
      const found = await forWorkspace(handle.db, a).read<{ id: string }>(
        sql`select c.id from engram_text_candidates('deploys Helm', 'current', null, null, null, false, 200, 40, ${small}) c`,
      );
      expect(found.length).toBeGreaterThan(0);
      const owners = await queryRows<{ workspace_id: string }>(handle.db, sql`select distinct workspace_id from facts where id = any(${uuidArrayLiteral(found.map((f) => f.id))}::uuid[])`);
      expect(owners.map((o) => o.workspace_id)).toEqual([a]);
      // Outside a tenant transaction it knows no workspace, so it finds nothing.
      expect(await queryRows(handle.db, sql`select * from engram_text_candidates('deploys Helm', 'current', null, null, null, false, 200, 40, ${small})`)).toEqual([]);
    }
  });

  it('sees nothing when no workspace is set', async () => {
    const rows = await handle.db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('role', ${TENANT_ROLE}, true)`);
      return queryRows(tx as never, sql`select id from facts`);
    });
    expect(rows).toEqual([]);
  });

  it("hands a caller's own transaction back as it was after a confined step", async () => {
    const [before] = await queryRows<{ role: string }>(handle.db, sql`select current_user as role`);
    const after = await handle.db.transaction(async (tx) => {
      const mine = await forWorkspace(tx, a).rows<{ id: string }>(sql`select id from facts`);
      expect(mine.length).toBeGreaterThan(0);
      const [row] = await queryRows<{ role: string; n: number }>(
        tx,
        sql`select current_user as role, (select count(distinct workspace_id)::int from facts where workspace_id in (${a}, ${b})) as n`,
      );
      return row;
    });
    expect(after).toEqual({ role: before!.role, n: 2 });
  });
});

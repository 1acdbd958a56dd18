/**
 * The embedded database runs PGlite on a thread of its own. Drizzle must see exactly what it saw
 * with PGlite on the main thread (values of every type, errors, transactions, savepoints), other
 * callers must never run inside a transaction, every wait must be bounded, and writes must be
 * refused (reads not) while the disk is nearly full.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector as vectorExtension } from '@electric-sql/pglite/vector';
import { asOneCaller, createDb, DatabaseUnavailableError, queryRows, type Database, type DbHandle } from '@engram/db';
import { sql, type SQL } from 'drizzle-orm';
import { bigint, boolean, date, doublePrecision, integer, interval, jsonb, numeric, pgTable, text, timestamp, uuid, vector } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EmbeddedClient } from '../../packages/db/src/embedded/thread-client.ts';

const samples = pgTable('samples', {
  id: integer('id').primaryKey(),
  at: timestamp('at', { withTimezone: true }).notNull(),
  local: timestamp('local'),
  atText: timestamp('at_text', { withTimezone: true, mode: 'string' }),
  day: date('day'),
  span: interval('span'),
  doc: jsonb('doc'),
  big: bigint('big', { mode: 'bigint' }),
  bigNumber: bigint('big_number', { mode: 'number' }),
  tags: text('tags').array(),
  flag: boolean('flag'),
  amount: numeric('amount'),
  ratio: doublePrecision('ratio'),
  ref: uuid('ref'),
  embedding: vector('embedding', { dimensions: 3 }),
});

const DDL = `create table samples (id int primary key, at timestamptz not null, local timestamp, at_text timestamptz, day date, span interval,
    doc jsonb, big bigint, big_number bigint, tags text[], flag boolean, amount numeric, ratio double precision, ref uuid unique,
    embedding vector(3))`;

const ROWS = [
  {
    id: 1,
    at: new Date('2026-03-01T10:20:30.123Z'),
    local: new Date('2026-03-01T10:20:30.456Z'),
    atText: '2026-03-02 01:02:03.5+00',
    day: '2026-03-03',
    span: '1 day 02:00:00',
    doc: { nested: { list: [1, 'two', null, true] }, quote: 'say "hi"' },
    big: 9_007_199_254_740_993n,
    bigNumber: 42,
    tags: ['a', 'b "quoted"', 'c,d', 'with space', ''],
    flag: true,
    amount: '12345.6789',
    ratio: 0.25,
    ref: '3f1c2a4e-9b7d-4c1e-8a2b-5d6e7f809a1b',
    embedding: [0.5, -1, 2],
  },
  {
    id: 2,
    at: new Date('1999-12-31T23:59:59.999Z'),
    local: null,
    atText: null,
    day: null,
    span: null,
    doc: null,
    big: null,
    bigNumber: null,
    tags: [],
    flag: false,
    amount: null,
    ratio: null,
    ref: null,
    embedding: null,
  },
];

/** Everything drizzle hands back for a set of queries, to compare the two ways of running PGlite. */
async function observe(db: Database) {
  await db.insert(samples).values(ROWS);
  const typed = await db.select().from(samples).orderBy(samples.id);
  const partial = await db.select({ id: samples.id, at: samples.at, tags: samples.tags }).from(samples).orderBy(samples.id);
  const raw = await queryRows(
    db,
    sql`select s.*, array[s.at, s.at] as ats, now() - now() as zero, ${new Date('2026-01-01T00:00:00Z').toISOString()}::timestamptz as param_at,
      ${'{"k":[1,2]}'}::jsonb as param_doc, 1::int8 as small_big, 'abc'::bytea as bytes from samples s order by s.id`,
  );
  const updated = await db.update(samples).set({ flag: null }).where(sql`${samples.id} = 2`).returning({ id: samples.id, flag: samples.flag });
  const nested = await db.transaction(async (tx) => {
    await tx.insert(samples).values({ ...ROWS[1]!, id: 3 });
    const inner = await tx
      .transaction(async (sp) => {
        await sp.insert(samples).values({ ...ROWS[1]!, id: 4 });
        throw new Error('roll back the savepoint');
      })
      .catch((error: Error) => error.message);
    return { inner, ids: (await tx.select({ id: samples.id }).from(samples).orderBy(samples.id)).map((row) => row.id) };
  });
  const duplicate = await db
    .insert(samples)
    .values({ ...ROWS[0]!, id: 9 })
    .then(() => undefined)
    .catch((error: Error & { cause?: Record<string, unknown> }) => {
      const { code, detail, constraint, table, severity } = error.cause ?? {};
      return { message: error.message, code, detail, constraint, table, severity };
    });
  return { typed, partial, raw, updated, nested, duplicate };
}

/**
 * Opens a transaction that runs `statement` and then holds the database until `release()`; `tx`
 * settles as `then()` does (a throw rolls the transaction back).
 */
async function holdDatabase(db: Database, statement: SQL, then: () => void) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const tx = db.transaction(async (t) => {
    await t.execute(statement);
    opened();
    await held;
    then();
  });
  await open;
  return { tx, release };
}

describe('embedded database on its own thread', () => {
  let handle: DbHandle;
  let reference: PGlite;
  beforeAll(async () => {
    [handle, reference] = await Promise.all([
      createDb({ kind: 'pglite', dataDir: 'memory://' }),
      PGlite.create('memory://', { extensions: { vector: vectorExtension } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([handle?.close(), reference?.close()]);
  });

  it('gives drizzle exactly what PGlite on the main thread gives it: every type, errors, savepoints', async () => {
    await handle.db.execute(sql`create extension if not exists vector`);
    await handle.db.execute(sql.raw(DDL));
    await reference.exec(`create extension if not exists vector; ${DDL}`);
    const expected = await observe(drizzle({ client: reference }) as unknown as Database);
    const actual = await observe(handle.db);
    // `now() - now()` and the like are equal; nothing else varies between the two.
    expect(actual).toEqual(expected);
    expect(actual.typed[0]!.at).toBeInstanceOf(Date);
    expect(actual.typed[0]!.big).toBe(9_007_199_254_740_993n);
    expect(actual.nested).toEqual({ inner: 'roll back the savepoint', ids: [1, 2, 3] });
    expect(actual.duplicate).toMatchObject({ code: '23505', constraint: 'samples_ref_key', table: 'samples' });
  });

  it('runs nothing of another caller inside an open transaction', async () => {
    await handle.db.execute(sql`create table if not exists turns (n int)`);
    const order: string[] = [];
    const { tx, release } = await holdDatabase(handle.db, sql`insert into turns values (1)`, () => {
      order.push('transaction rolls back');
      throw new Error('roll back');
    });
    // Another caller, while the transaction is open: it waits for the turn, and sees nothing of it.
    const outside = queryRows<{ n: number }>(handle.db, sql`select count(*)::int as n from turns`).then((rows) => {
      order.push('outside reads');
      return rows[0]!.n;
    });
    release();
    await expect(tx).rejects.toThrow('roll back');
    expect(await outside).toBe(0);
    expect(order).toEqual(['transaction rolls back', 'outside reads']);
  });

  it('gives control work (health, leases, authentication) the next turn, ahead of requests waiting for theirs', async () => {
    const order: string[] = [];
    // A transaction holds the database while requests, then a control statement, queue behind it.
    const { tx, release } = await holdDatabase(handle.db, sql`select 1`, () => void order.push('transaction'));
    const requests = [1, 2, 3].map((n) => handle.db.execute(sql`select ${n}::int`).then(() => order.push(`request ${n}`)));
    const control = handle.control.execute(sql`select 'ready'`).then(() => order.push('control'));
    release();
    await Promise.all([tx, ...requests, control]);
    expect(order).toEqual(['transaction', 'control', 'request 1', 'request 2', 'request 3']);
    expect(handle.control).not.toBe(handle.db);
  });

  it('lets a request that has waited once go on ahead of the statements of requests that came after it', async () => {
    const order: string[] = [];
    const { tx, release } = await holdDatabase(handle.db, sql`select 1`, () => void order.push('transaction'));
    // One caller (a tool call) needs three statements in a row; four others queue behind its first
    // (a macrotask after it was asked for, it is waiting in line).
    const caller = asOneCaller(async () => {
      for (const n of [1, 2, 3]) {
        await handle.db.execute(sql`select ${`caller ${n}`}`);
        order.push(`caller ${n}`);
      }
    });
    await new Promise((resolve) => setImmediate(resolve));
    const others = [1, 2, 3, 4].map((n) => handle.db.execute(sql`select ${n}::int`).then(() => order.push(`other ${n}`)));
    release();
    await Promise.all([tx, caller, ...others]);
    // Its first statement waited its turn like everyone's; its next ones did not wait behind all four
    // (first come first served, they would have run last).
    expect(order.slice(0, 2)).toEqual(['transaction', 'caller 1']);
    expect(order.indexOf('caller 3')).toBeLessThan(order.indexOf('other 3'));
    expect(order.at(-1)).toBe('other 4');
  });

  it('places the statements of a request by when it arrived: ahead of work asked for after that, behind work asked for before', async () => {
    const order: string[] = [];
    const { tx, release } = await holdDatabase(handle.db, sql`select 1`, () => void order.push('transaction'));
    // An early request arrives, two statements of no request queue, a late request queues, and only
    // then does the early request ask for its statement.
    let ask!: () => void;
    const asked = new Promise<void>((resolve) => (ask = resolve));
    const early = asOneCaller(async () => {
      await asked;
      await handle.db.execute(sql`select 'early'`);
      order.push('early');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const others = [1, 2].map((n) => handle.db.execute(sql`select ${n}::int`).then(() => order.push(`other ${n}`)));
    await new Promise((resolve) => setImmediate(resolve));
    const late = asOneCaller(() => handle.db.execute(sql`select 'late'`).then(() => order.push('late')));
    await new Promise((resolve) => setImmediate(resolve));
    ask();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all([tx, early, late, ...others]);
    expect(order).toEqual(['transaction', 'early', 'other 1', 'other 2', 'late']);
  });

  it('keeps working after a statement fails and after a transaction fails to commit', async () => {
    await expect(handle.db.execute(sql`select 1 / 0`)).rejects.toMatchObject({ cause: { code: '22012' } });
    await handle.db.execute(sql`create table if not exists deferred (id int primary key deferrable initially deferred)`);
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into deferred values (1), (1)`);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await queryRows(handle.db, sql`select 1 as one`)).toEqual([{ one: 1 }]);
  });
});

describe('embedded database: bounded waits and disk headroom', () => {
  let client: EmbeddedClient;
  const faults: unknown[] = [];
  let diskProblem: string | undefined;
  beforeAll(async () => {
    client = await EmbeddedClient.open('memory://', {
      deadlineMs: 400,
      slowWorkDeadlineMs: 60_000,
      durable: false,
      report: (error) => faults.push(error),
      writeProblem: async () => diskProblem,
      diskExhausted: async () => false,
      watchdogMs: 60_000,
    });
    await client.exec('create table notes (body text)');
  });
  afterAll(() => client?.close());

  it('answers a statement the database does not answer in time with a retryable fault, and serves the next once it is free', async () => {
    faults.length = 0;
    // The event loop's longest pause while the database is busy (each tick measures the gap since the last).
    let ticks = 0;
    let lastTick = performance.now();
    let longestPause = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestPause = Math.max(longestPause, now - lastTick);
      lastTick = now;
      ticks++;
    }, 10);
    try {
      const started = performance.now();
      const slow = client.query('select pg_sleep(1.5)').catch((error: unknown) => error);
      // Waits behind the slow statement, unsent, and gives up at its own deadline.
      const behind = client.query('select 1 as one').catch((error: unknown) => error);
      expect(await slow).toMatchObject({ name: 'DatabaseUnavailableError', kind: 'unavailable' });
      expect(await behind).toBeInstanceOf(DatabaseUnavailableError);
      expect(performance.now() - started).toBeLessThan(1_400);
      // The event loop went on while the database was busy: it ticked, and never paused for anything
      // like the statement's 1.5 s (a busy machine may pause it for a while, so not tick every 10 ms).
      expect(ticks).toBeGreaterThan(1);
      expect(longestPause).toBeLessThan(750);
      expect((faults[0] as Error).message).toMatch(/did not answer within 400 ms/);
    } finally {
      clearInterval(ticker);
    }
    // Once the slow statement is done, the database answers again.
    await expect.poll(() => client.query('select 1 as one').then((r) => r.rows, () => null), { timeout: 5_000 }).toEqual([{ one: 1 }]);
  });

  it('refuses writes while the disk is nearly full, before they reach the database; reads go on', async () => {
    faults.length = 0;
    diskProblem = 'the disk under /data/pgdata has 3 MB free, less than ENGRAM_MIN_FREE_DISK_MB (64 MB); free some space';
    try {
      await expect(client.query('insert into notes values ($1)', ['refused'])).rejects.toMatchObject({ kind: 'disk_full', message: expect.stringContaining('ENGRAM_MIN_FREE_DISK_MB') });
      await expect(client.transaction(async (tx) => tx.query('update notes set body = $1', ['x']))).rejects.toMatchObject({ kind: 'disk_full' });
      await expect(client.exec('create table refused (a int)')).rejects.toMatchObject({ kind: 'disk_full' });
      expect((await client.query('select count(*)::int as n from notes')).rows).toEqual([{ n: 0 }]);
      expect(await client.transaction(async (tx) => (await tx.query('select count(*)::int as n from notes')).rows)).toEqual([{ n: 0 }]);
      expect(faults.every((fault) => (fault as DatabaseUnavailableError).kind === 'disk_full')).toBe(true);
    } finally {
      diskProblem = undefined;
    }
    await client.query('insert into notes values ($1)', ['accepted']);
    expect((await client.query('select body from notes')).rows).toEqual([{ body: 'accepted' }]);
  });

  it('opens a database it has just created in a fresh thread (the thread that ran initdb holds memory only a collection frees)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-create-'));
    const options = { deadlineMs: 5_000, slowWorkDeadlineMs: 120_000, durable: true, report: () => {}, writeProblem: async () => undefined, diskExhausted: async () => false, watchdogMs: 60_000 };
    try {
      const created = await EmbeddedClient.open(path.join(dir, 'pgdata'), options);
      try {
        expect(created.threadsStarted).toBe(2);
        await created.exec('create table kept (n int)');
        await created.query('insert into kept values (1)');
      } finally {
        await created.close();
      }
      // An existing database is opened in the first thread, with what was committed.
      const reopened = await EmbeddedClient.open(path.join(dir, 'pgdata'), options);
      try {
        expect(reopened.threadsStarted).toBe(1);
        expect((await reopened.query('select n from kept')).rows).toEqual([{ n: 1 }]);
        // A buffer pool of 16 MB (its memory is never given back; see durable-fs.ts).
        expect((await reopened.query('show shared_buffers')).rows).toEqual([{ shared_buffers: '16MB' }]);
      } finally {
        await reopened.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts a database on disk again when its thread stops answering: committed rows are there, the open transaction is not', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-restart-'));
    const restarted = await EmbeddedClient.open(path.join(dir, 'pgdata'), {
      deadlineMs: 300,
      slowWorkDeadlineMs: 120_000,
      durable: true,
      report: () => {},
      writeProblem: async () => undefined,
      diskExhausted: async () => false,
      watchdogMs: 1_000,
    });
    try {
      await restarted.exec('create table kept (n int)');
      await restarted.query('insert into kept values (1)');
      const stuck = restarted
        .transaction(async (tx) => {
          await tx.query('insert into kept values (2)');
          await tx.query('select pg_sleep(600)');
        })
        .catch((error: unknown) => error);
      expect(await stuck).toMatchObject({ kind: 'unavailable' });
      // Callers fail at once while it is stuck and while it starts again.
      await expect(restarted.query('select 1')).rejects.toMatchObject({ kind: 'unavailable' });
      const rows = await vi.waitFor(() => restarted.query('select n from kept order by n'), { timeout: 120_000, interval: 250 });
      expect(rows.rows).toEqual([{ n: 1 }]);
    } finally {
      await restarted.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checkpoints by itself after enough WAL (single-user Postgres never does), so the WAL stays bounded', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-checkpoint-'));
    const db = await EmbeddedClient.open(path.join(dir, 'pgdata'), {
      deadlineMs: 60_000,
      slowWorkDeadlineMs: 120_000,
      durable: true,
      report: () => {},
      writeProblem: async () => undefined,
      diskExhausted: async () => false,
      watchdogMs: 600_000,
    });
    const redo = async () => (await db.query<{ redo: string }>('select redo_lsn::text as redo from pg_control_checkpoint()')).rows[0]!.redo;
    try {
      const before = await redo();
      await db.exec('create table bulk (body text)');
      // About 100 MB of WAL, more than the 64 MB that makes a checkpoint due.
      for (let i = 0; i < 4; i++) await db.query(`insert into bulk select repeat(md5(g::text), 30) from generate_series(1, 20000) g`);
      await expect.poll(redo, { timeout: 240_000, interval: 1_000 }).not.toBe(before);
      const walMb = fs.readdirSync(path.join(dir, 'pgdata', 'pg_wal')).filter((file) => /^[0-9A-F]{24}$/.test(file)).length * 16;
      expect(walMb).toBeLessThanOrEqual(256 + 16);
    } finally {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Writing 100 MB of durable WAL through the embedded engine took over 30 s on CI's two busy
    // cores; the poll above waits on the checkpoint, and this only bounds a test that hangs.
  }, 300_000);

  it('leaves a database in memory down, saying why, when its thread stops answering (started again it would be empty)', async () => {
    const lost = await EmbeddedClient.open('memory://', {
      deadlineMs: 300,
      slowWorkDeadlineMs: 60_000,
      durable: false,
      report: () => {},
      writeProblem: async () => undefined,
      diskExhausted: async () => false,
      watchdogMs: 500,
    });
    try {
      await expect(lost.query('select pg_sleep(600)')).rejects.toMatchObject({ kind: 'unavailable' });
      await expect.poll(() => lost.query('select 1').catch((error: Error) => error.message), { timeout: 10_000 }).toMatch(/in memory\) stopped: it did not answer/);
    } finally {
      await lost.close();
    }
  });

  it('closes within a bounded time even while the database is stuck in a statement', async () => {
    const stuck = await EmbeddedClient.open('memory://', {
      deadlineMs: 60_000,
      slowWorkDeadlineMs: 60_000,
      durable: false,
      report: () => {},
      writeProblem: async () => undefined,
      diskExhausted: async () => false,
      watchdogMs: 60_000,
    });
    const never = stuck.query('select pg_sleep(600)').catch((error: unknown) => error);
    const started = performance.now();
    await stuck.close();
    // It waits a few seconds for the statement, then stops the thread.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await never).toMatchObject({ kind: 'unavailable' });
    await expect(stuck.query('select 1')).rejects.toMatchObject({ kind: 'unavailable' });
  });
});

describe('an embedded database that cannot start', () => {
  it('says how much space its disk has and what to do, beside what PGlite said', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-unopenable-'));
    try {
      // A data directory PGlite cannot start from (a control file of garbage), on a disk with room.
      const dataDir = path.join(dir, 'pgdata');
      fs.mkdirSync(path.join(dataDir, 'global'), { recursive: true });
      fs.writeFileSync(path.join(dataDir, 'PG_VERSION'), '17\n');
      fs.writeFileSync(path.join(dataDir, 'global', 'pg_control'), Buffer.alloc(8192, 7));
      const failure = await createDb({ kind: 'pglite', dataDir }).then(
        async (handle) => {
          await handle.close();
          return 'it opened';
        },
        (error: Error) => error.message,
      );
      expect(failure).toContain(`The embedded database in ${dataDir} could not be opened: `);
      expect(failure).toMatch(new RegExp(`The disk under ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} has \\d+ MB free \\(ENGRAM_MIN_FREE_DISK_MB asks for \\d+ MB`));
      expect(failure).toMatch(/free space on it \(or move ENGRAM_DATA_DIR to a larger disk\) and start again/);
      expect(fs.existsSync(`${dataDir}.lock`)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

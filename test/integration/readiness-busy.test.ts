/**
 * `/readyz` on the embedded database, whose one connection a long statement holds: while that
 * statement is within its deadline the database is busy, not down, and the instance stays ready
 * (taking it out of rotation under load made it flap); once a statement is overdue it is not ready.
 */
import { defaultDatabaseLimits } from '@engram/config';
import { createDb, migrate, type DbHandle } from '@engram/db';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { testApp } from '../support/app.ts';

describe('readiness of a busy embedded database', () => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const thing of opened.splice(0).reverse()) await thing.close();
  });

  async function open(requestDeadlineMs: number): Promise<DbHandle> {
    const handle = await createDb({ kind: 'pglite', dataDir: 'memory://' }, { limits: { ...defaultDatabaseLimits(), requestDeadlineMs } });
    opened.push(handle);
    await migrate(handle.db);
    return handle;
  }

  it('stays ready while a statement holds the connection within its deadline, and says so', async () => {
    const handle = await open(60_000);
    const app = await testApp(handle);
    opened.push(app);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    // A drizzle query runs once it is awaited or chained.
    const long = handle.db.execute(sql`select pg_sleep(4)`).then(() => 'answered');
    await expect.poll(() => handle.busy?.(), { timeout: 30_000 }).toBeDefined();
    const res = await app.inject({ url: '/readyz' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'ready',
      checks: { database: 'ok', writes: 'ok', migrations: 'ok' },
      busy: expect.stringMatching(/^the embedded database is busy: 1 statement\(s\) running, \d+ waiting for their turn, last answer \d+ ms ago$/),
    });
    expect(await long).toBe('answered');
  });

  it('is not ready while a statement is overdue (the thread may be stuck)', async () => {
    const handle = await open(1_000);
    const app = await testApp(handle);
    opened.push(app);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const stuck = handle.db.execute(sql`select pg_sleep(5)`).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    // Past its deadline the caller gets its answer; the thread is still on the statement.
    expect(await stuck).toMatch(/pg_sleep/);
    expect(handle.busy?.()).toBeUndefined();
    const res = await app.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().busy).toBeUndefined();
    expect(res.json().checks.database).toMatch(/^(unreachable: .*has not answered for \d+ ms|not answering within \d+ ms)/);
    // It answers again: ready.
    await expect.poll(async () => (await app.inject({ url: '/readyz' })).statusCode, { timeout: 30_000 }).toBe(200);
  });
});

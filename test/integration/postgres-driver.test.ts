/**
 * Defects of postgres.js 3.4.9 that patches/postgres+3.4.9.patch fixes (patches/README.md), shown
 * on a real server with the driver alone. Each case fails, or ends the test process, on the driver
 * as published.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';

const adminUrl = inject('postgresAdminUrl');

describe.skipIf(!adminUrl)('postgres.js as patched', () => {
  let url: string;
  const role = `engram_test_no_types_${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    url = await createScratchDatabase(adminUrl!, 'engram_test_driver');
    const setup = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // A role that may not read pg_type, in this database only: the driver's first query on a
      // connection (its array-type fetch) fails for it.
      await setup.unsafe(`create role "${role}" nologin`);
      await setup.unsafe('revoke select on pg_catalog.pg_type from public');
    } finally {
      await setup.end();
    }
  });

  afterAll(async () => {
    if (url) await dropScratchDatabase(adminUrl!, url);
    const admin = postgres(adminUrl!, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`drop role if exists "${role}"`);
    } finally {
      await admin.end();
    }
  });

  it('answers from a fresh connection after a reserved one whose backend died is released (porsager/postgres#1199, #1208)', async () => {
    let noticedClose!: () => void;
    const closeNoticed = new Promise<void>((resolve) => (noticedClose = resolve));
    const sql = postgres(url, { max: 1, onnotice: () => {}, onclose: () => noticedClose() });
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const reserved = await sql.reserve();
      const pid = (await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      await admin`select pg_terminate_backend(${pid})`;
      await closeNoticed;
      // Published, this write is thrown from a timer (an uncaught TypeError); patched, it fails.
      await expect(reserved`select 1`).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
      // Published, release hands the dead connection out again as open; patched, the next query
      // gets a new connection.
      reserved.release();
      expect((await sql<{ n: number }[]>`select 1 as n`)[0]!.n).toBe(1);
    } finally {
      await sql.end();
      await admin.end();
    }
  });

  it('leaves no unhandled rejection when the array-type fetch fails (porsager/postgres#1192)', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { role } });
    try {
      // The fetch's error reaches the query waiting behind it, whose caller handles it ...
      await expect(sql`select 1 as n`).rejects.toMatchObject({ code: '42501' });
      // ... and, published, the fetch's own promise rejects with nobody listening. The next query
      // takes a round trip, so a rejection left unhandled has been reported by the time it answers.
      expect((await sql<{ n: number }[]>`select 1 as n`)[0]!.n).toBe(1);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
      await sql.end();
    }
  });
});

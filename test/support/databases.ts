import { defaultDatabaseLimits } from '@engram/config';
import { createDb, migrate, type DbHandle } from '@engram/db';
import { afterAll, beforeAll, inject } from 'vitest';
import { createScratchDatabase, dropScratchDatabase } from './postgres-admin.ts';

/**
 * The embedded databases the suite opens answer however long a statement waits for its turn: the
 * service's 15-second request deadline is for requests, and on a loaded 2-core CI machine a
 * 250-fact batch with its HNSW upkeep ran past it. Tests of the deadline set their own.
 */
const SUITE_LIMITS = { ...defaultDatabaseLimits(), requestDeadlineMs: 300_000 };

/** A database engine the integration suite runs against. */
export interface TestDatabase {
  name: 'pglite' | 'postgres';
  /** Opens a migrated database: a fresh in-memory PGlite, or this run's Postgres database. */
  open(): Promise<DbHandle>;
}

/** PGlite always; real Postgres too when TEST_DATABASE_URL is set. */
export function testDatabases(): TestDatabase[] {
  const engines: TestDatabase[] = [
    {
      name: 'pglite',
      open: async () => {
        const handle = await createDb({ kind: 'pglite', dataDir: 'memory://' }, { limits: SUITE_LIMITS });
        await migrate(handle.db);
        return handle;
      },
    },
  ];
  const url = inject('postgresUrl');
  if (url) {
    engines.push({ name: 'postgres', open: () => createDb({ kind: 'postgres', url }, { maxConnections: 5 }) });
  }
  return engines;
}

/**
 * Like {@link testDatabases}, but every open() on Postgres gets a database of its own (created,
 * migrated, and dropped on close): for tests whose workers would otherwise claim other test
 * files' detection jobs in the shared run database. `url` is the Postgres database's URL, for
 * opening more connections (or processes) to the same database.
 */
export function isolatedTestDatabases(): (Omit<TestDatabase, 'open'> & { open(): Promise<DbHandle & { url: string | null }> })[] {
  const engines: (Omit<TestDatabase, 'open'> & { open(): Promise<DbHandle & { url: string | null }> })[] = [
    {
      name: 'pglite',
      open: async () => {
        const handle = await createDb({ kind: 'pglite', dataDir: 'memory://' }, { limits: SUITE_LIMITS });
        await migrate(handle.db);
        return Object.assign(handle, { url: null });
      },
    },
  ];
  const adminUrl = inject('postgresAdminUrl');
  if (adminUrl) {
    engines.push({
      name: 'postgres',
      open: async () => {
        const url = await createScratchDatabase(adminUrl, 'engram_test_detect');
        const handle = await createDb({ kind: 'postgres', url }, { maxConnections: 5 });
        await migrate(handle.db);
        const close = handle.close.bind(handle);
        return Object.assign(handle, {
          url,
          close: async () => {
            await close();
            await dropScratchDatabase(adminUrl, url);
          },
        });
      },
    });
  }
  return engines;
}

/** What the tests of a describe block share: one database. */
export interface DatabaseSuite<H extends DbHandle = DbHandle> {
  readonly handle: H;
}

/**
 * For a describe block: opens `engine`'s database before the block's tests and closes it after
 * them. `handle` is there from the first test (or `beforeAll` registered after this call) on.
 */
export function databaseSuite<H extends DbHandle>(engine: { open(): Promise<H> }): DatabaseSuite<H> {
  let handle: H | undefined;
  beforeAll(async () => {
    handle = await engine.open();
  });
  afterAll(async () => {
    await handle?.close();
  });
  return {
    get handle() {
      if (handle === undefined) throw new Error('the suite opens its database in beforeAll: read it inside a test or a later hook');
      return handle;
    },
  };
}

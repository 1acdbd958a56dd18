import { createDb, migrate, type DbHandle } from '@engram/db';
import { inject } from 'vitest';

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
        const handle = await createDb({ kind: 'pglite', dataDir: 'memory://' });
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

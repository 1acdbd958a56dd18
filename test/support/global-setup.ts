/**
 * With TEST_DATABASE_URL set (a server where we may create databases, e.g.
 * postgres://postgres@127.0.0.1:5432/postgres), creates one fresh database for this run, applies
 * the migrations, hands its URL to the tests, and drops it afterwards.
 */
import { createDb, migrate } from '@engram/db';
import type { TestProject } from 'vitest/node';
import { createScratchDatabase, dropScratchDatabase } from './postgres-admin.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of this run's migrated Postgres database, or null when TEST_DATABASE_URL is not set. */
    postgresUrl: string | null;
    /** TEST_DATABASE_URL itself, for tests that need their own scratch database. */
    postgresAdminUrl: string | null;
  }
}

export default async function setup(project: TestProject) {
  const adminUrl = process.env.TEST_DATABASE_URL || null;
  project.provide('postgresAdminUrl', adminUrl);
  if (!adminUrl) {
    project.provide('postgresUrl', null);
    return;
  }
  const url = await createScratchDatabase(adminUrl, 'engram_test_run');
  const handle = await createDb({ kind: 'postgres', url });
  try {
    await migrate(handle.db);
  } catch (error) {
    await handle.close();
    await dropScratchDatabase(adminUrl, url);
    throw new Error(
      `Could not migrate a fresh database on TEST_DATABASE_URL (is pgvector installed? run infra/ensure-pgvector.sh): ${String(error)}`,
      { cause: error },
    );
  }
  await handle.close();
  project.provide('postgresUrl', url);
  return async () => {
    await dropScratchDatabase(adminUrl, url);
  };
}

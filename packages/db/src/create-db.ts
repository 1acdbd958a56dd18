/**
 * Opens the configured database, postgres.js (postgres.ts) or the embedded PGlite (embedded/),
 * and remembers each handle's health and control pool for the code that is given only a `db`.
 */
import { defaultDatabaseLimits, type Config, type DatabaseLimits } from '@engram/config';
import type { Database, DbHandle } from './database.ts';
import { openEmbedded } from './embedded/open.ts';
import { DatabaseHealth, type HealthLogger } from './faults.ts';
import { openPostgres } from './postgres.ts';

export interface CreateDbOptions {
  /** Request pool size for postgres.js (default: limits.poolSize). */
  maxConnections?: number;
  /** Pool sizes and bounded waits (default: the documented defaults). */
  limits?: DatabaseLimits;
  /** Where outages are logged (once each). */
  log?: HealthLogger;
}

/** The health of each database opened by createDb, by any of its handles. */
const healths = new WeakMap<object, DatabaseHealth>();
/** The health tracker of the database behind `db` (undefined for a handle not opened by createDb). */
export const healthOf = (db: Database): DatabaseHealth | undefined => healths.get(db);

/** The control handle of the database behind `db`: itself, unless createDb gave it a pool of its own. */
const controls = new WeakMap<object, Database>();
export const controlOf = (db: Database): Database => controls.get(db) ?? db;

/**
 * Opens the configured database: postgres.js for `DATABASE_URL`, otherwise PGlite (a real
 * Postgres engine in-process, with pgvector) in the data directory. `memory://` keeps PGlite in
 * memory, for tests.
 */
export async function createDb(database: Config['database'], options: CreateDbOptions = {}): Promise<DbHandle> {
  const limits = options.limits ?? defaultDatabaseLimits();
  const health = new DatabaseHealth(options.log);
  const handle = database.kind === 'postgres' ? openPostgres(database.url, limits, options.maxConnections, health) : await openEmbedded(database.dataDir, limits, health);
  for (const db of [handle.db, handle.control, handle.background]) {
    healths.set(db, health);
    controls.set(db, handle.control);
  }
  return handle;
}


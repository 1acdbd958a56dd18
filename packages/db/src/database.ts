/**
 * What every query function of this package takes: a drizzle database over either engine
 * (postgres.js, or the embedded PGlite on its own thread), and the helpers that work on both.
 * Engine files import from here; neither imports the other (create-db.ts picks one).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { DatabaseHealth } from './faults.ts';
import type * as schema from './schema.ts';

/** A drizzle database over either driver; query functions accept this or a transaction of it. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** An open database: the drizzle handles, which engine is behind them, its health, and how to close it. */
export interface DbHandle {
  /** For requests. */
  db: Database;
  /**
   * For authentication, `engram_status` and health checks: on Postgres a small pool of its own with
   * short timeouts, so these answer while request work waits on a lock or a slow statement.
   */
  control: Database;
  /** For detection runs and maintenance: on Postgres a small pool of its own with the detection timeout. */
  background: Database;
  kind: 'postgres' | 'pglite';
  /** Faults seen and outages in progress (each logged once). */
  health: DatabaseHealth;
  /** Why a write would fail now (the embedded database's disk is nearly full), or undefined. */
  writeProblem(): Promise<string | undefined>;
  /**
   * The embedded database's single connection is taken and it is working through its line, within
   * its deadlines (see EmbeddedClient.busy): a check that could not get a turn says so, not "down".
   */
  busy?(): string | undefined;
  close(): Promise<void>;
}

/** `make`'s product, one per database handle: made on first use, forgotten with the handle. */
export function perDatabase<T>(make: (db: Database) => T): (db: Database) => T {
  const made = new WeakMap<Database, T>();
  return (db) => {
    if (!made.has(db)) made.set(db, make(db));
    return made.get(db)!;
  };
}

/**
 * Runs a hand-written query and returns its rows, whichever driver is behind `db`
 * (postgres.js answers with an array, PGlite with `{ rows }`).
 */
export async function queryRows<T extends Record<string, unknown>>(db: Database, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []);
}

/** Runs a trivial query; throws what the driver threw when the database cannot answer it. */
export async function probe(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}

/** True when the database answers a trivial query. */
export async function ping(db: Database): Promise<boolean> {
  try {
    await probe(db);
    return true;
  } catch {
    return false;
  }
}

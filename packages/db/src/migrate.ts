import { fileURLToPath } from 'node:url';
import { desc, max, sql } from 'drizzle-orm';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { bigint, pgSchema, serial, text } from 'drizzle-orm/pg-core';
import { queryRows, type Database } from './database.ts';

/** The checked-in drizzle-kit SQL migrations (`drizzle/` at the repository root). */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../drizzle', import.meta.url));

// Same bookkeeping table as drizzle-kit, so `drizzle-kit migrate` and Engram agree on what ran.
// Not in schema.ts: it is the migrator's, and drizzle-kit must not write migrations for it.
const migrations = pgSchema('drizzle').table('__drizzle_migrations', {
  id: serial('id').primaryKey(),
  hash: text('hash').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }),
});

// Arbitrary constant; every Engram process migrating the same database takes this lock, so
// instances started together apply each migration exactly once.
const MIGRATION_LOCK_KEY = 7_263_551_902;

export interface MigrationResult {
  applied: number;
  total: number;
}

function pending(all: MigrationMeta[], lastAppliedMillis: number | undefined): MigrationMeta[] {
  return all.filter((m) => lastAppliedMillis === undefined || m.folderMillis > lastAppliedMillis);
}

/** Longest a migration waits for a lock before it fails (and the start with it, saying why). */
const MIGRATION_LOCK_TIMEOUT = '60s';

/**
 * Applies the migrations not yet applied, in one transaction, under an advisory lock. Safe to call
 * at every start and from several instances at once.
 */
export async function migrate(db: Database, folder = MIGRATIONS_FOLDER): Promise<MigrationResult> {
  const files = readMigrationFiles({ migrationsFolder: folder });
  const applied = await db.transaction(async (tx) => {
    // Migrations may rewrite large tables: no statement timeout, but never an unbounded wait for a
    // lock (another instance's migration, or a session holding a table).
    await tx.execute(sql.raw('set local statement_timeout = 0'));
    await tx.execute(sql.raw(`set local lock_timeout = '${MIGRATION_LOCK_TIMEOUT}'`));
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.execute(sql`create schema if not exists "drizzle"`);
    await tx.execute(sql`create table if not exists ${migrations} (id serial primary key, hash text not null, created_at bigint)`);
    const [last] = await tx.select({ createdAt: migrations.createdAt }).from(migrations).orderBy(desc(migrations.createdAt)).limit(1);
    const todo = pending(files, last?.createdAt ?? undefined);
    for (const migration of todo) {
      for (const statement of migration.sql) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      await tx.insert(migrations).values({ hash: migration.hash, createdAt: migration.folderMillis });
    }
    return todo.length;
  });
  return { applied, total: files.length };
}

/** Migrations in the folder that the database has not applied yet (0 when up to date). */
export async function pendingMigrations(db: Database, folder = MIGRATIONS_FOLDER): Promise<number> {
  const files = readMigrationFiles({ migrationsFolder: folder });
  const [exists] = await queryRows<{ present: boolean }>(
    db,
    sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`,
  );
  if (!exists?.present) return files.length;
  const [last] = await db.select({ createdAt: max(migrations.createdAt) }).from(migrations);
  return pending(files, last?.createdAt ?? undefined).length;
}

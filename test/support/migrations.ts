import { MIGRATIONS_FOLDER } from '@engram/db';
import { readMigrationFiles } from 'drizzle-orm/migrator';

/** How many migrations are checked in (tests must not hard-code it). */
export const MIGRATION_COUNT = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length;

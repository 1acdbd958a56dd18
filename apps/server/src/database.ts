import type { Config } from '@engram/config';
import { createDb, databaseFault, probe, type DbHandle, type HealthLogger } from '@engram/db';

/** Raised when the database did not become reachable within ENGRAM_DB_STARTUP_WAIT_SECONDS. */
export class DatabaseWaitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseWaitError';
  }
}

/** Where DATABASE_URL points, without its credentials (for messages). */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'the DATABASE_URL server';
  }
}

/**
 * Opens the configured database with the configured limits, and on Postgres waits for it to accept
 * connections: retries with backoff (0.5 s doubling to 5 s) for up to ENGRAM_DB_STARTUP_WAIT_SECONDS,
 * saying each time what it is waiting for, then gives up with a message naming DATABASE_URL.
 * Errors that retrying cannot fix (a wrong password, a missing database) stop at once.
 */
export async function openDatabase(
  config: Config,
  log: HealthLogger & { error?(obj: object, msg?: string): void },
  options: { wait?: boolean; waitSeconds?: number } = {},
): Promise<DbHandle> {
  const handle = await createDb(config.database, { limits: config.databaseLimits, log });
  if (config.database.kind !== 'postgres' || options.wait === false) return handle;
  const where = describeDatabaseUrl(config.database.url);
  const waitMs = (options.waitSeconds ?? config.databaseLimits.startupWaitSeconds) * 1_000;
  const started = Date.now();
  let delay = 500;
  for (let attempt = 1; ; attempt++) {
    try {
      await probe(handle.control);
      if (attempt > 1) log.info({ database: where, waited_ms: Date.now() - started }, 'the database is reachable');
      return handle;
    } catch (error) {
      const fault = databaseFault(error);
      const elapsed = Date.now() - started;
      if (!fault || fault.kind === 'disk_full') {
        await handle.close().catch(() => {});
        throw new DatabaseWaitError(`Could not open the database at ${where} (DATABASE_URL): ${(error as Error).message}. Check DATABASE_URL.`);
      }
      if (elapsed + delay > waitMs) {
        await handle.close().catch(() => {});
        throw new DatabaseWaitError(
          `The database at ${where} (DATABASE_URL) did not accept connections within ${Math.round(waitMs / 1000)} s ` +
            `(last error: ${fault.detail}). Check that it is running and that DATABASE_URL points at it; ` +
            'ENGRAM_DB_STARTUP_WAIT_SECONDS sets how long to wait.',
        );
      }
      log.warn({ database: where, attempt, cause: fault.detail, retry_in_ms: delay }, `waiting for the database at ${where} (DATABASE_URL)`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5_000);
    }
  }
}

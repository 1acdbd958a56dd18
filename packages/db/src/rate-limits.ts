import { sql } from 'drizzle-orm';
import { queryRows, type Database } from './client.ts';

/** The state of one fixed window after counting a hit. */
export interface WindowCount {
  count: number;
  windowStart: Date;
  windowEnd: Date;
}

/**
 * Counts one hit against `key` in the current fixed window of `windowSeconds` and returns the
 * count so far, atomically across instances (one upsert on an unlogged table).
 */
export async function countHit(
  db: Database,
  params: { key: string; windowSeconds: number; workspaceId?: string | null; now?: Date; weight?: number },
): Promise<WindowCount> {
  const now = params.now ?? new Date();
  const windowMs = params.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const windowEnd = new Date(windowStart.getTime() + windowMs);
  const [row] = await queryRows<{ count: number }>(
    db,
    sql`insert into rate_limit_counters (key, window_start, workspace_id, count, expires_at)
        values (${params.key}, ${windowStart.toISOString()}::timestamptz, ${params.workspaceId ?? null},
                ${params.weight ?? 1}, ${windowEnd.toISOString()}::timestamptz)
        on conflict (key, window_start) do update set count = rate_limit_counters.count + excluded.count
        returning count`,
  );
  return { count: Number(row?.count ?? 0), windowStart, windowEnd };
}

/** Drops counters of windows that have ended (maintenance). */
export async function purgeRateLimitCounters(db: Database, now = new Date()): Promise<number> {
  const rows = await queryRows<{ key: string }>(
    db,
    sql`delete from rate_limit_counters where expires_at < ${now.toISOString()}::timestamptz returning key`,
  );
  return rows.length;
}

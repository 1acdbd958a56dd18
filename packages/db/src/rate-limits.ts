import { lt, lte, sql } from 'drizzle-orm';
import { queryRows, type Database } from './database.ts';
import { rateLimitCounters } from './schema.ts';
import { increment } from './values.ts';

/** The state of one fixed window after counting a hit. */
export interface WindowCount {
  count: number;
  windowStart: Date;
  windowEnd: Date;
}

/**
 * Counts one hit against `key` in the current fixed window of `windowSeconds` and returns the
 * count so far, atomically across instances (one upsert on an unlogged table, as in countHits).
 */
export async function countHit(
  db: Database,
  params: { key: string; windowSeconds: number; workspaceId?: string | null; now?: Date; weight?: number },
): Promise<WindowCount> {
  const now = params.now ?? new Date();
  const windowMs = params.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const windowEnd = new Date(windowStart.getTime() + windowMs);
  const counts = await countHits(db, [
    { key: params.key, windowStart, windowSeconds: params.windowSeconds, workspaceId: params.workspaceId ?? null, weight: params.weight ?? 1 },
  ]);
  return { count: counts.get(params.key) ?? 0, windowStart, windowEnd };
}

/**
 * Counts `weight` hits against `key` in the current window only if the count stays within `limit`,
 * in one statement: the row's lock makes the check and the count one step, so instances admitting
 * at the same moment can never pass the limit together. Returns the window and whether the hits
 * were admitted (a refused hit is not counted).
 */
export async function admitHit(
  db: Database,
  params: { key: string; windowSeconds: number; limit: number; workspaceId?: string | null; now?: Date; weight?: number },
): Promise<WindowCount & { admitted: boolean }> {
  const now = params.now ?? new Date();
  const windowMs = params.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const windowEnd = new Date(windowStart.getTime() + windowMs);
  const weight = params.weight ?? 1;
  if (weight > params.limit) return { admitted: false, count: params.limit, windowStart, windowEnd }; // never admitted, so never counted
  const [row] = await db
    .insert(rateLimitCounters)
    .values({ key: params.key, windowStart, workspaceId: params.workspaceId ?? null, count: weight, expiresAt: windowEnd })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.windowStart],
      set: { count: increment(rateLimitCounters.count, weight) },
      setWhere: lte(rateLimitCounters.count, params.limit - weight),
    })
    .returning({ count: rateLimitCounters.count });
  return { admitted: row !== undefined, count: row ? Number(row.count) : params.limit, windowStart, windowEnd };
}

/** Hits to add to one counter's window, for {@link countHits}. */
export interface CounterHits {
  key: string;
  windowStart: Date;
  windowSeconds: number;
  workspaceId: string | null;
  weight: number;
}

/**
 * Adds hits to many counters in one statement (an instance's background sync: one round trip
 * however many tokens and agents it saw) and returns each counter's count so far, by key. Rows
 * are written in key order, so two instances syncing the same counters lock them in the same
 * order. Each counter (key and window) may appear once; the counts come back by key, so a caller
 * that reads them passes each key once.
 */
export async function countHits(db: Database, hits: readonly CounterHits[]): Promise<Map<string, number>> {
  if (hits.length === 0) return new Map();
  const rows = [...hits]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((h) => ({
      key: h.key,
      window_start: h.windowStart.toISOString(),
      workspace_id: h.workspaceId,
      weight: h.weight,
      expires_at: new Date(h.windowStart.getTime() + h.windowSeconds * 1000).toISOString(),
    }));
  const counted = await queryRows<{ key: string; count: number }>(
    db,
    sql`insert into rate_limit_counters (key, window_start, workspace_id, count, expires_at)
        select r.key, r.window_start, r.workspace_id, r.weight, r.expires_at
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as r(key text, window_start timestamptz, workspace_id uuid, weight int, expires_at timestamptz)
        on conflict (key, window_start) do update set count = rate_limit_counters.count + excluded.count
        returning key, count`,
  );
  return new Map(counted.map((row) => [row.key, Number(row.count)]));
}

/** Drops counters of windows that have ended (maintenance). */
export async function purgeRateLimitCounters(db: Database, now = new Date()): Promise<number> {
  const rows = await db.delete(rateLimitCounters).where(lt(rateLimitCounters.expiresAt, now)).returning({ key: rateLimitCounters.key });
  return rows.length;
}

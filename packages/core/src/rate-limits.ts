/**
 * Rate limits (SPEC §3), counted in Postgres so every instance shares them: commits per agent per
 * hour and requests per token per minute (workspace settings), and requests per address per
 * minute for callers without a token. Over a limit: `rate_limited` with `retry_after_seconds`.
 *
 * A database round trip per request would cost every call ~0.3 ms, so each instance counts hits
 * locally while it is far below a limit and its view of the shared count is fresh, and adds them
 * to the shared counter in the background (every `syncMs`). Near a limit, or with a stale view,
 * the hit is counted in the database before the request proceeds, so limits hold exactly where it
 * matters; far below them, other instances' hits are known within a second. Limits on what gets
 * stored (commits per agent, workspaces per address) are never admitted on a local count: hits are
 * checked and counted in the shared counter in one statement (`admitHit`), so instances cannot
 * pass them together. Far below such a limit an instance reserves a few hits at once and admits
 * them one by one (see RESERVE_SHARE); near it, every hit is checked and counted on its own.
 */
import { admitHit, countHit, countHits, databaseFault, healthOf, withinDeadline, type CounterHits, type Database } from '@engram/db';
import type { Principal } from './auth.ts';
import { EngramError } from './errors.ts';
import type { Logger } from './logger.ts';
import { DEFAULT_SETTINGS } from './management.ts';

/** Limits for callers without a member token (configuration, not workspace settings). */
export interface AnonymousLimits {
  /** Requests per minute from one address. */
  requestsPerMinute: number;
  /** Workspaces one address may create per hour through open signup. */
  signupsPerHour: number;
}

export const DEFAULT_ANONYMOUS_LIMITS: AnonymousLimits = { requestsPerMinute: 60, signupsPerHour: 5 };

interface Rule {
  key: string;
  windowSeconds: number;
  limit: number;
  workspaceId?: string | null;
  what: string;
  /** How many hits this is (a JSON-RPC batch counts each call); 1 by default. */
  weight?: number;
  /**
   * Admitted only by the shared counter, checked and counted in one statement, never on this
   * instance's own count: for limits on what is stored (commits, workspaces), which two instances
   * must not pass together even by one. A database fault refuses the hit (the caller retries).
   */
  exact?: boolean;
}

interface Counter {
  windowStart: number;
  windowSeconds: number;
  workspaceId: string | null;
  /** Shared count as of the last database round trip (all instances). */
  synced: number;
  /**
   * Hits to add to the shared count at the next sync: admitted here and not yet counted there, or
   * (negative) reserved hits given back unused.
   */
  pending: number;
  syncedAt: number;
  /** Exact hits counted in the shared counter for this instance and not yet admitted (a reservation). */
  reserved: number;
  /** When this instance last admitted an exact hit of this counter from its reservation. */
  usedAt: number;
  /** The reservation being made, which this instance's other hits of the counter wait for. */
  reserving?: Promise<void>;
}

/** Refused until the window ends (at `windowEndMs`): retry after the seconds left of it, at least one. */
function limited(what: string, windowEndMs: number, now: number): EngramError {
  const retryAfterSeconds = Math.max(1, Math.ceil((windowEndMs - now) / 1000));
  return new EngramError('rate_limited', `Rate limit reached: ${what}. Retry in ${retryAfterSeconds} s.`, {
    retry_after_seconds: retryAfterSeconds,
  });
}

/**
 * Longest a request waits for the shared counter before this instance decides on its own count:
 * long enough that a merely busy database (a detection run ahead of it on the embedded one) is
 * waited for, short enough to leave most of the request deadline to the request itself.
 */
const SHARED_COUNT_WAIT_MS = 5_000;

/**
 * Limits below this are counted exactly: every hit goes to the shared counter. Local admission lets
 * each instance admit up to `localFraction` of the limit before its hits reach the shared count, so
 * with a small limit two instances together could pass it (a limit of 4 admitted a fifth request).
 */
const LOCAL_ADMISSION_MIN_LIMIT = 20;

/**
 * How much of what is left of an exact limit one instance may reserve at once: 16 at most (so a
 * busy agent's commits reach the database once in 16), and a tenth of the room left in the window,
 * so a reservation is never more than 1 hit once fewer than 20 remain, and every hit near the limit
 * is checked and counted on its own. What a reservation costs is that another instance may refuse
 * a hit while this one still holds reserved hits it has not used: at most 16, and only until this
 * one gives them back (after `freshMs` without using them, at its next sync, or when it closes).
 */
const RESERVE_SHARE = 0.1;
const MAX_RESERVATION = 16;

/** Shared fixed-window counters with local admission far below the limits. */
export class RateLimiter {
  private readonly counters = new Map<string, Counter>();
  /** Hits admitted here in windows that have ended, not yet added to their shared counters. */
  private owed: [string, Counter, number][] = [];
  private readonly timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly db: Database;
  private readonly log: Logger | undefined;
  /** Admit locally while the estimate stays under this fraction of the limit. */
  private readonly localFraction: number;
  /** A view of the shared count older than this is refreshed before admitting. */
  private readonly freshMs: number;

  constructor(db: Database, options: { syncMs?: number; localFraction?: number; freshMs?: number; log?: Logger } = {}) {
    this.db = db;
    this.log = options.log;
    this.localFraction = options.localFraction ?? 0.5;
    this.freshMs = options.freshMs ?? 1000;
    const syncMs = options.syncMs ?? 250;
    if (syncMs > 0) {
      this.timer = setInterval(() => void this.flush(), syncMs);
      this.timer.unref();
    }
  }

  /** Counts one hit; throws `rate_limited` when the shared count is over the limit. */
  async hit(rule: Rule, now = Date.now()): Promise<void> {
    const windowMs = rule.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    let counter = this.counters.get(rule.key);
    if (!counter || counter.windowStart !== windowStart) {
      // A new window: what the ended one admitted locally is still owed to its shared counter.
      if (counter && counter.pending > 0) {
        this.owed.push([rule.key, counter, counter.pending]);
        counter.pending = 0;
      }
      counter = { windowStart, windowSeconds: rule.windowSeconds, workspaceId: rule.workspaceId ?? null, synced: 0, pending: 0, syncedAt: 0, reserved: 0, usedAt: 0 };
      this.counters.set(rule.key, counter);
    }
    const hits = rule.weight ?? 1;
    if (rule.exact) return this.#admitExact(rule, counter, hits, now);
    const estimate = counter.synced + counter.pending + hits;
    if (rule.limit >= LOCAL_ADMISSION_MIN_LIMIT && estimate <= rule.limit * this.localFraction && now - counter.syncedAt < this.freshMs) {
      counter.pending += hits;
      return;
    }
    const weight = counter.pending + hits;
    counter.pending = 0;
    let window: Awaited<ReturnType<typeof countHit>>;
    try {
      window = await withinDeadline(
        countHit(this.db, { key: rule.key, windowSeconds: rule.windowSeconds, workspaceId: rule.workspaceId, now: new Date(now), weight }),
        SHARED_COUNT_WAIT_MS,
        'the shared rate-limit counter',
      );
    } catch (error) {
      // The database is away or slow: the request is not held for the counter. This instance
      // admits up to the limit on its own count (and syncs the hits later); other instances'
      // hits are missed until then.
      if (!healthOf(this.db)?.report(error) && !databaseFault(error)) throw error;
      counter.pending += weight;
      if (counter.synced + counter.pending > rule.limit) throw limited(rule.what, windowStart + windowMs, now);
      return;
    }
    counter.synced = window.count;
    counter.syncedAt = now;
    if (window.count > rule.limit) {
      throw limited(rule.what, window.windowEnd.getTime(), now);
    }
  }

  /**
   * An exact hit: admitted from this instance's reservation, else counted in the shared counter
   * with the next reservation in one statement, and refused when even the hit alone would pass the
   * limit. An instance makes one reservation of a counter at a time; its other hits wait for it.
   */
  async #admitExact(rule: Rule, counter: Counter, hits: number, now: number): Promise<void> {
    while (counter.reserved < hits && counter.reserving) await counter.reserving;
    if (counter.reserved < hits) {
      const reservation = this.#reserve(rule, counter, hits, now);
      counter.reserving = reservation.then(() => undefined, () => undefined);
      try {
        const refusal = await reservation;
        if (refusal) throw refusal;
      } finally {
        counter.reserving = undefined;
      }
    }
    counter.reserved -= hits;
    counter.usedAt = now;
  }

  /**
   * Counts this instance's next reservation of an exact counter in the shared counter (see RESERVE_SHARE), or the
   * hits alone when it does not fit; the refusal when even they do not.
   */
  async #reserve(rule: Rule, counter: Counter, hits: number, now: number): Promise<EngramError | undefined> {
    const block = Math.max(hits, Math.min(MAX_RESERVATION, Math.floor((rule.limit - counter.synced) * RESERVE_SHARE)));
    const admit = (weight: number) =>
      admitHit(this.db, { key: rule.key, windowSeconds: rule.windowSeconds, limit: rule.limit, workspaceId: rule.workspaceId, now: new Date(now), weight });
    let [window, weight] = [await admit(block), block];
    if (!window.admitted && block > hits) [window, weight] = [await admit(hits), hits];
    counter.synced = window.count;
    counter.syncedAt = now;
    if (!window.admitted) return limited(rule.what, window.windowEnd.getTime(), now);
    counter.reserved += weight;
    return undefined;
  }

  /**
   * Adds locally admitted hits to the shared counters, gives back reservations unused for
   * `freshMs` (all of them with `everything`), and refreshes this instance's view, all counters in
   * one statement.
   */
  flush(everything = false): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const now = Date.now();
      const due: [string, Counter, number][] = [];
      for (const [key, counter] of this.counters) {
        const ended = counter.windowStart + counter.windowSeconds * 1000 <= now;
        if (counter.reserved > 0 && !counter.reserving && (everything || ended || now - counter.usedAt >= this.freshMs)) {
          // A window that has ended admits nothing more: what it holds is not given back to it.
          if (!ended) counter.pending -= counter.reserved;
          counter.reserved = 0;
        }
        if (counter.pending !== 0) {
          due.push([key, counter, counter.pending]);
          counter.pending = 0;
        } else if (ended) {
          this.counters.delete(key);
        }
      }
      await this.#settleOwed();
      if (due.length === 0) return;
      let counts: Map<string, number>;
      try {
        counts = await countHits(
          this.db,
          due.map(([key, counter, weight]) => ({
            key,
            windowStart: new Date(counter.windowStart),
            windowSeconds: counter.windowSeconds,
            workspaceId: counter.workspaceId,
            weight,
          })),
        );
      } catch (error) {
        // Nothing was added: every hit waits for the next sync.
        for (const [, counter, weight] of due) counter.pending += weight;
        if (!healthOf(this.db)?.report(error)) this.log?.warn({ err: error }, 'rate-limit counters could not be synced; will retry');
        return;
      }
      for (const [key, counter] of due) {
        const count = counts.get(key);
        if (count === undefined) continue;
        counter.synced = count;
        counter.syncedAt = now;
      }
    });
    return this.flushing;
  }

  /** Adds the hits owed to windows that have ended (their counts no longer admit anything). */
  async #settleOwed(): Promise<void> {
    if (this.owed.length === 0) return;
    const owed = this.owed;
    this.owed = [];
    // One statement for every ended window (its counts are not needed), each counter once.
    const hits = new Map<string, CounterHits>();
    for (const [key, counter, weight] of owed) {
      const id = `${key}@${counter.windowStart}`;
      const known = hits.get(id);
      if (known) known.weight += weight;
      else hits.set(id, { key, windowStart: new Date(counter.windowStart), windowSeconds: counter.windowSeconds, workspaceId: counter.workspaceId, weight });
    }
    try {
      await countHits(this.db, [...hits.values()]);
    } catch (error) {
      // Nothing was added: they wait for the next sync.
      this.owed.unshift(...owed);
      if (!healthOf(this.db)?.report(error)) this.log?.warn({ err: error }, 'rate-limit counters could not be synced; will retry');
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush(true);
  }

  /**
   * One request by this caller (or `calls` of them: each message of a JSON-RPC batch counts):
   * per token per minute for members, per address otherwise.
   */
  request(principal: Principal, anonymous: AnonymousLimits = DEFAULT_ANONYMOUS_LIMITS, calls = 1): Promise<void> {
    if (principal.kind === 'member') {
      const limit = principal.settings.requests_per_token_per_minute ?? DEFAULT_SETTINGS.requests_per_token_per_minute;
      return this.hit({
        key: `token:${principal.tokenId}:requests`,
        windowSeconds: 60,
        limit,
        workspaceId: principal.workspaceId,
        what: `${limit} requests per minute for this token`,
        weight: calls,
      });
    }
    const address = principal.kind === 'anonymous' ? principal.address : `invite:${principal.inviteId}`;
    return this.hit({
      key: `address:${address}:requests`,
      windowSeconds: 60,
      limit: anonymous.requestsPerMinute,
      what: `${anonymous.requestsPerMinute} requests per minute without a member token`,
      weight: calls,
    });
  }

  /** One commit by an agent of a workspace (`commits_per_agent_per_hour`, default 50). */
  commit(params: { workspaceId: string; agentId: string; settings: { commits_per_agent_per_hour?: number } }): Promise<void> {
    const limit = params.settings.commits_per_agent_per_hour ?? DEFAULT_SETTINGS.commits_per_agent_per_hour;
    return this.hit({
      key: `agent:${params.workspaceId}:${params.agentId}:commits`,
      windowSeconds: 3600,
      limit,
      workspaceId: params.workspaceId,
      what: `${limit} commits per hour for agent "${params.agentId}" (workspace setting commits_per_agent_per_hour)`,
      exact: true,
    });
  }

  /** One workspace created through open signup from an address. */
  signup(address: string, anonymous: AnonymousLimits = DEFAULT_ANONYMOUS_LIMITS): Promise<void> {
    return this.hit({
      key: `address:${address}:signups`,
      windowSeconds: 3600,
      limit: anonymous.signupsPerHour,
      what: `${anonymous.signupsPerHour} new workspaces per hour from one address`,
      exact: true,
    });
  }
}

import { expireFacts, reextractFacts, type Embedder, type Logger } from '@engram/core';
import { purgeIdempotencyKeys, refreshStatistics, type Database } from '@engram/db';

/**
 * Background upkeep of one process: closing expired facts, re-extracting entities of facts stored
 * by an older extractor, forgetting old idempotency keys, keeping planner statistics fresh. Safe to run on every instance.
 */
export interface Maintenance {
  /** Runs one sweep now (also used by tests). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Closes the windows of facts whose TTL ran out, at start and then every `intervalMs`, so they stop
 * being current without anyone querying them (queries also filter on `expires_at`, so nothing
 * expired is ever served in between).
 */
export function startMaintenance(options: { db: Database; embedder: Embedder; log: Logger; intervalMs?: number }): Maintenance {
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = running.then(async () => {
      try {
        const expired = await expireFacts(options.db);
        if (expired > 0) options.log.info({ expired }, 'expired facts closed');
        // A bounded share per sweep: a large backlog is worked off over a few minutes.
        const reextracted = await reextractFacts(options.db, { maxFacts: 5_000 });
        if (reextracted > 0) options.log.info({ reextracted }, 'entities re-extracted with the current extractor');
        const forgotten = await purgeIdempotencyKeys(options.db);
        if (forgotten > 0) options.log.info({ forgotten }, 'old idempotency keys forgotten');
        const analyzed = await refreshStatistics(options.db);
        if (analyzed.length > 0) options.log.info({ tables: analyzed }, 'planner statistics refreshed');
      } catch (error) {
        options.log.error({ err: error }, 'maintenance sweep failed');
      }
    });
    return running;
  };
  void tick();
  const timer = setInterval(() => void tick(), options.intervalMs ?? 60_000);
  timer.unref();
  return {
    tick,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

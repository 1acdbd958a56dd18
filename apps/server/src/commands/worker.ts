import type { Config } from '@engram/config';
import { createDetective, startDetectionWorker } from '@engram/core';
import { migrate } from '@engram/db';
import { openDatabase } from '../database.ts';
import { parseArgs } from 'node:util';
import { createLogger } from '../logger.ts';

const STOP_TIMEOUT_MS = 30_000;

/**
 * `engram worker`: detection workers as a process of their own, next to services started with
 * ENGRAM_IN_PROCESS_WORKER=false (which then only enqueue). Any number of these may run against
 * one database; a job is only ever run by one of them. Runs until SIGINT/SIGTERM, then finishes
 * the runs in progress (an interrupted run is not lost either way: its lease lapses within
 * ENGRAM_DETECTION_LEASE_SECONDS and another worker takes it over, at once if it runs on this host).
 */
export async function workerCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { concurrency: { type: 'string', default: '1' } } });
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) {
    process.stderr.write(`--concurrency must be a whole number from 1 to 32 (got "${values.concurrency}").\n`);
    return 2;
  }
  if (config.database.kind !== 'postgres') {
    process.stderr.write(
      'engram worker needs DATABASE_URL (a Postgres server): the embedded database in ENGRAM_DATA_DIR can only be ' +
        'opened by one process, and `engram start` already runs detection in-process there.\n',
    );
    return 2;
  }
  const logger = createLogger(config);
  const db = await openDatabase(config, logger);
  await migrate(db.db);
  const detective = createDetective(config);
  const workers = Array.from({ length: concurrency }, () =>
    startDetectionWorker({ db: db.background, log: logger, detective }, { leaseMs: config.detectionLeaseMs }),
  );
  logger.info({ workers: workers.map((w) => w.workerId), narrative: detective ? config.openai.detectiveModel : 'off' }, 'detection workers started');
  process.stdout.write(`Detection workers running: ${workers.map((w) => w.workerId).join(', ')}. Stop with Ctrl-C.\n`);

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  logger.info('stopping detection workers: finishing runs in progress');
  const timer = setTimeout(() => {
    logger.error('workers did not stop in time; exiting (unfinished runs will be taken over)');
    process.exit(1);
  }, STOP_TIMEOUT_MS);
  timer.unref();
  await Promise.all(workers.map((w) => w.stop()));
  await db.close();
  return 0;
}

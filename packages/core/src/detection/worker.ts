/**
 * Detection workers (SPEC §6): poll the job queue, claim a workspace's due jobs as one run, run
 * it, and complete or fail it. Any number of workers may run against one database — in the service
 * process (the default) or as `engram worker` processes.
 */
import { randomUUID } from 'node:crypto';
import { claimDetectionRun, completeRun, failRun, renewLease, type ClaimedRun, type Database, type RunStats } from '@engram/db';
import type { Logger } from '../logger.ts';
import type { NarrativeDetective } from './narrative/pass.ts';
import { runDetection } from './run.ts';

export interface DetectionWorkerOptions {
  db: Database;
  log: Logger;
  /** Runs one claimed run and reports what it did. */
  run: (claimed: ClaimedRun) => Promise<RunStats>;
  workerId?: string;
  /** Idle polling interval. */
  pollMs?: number;
  /** A workspace's jobs wait until it has been quiet this long (one run per burst of commits)... */
  debounceMs?: number;
  /** ...but at most this long after the oldest. */
  maxWaitMs?: number;
  /** A run's lease; renewed every third of it while the run lasts. */
  leaseMs?: number;
  /** Attempts before a job is given up as failed. */
  maxAttempts?: number;
  /** Claim only this workspace's runs (detecting one workspace on demand); every workspace's otherwise. */
  workspaceId?: string;
}

export class DetectionWorker {
  readonly workerId: string;
  private readonly options: Required<Omit<DetectionWorkerOptions, 'workerId' | 'workspaceId'>> & Pick<DetectionWorkerOptions, 'workspaceId'>;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(options: DetectionWorkerOptions) {
    this.workerId = options.workerId ?? `worker-${randomUUID().slice(0, 8)}`;
    this.options = {
      db: options.db,
      log: options.log,
      run: options.run,
      pollMs: options.pollMs ?? 250,
      debounceMs: options.debounceMs ?? 300,
      maxWaitMs: options.maxWaitMs ?? 3_000,
      leaseMs: options.leaseMs ?? 60_000,
      maxAttempts: options.maxAttempts ?? 5,
      workspaceId: options.workspaceId,
    };
  }

  /** Claims and processes one run if one is due; returns it, or null when there was nothing to do. */
  async runOnce(): Promise<ClaimedRun | null> {
    const { db, log, leaseMs } = this.options;
    const claimed = await claimDetectionRun(db, {
      workerId: this.workerId,
      debounceMs: this.options.debounceMs,
      maxWaitMs: this.options.maxWaitMs,
      leaseMs,
      ...(this.options.workspaceId ? { workspaceId: this.options.workspaceId } : {}),
    });
    if (!claimed) return null;
    const heartbeat = setInterval(() => {
      renewLease(db, claimed.runId, leaseMs).catch((error: unknown) => log.warn({ err: error, run_id: claimed.runId }, 'lease renewal failed'));
    }, Math.max(100, Math.floor(leaseMs / 3)));
    heartbeat.unref();
    try {
      const stats = await this.options.run(claimed);
      await completeRun(db, claimed.runId, stats);
    } catch (error) {
      log.error({ err: error, run_id: claimed.runId, workspace_id: claimed.workspaceId, attempt: claimed.attempt }, 'detection run failed');
      await failRun(db, claimed.runId, error instanceof Error ? error.message : String(error), {
        maxAttempts: this.options.maxAttempts,
        stats: (error as { stats?: Partial<RunStats> }).stats,
      }).catch((failure: unknown) => log.error({ err: failure, run_id: claimed.runId }, 'could not record the failed run'));
    } finally {
      clearInterval(heartbeat);
    }
    return claimed;
  }

  /** Polls until stopped. */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = (async () => {
      while (!this.stopping) {
        let didWork = false;
        try {
          didWork = (await this.runOnce()) !== null;
        } catch (error) {
          this.options.log.error({ err: error }, 'detection worker poll failed');
        }
        if (!didWork && !this.stopping) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, this.options.pollMs);
            this.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wake = null;
        }
      }
    })();
  }

  /** Stops polling and waits for the run in progress (if any) to finish. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }
}

/**
 * A worker that runs the detection passes (the deterministic tiers; the narrative detective joins
 * them when configured) and starts polling. The service starts one in-process; `engram worker`
 * starts them on their own.
 */
export function startDetectionWorker(
  services: { db: Database; log: Logger; detective?: NarrativeDetective },
  options: Omit<DetectionWorkerOptions, 'db' | 'log' | 'run'> = {},
): DetectionWorker {
  const worker = new DetectionWorker({
    ...options,
    db: services.db,
    log: services.log,
    run: (claimed) => runDetection(services, claimed),
  });
  worker.start();
  return worker;
}

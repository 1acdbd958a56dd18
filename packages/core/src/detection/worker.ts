/**
 * Detection workers (SPEC §6): poll the job queue, claim a workspace's due jobs as one run, run
 * it, and complete or fail it. Any number of workers may run against one database — in the service
 * process (the default) or as `engram worker` processes.
 *
 * Nothing is dropped when a process or the database goes away. A run's lease is short (15 s by
 * default) and renewed every third of it while the run lasts, so the lease of a holder that died
 * lapses within seconds; where a holder is known to be gone its runs are released at once (see
 * {@link holderGone}). A run the database failed gives its attempt back and is retried with backoff
 * for as long as the outage lasts; only runs that fail for their own reasons use up attempts.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import {
  claimDetectionRun,
  completeRun,
  controlOf,
  databaseFault,
  failRun,
  releaseInterruptedRuns,
  renewLease,
  withinDeadline,
  type ClaimedRun,
  type Database,
  type RunStats,
} from '@engram/db';
import type { Logger } from '../logger.ts';
import type { NarrativeDetective } from './narrative/pass.ts';
import { runDetection } from './run.ts';

/** A run's lease unless configured (ENGRAM_DETECTION_LEASE_SECONDS): a dead holder's lapses this soon. */
export const DEFAULT_LEASE_MS = 15_000;
/** Longest pause between polls while the database keeps failing them. */
const MAX_POLL_BACKOFF_MS = 5_000;
/** Longest pause between attempts to record a run's outcome while the database is away. */
const MAX_SETTLE_BACKOFF_MS = 5_000;

export interface DetectionWorkerOptions {
  db: Database;
  log: Logger;
  /** Runs one claimed run and reports what it did. */
  run: (claimed: ClaimedRun) => Promise<RunStats>;
  /** Defaults to an id naming this process (see {@link newWorkerId}), so its runs can be recognised after it is gone. */
  workerId?: string;
  /** Idle polling interval. */
  pollMs?: number;
  /** A workspace's jobs wait until it has been quiet this long (one run per burst of commits)... */
  debounceMs?: number;
  /** ...but at most this long after the oldest. */
  maxWaitMs?: number;
  /** A run's lease; renewed every third of it while the run lasts (default {@link DEFAULT_LEASE_MS}). */
  leaseMs?: number;
  /** Attempts before a job is given up as failed (runs the database failed use up none). */
  maxAttempts?: number;
  /** Claim only this workspace's runs (detecting one workspace on demand); every workspace's otherwise. */
  workspaceId?: string;
  /**
   * No other process can use this database (the embedded one: one process owns its data
   * directory). A run still marked running that none of this process's workers holds was then cut
   * off by a crash or a kill, and is released when the worker starts instead of waiting out its lease.
   */
  exclusive?: boolean;
}

// --- Which process holds a run ------------------------------------------------------------------

/**
 * This process as worker ids name it. `scope` names the PID namespace of one running kernel (a
 * hash of the kernel's boot id and the namespace's inode): two processes with the same scope see
 * the same pids, so one can tell for certain whether the other's pid is still alive. Without
 * /proc (not Linux) it is `-`, and only leases tell.
 */
const PROCESS = {
  host: os.hostname().replace(/[^A-Za-z0-9.-]/g, '-') || 'localhost',
  pid: process.pid,
  scope: pidScope(),
  instance: randomUUID().replace(/-/g, '').slice(0, 8),
};
let workersCreated = 0;
/** Worker ids of this process's workers that have not stopped (custom ids included). */
const liveWorkerIds = new Set<string>();

function pidScope(): string {
  try {
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const namespace = fs.readlinkSync('/proc/self/ns/pid');
    return createHash('sha256').update(`${boot} ${namespace}`).digest('hex').slice(0, 12);
  } catch {
    return '-';
  }
}

/**
 * `worker-<instance>.<n>@<host>:<pid>:<scope>`, e.g. `worker-3fa2b1c0.1@fly-abc:712:5f2a9c1d04e3` —
 * readable in the runs table and the logs, and enough to tell when its process is gone.
 */
export function newWorkerId(): string {
  return `worker-${PROCESS.instance}.${++workersCreated}@${PROCESS.host}:${PROCESS.pid}:${PROCESS.scope}`;
}

/** instance, n, host, pid, scope */
const WORKER_ID = /^worker-([0-9a-f]{8})\.(\d+)@(.+):(\d+):([0-9a-f]{12}|-)$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Why the process that holds a run (by its worker id) is certainly gone, or undefined while it may
 * be alive (then only its lease tells). Certain are: on an `exclusive` database, any holder that is
 * not a live worker of this process; elsewhere, a holder in this process's PID namespace on this
 * running kernel whose pid is gone, or is this process's own pid under another instance (this
 * process restarted with the pid its predecessor had). A holder on another machine, in another
 * container, or before a reboot is not known to be gone: its lease lapses within seconds instead.
 */
export function holderGone(workerId: string | null, options: { exclusive: boolean }): string | undefined {
  if (workerId !== null && liveWorkerIds.has(workerId)) return undefined;
  const parsed = workerId === null ? null : WORKER_ID.exec(workerId);
  if (parsed?.[1] === PROCESS.instance) return undefined; // a worker of this process
  if (options.exclusive) {
    return `the process that ran it stopped before it finished (worker ${workerId ?? 'unknown'}; the embedded database is used by one process at a time); its jobs were requeued at start`;
  }
  if (!parsed || parsed[5] === '-' || parsed[5] !== PROCESS.scope) return undefined;
  const [, , , host, pidText] = parsed;
  const pid = Number(pidText);
  if (pid === PROCESS.pid) return `its worker process (pid ${pid} on ${host}) restarted before the run finished; its jobs were requeued at once`;
  if (!processAlive(pid)) return `its worker process (pid ${pid} on ${host}) is gone; its jobs were requeued at once`;
  return undefined;
}

// --- The worker ---------------------------------------------------------------------------------

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class DetectionWorker {
  readonly workerId: string;
  private readonly options: Required<Omit<DetectionWorkerOptions, 'workerId' | 'workspaceId'>> & Pick<DetectionWorkerOptions, 'workspaceId'>;
  private stopping = false;
  private loop: Promise<void> | null = null;
  /** Ends the current pause early (stop). */
  private wake: (() => void) | null = null;
  /** Polls that failed in a row (the database is away, or a bug). */
  private pollFailures = 0;

  constructor(options: DetectionWorkerOptions) {
    this.workerId = options.workerId ?? newWorkerId();
    this.options = {
      db: options.db,
      log: options.log,
      run: options.run,
      pollMs: options.pollMs ?? 250,
      debounceMs: options.debounceMs ?? 300,
      maxWaitMs: options.maxWaitMs ?? 3_000,
      leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
      maxAttempts: options.maxAttempts ?? 5,
      exclusive: options.exclusive ?? false,
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
    const context = { run_id: claimed.runId, workspace_id: claimed.workspaceId, attempt: claimed.attempt };
    const heartbeat = this.heartbeat(claimed);
    try {
      let stats: RunStats;
      try {
        stats = await this.options.run(claimed);
      } catch (error) {
        await this.recordFailure(claimed, error);
        return claimed;
      }
      const finished = await this.settle(claimed, 'record the finished run', () => completeRun(db, claimed.runId, stats));
      if (finished === false) log.warn(context, 'detection run finished after another worker took it over; its jobs are that worker\'s now');
    } catch (error) {
      // Recording the outcome failed for a reason other than the database being away (a bug).
      log.error({ err: error, ...context }, 'could not record the detection run');
    } finally {
      heartbeat.stop();
    }
    return claimed;
  }

  /** Records a failed run: a database fault gives its attempt back and backs off; anything else uses one up. */
  private async recordFailure(claimed: ClaimedRun, error: unknown): Promise<void> {
    const { db, log, maxAttempts } = this.options;
    const context = { run_id: claimed.runId, workspace_id: claimed.workspaceId, attempt: claimed.attempt };
    const fault = databaseFault(error);
    const stats = (error as { stats?: Partial<RunStats> } | null)?.stats;
    const message = fault ? `database fault (${fault.kind}): ${fault.message}` : messageOf(error);
    if (!fault) log.error({ err: error, ...context }, 'detection run failed');
    const outcome = await this.settle(claimed, 'record the failed run', () =>
      failRun(db, claimed.runId, message, { maxAttempts, databaseFault: Boolean(fault), ...(stats ? { stats } : {}) }),
    );
    if (fault && outcome?.retryInMs != null) {
      log.warn(
        { ...context, kind: fault.kind, cause: fault.detail, retry_in_ms: outcome.retryInMs },
        `detection run failed because the database did (${fault.kind}); its jobs are retried in ${Math.ceil(outcome.retryInMs / 1000)} s without using an attempt`,
      );
    }
  }

  /**
   * Runs `record` until it succeeds, retrying while the database is away (0.5 s doubling to 5 s)
   * so a run's outcome is recorded as soon as it is back. Gives up only when the worker stops; the
   * run is then released at the next start (embedded) or when its lease lapses. Other errors throw.
   */
  private async settle<T>(claimed: ClaimedRun, what: string, record: () => Promise<T>): Promise<T | undefined> {
    let delay = 500;
    for (let attempt = 1; ; attempt++) {
      try {
        return await record();
      } catch (error) {
        const fault = databaseFault(error);
        if (!fault) throw error;
        if (this.stopping) {
          this.options.log.warn({ run_id: claimed.runId, cause: fault.detail }, `could not ${what}: the database is away and the worker is stopping; the run will be taken over`);
          return undefined;
        }
        if (attempt === 1) {
          this.options.log.warn({ run_id: claimed.runId, kind: fault.kind, cause: fault.detail }, `could not ${what}: the database is away; retrying until it is back`);
        }
        await this.pause(delay);
        delay = Math.min(delay * 2, MAX_SETTLE_BACKOFF_MS);
      }
    }
  }

  /**
   * Renews the run's lease every third of it. A renewal that fails is retried within a second (and
   * never ends the run): a lease lapses only after several renewals in a row failed. Each renewal
   * gets at most the renewal interval, so a stalled connection cannot hold the next one back, and
   * goes through the control pool (on Postgres), so it never queues behind the run's own statements.
   */
  private heartbeat(claimed: ClaimedRun): { stop(): void } {
    const { db, log, leaseMs } = this.options;
    const interval = Math.max(100, Math.floor(leaseMs / 3));
    const retry = Math.max(50, Math.min(1_000, Math.floor(leaseMs / 10)));
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    let failures = 0;
    const beat = async () => {
      let held = true;
      try {
        held = await withinDeadline(renewLease(controlOf(db), claimed.runId, leaseMs), interval, 'lease renewal');
        if (failures > 0) log.info({ run_id: claimed.runId, failed_renewals: failures }, 'lease renewed again');
        failures = 0;
        if (!held) log.warn({ run_id: claimed.runId, workspace_id: claimed.workspaceId }, 'lost the run\'s lease: another worker took it over or it was released');
      } catch (error) {
        if (failures++ === 0) log.warn({ err: error, run_id: claimed.runId }, 'lease renewal failed; retrying (the run goes on)');
      }
      if (stopped || !held) return;
      timer = setTimeout(() => void beat(), failures > 0 ? retry : interval);
      timer.unref();
    };
    timer = setTimeout(() => void beat(), interval);
    timer.unref();
    return {
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  /** Releases the runs of holders known to be gone (see {@link holderGone}); never throws. */
  async releaseInterrupted(): Promise<void> {
    const { exclusive } = this.options;
    try {
      const released = await releaseInterruptedRuns(this.options.db, (holder) => holderGone(holder, { exclusive }));
      if (released.runs > 0) {
        this.options.log.warn(
          { runs: released.runs, jobs: released.jobs },
          'detection runs cut off by a stopped process were released; their jobs run again now',
        );
      }
    } catch (error) {
      // The next sweep tries again; until then the leases still protect the jobs.
      if (!databaseFault(error)) this.options.log.error({ err: error }, 'could not release interrupted detection runs');
    }
  }

  /** Polls until stopped. */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    liveWorkerIds.add(this.workerId);
    this.loop = (async () => {
      // Released at start (on the embedded database, everything a previous process left), then
      // every lease period (a sibling process on this host that died).
      let nextSweep = 0;
      try {
        while (!this.stopping) {
          if (Date.now() >= nextSweep) {
            await this.releaseInterrupted();
            nextSweep = Date.now() + this.options.leaseMs;
          }
          let didWork = false;
          try {
            didWork = (await this.runOnce()) !== null;
            this.pollSucceeded();
          } catch (error) {
            this.pollFailed(error);
          }
          if (!didWork && !this.stopping) {
            const backoff = this.pollFailures > 0 ? Math.min(MAX_POLL_BACKOFF_MS, this.options.pollMs * 2 ** Math.min(this.pollFailures, 10)) : 0;
            await this.pause(Math.max(this.options.pollMs, backoff));
          }
        }
      } finally {
        liveWorkerIds.delete(this.workerId);
      }
    })();
  }

  private pollSucceeded(): void {
    if (this.pollFailures > 0) this.options.log.info({ worker_id: this.workerId, failed_polls: this.pollFailures }, 'detection resumed: the database answers again');
    this.pollFailures = 0;
  }

  /** A failed poll: logged once per outage (a database fault), or each time (anything else); polling backs off. */
  private pollFailed(error: unknown): void {
    const fault = databaseFault(error);
    this.pollFailures++;
    if (!fault) this.options.log.error({ err: error }, 'detection worker poll failed');
    else if (this.pollFailures === 1) {
      this.options.log.warn(
        { worker_id: this.workerId, kind: fault.kind, cause: fault.detail },
        'detection paused: the database cannot take the queue\'s queries; polling with backoff until it can (no job is lost)',
      );
    }
  }

  /** Waits `ms`, or less if the worker is stopped meanwhile. */
  private pause(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
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

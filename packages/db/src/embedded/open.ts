/**
 * Opens the embedded database: PGlite (a real Postgres engine compiled to WebAssembly, with
 * pgvector) in the data directory, or in memory for `memory://`. It runs on a thread of its own
 * (thread-client.ts, worker.ts), so the server keeps answering whatever it does; every statement is
 * bounded by the request deadline, writes are refused while the disk is nearly full, and commits are
 * flushed to stable storage. One process owns a data directory at a time.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { DatabaseLimits } from '@engram/config';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Database, DbHandle } from '../database.ts';
import { DatabaseUnavailableError, databaseFault, type DatabaseHealth } from '../faults.ts';
import * as schema from '../schema.ts';
import { EmbeddedClient } from './thread-client.ts';

/** Opening the database (a new one, or recovery after a crash) and schema work may take this long. */
const SLOW_WORK_DEADLINE_MS = 10 * 60_000;
/** Free space is looked up at most this often (writes check it before they are sent). */
const DISK_CHECK_INTERVAL_MS = 1_000;
/** Postgres' WAL segment size: the room a write may need at once. */
const WAL_SEGMENT_MB = 16;
/** Room a start after a crash may need to replay and checkpoint its WAL (several segments). */
const RECOVERY_ROOM_MB = 4 * WAL_SEGMENT_MB;

/** Thrown when the embedded database directory is already open in another process. */
export class DatabaseLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database at ${dataDir} is in use by another Engram process (pid ${pid}). ` +
        'Stop that process, or point ENGRAM_DATA_DIR at another directory.',
    );
    this.name = 'DatabaseLockedError';
  }
}

/** Opens PGlite in `dataDir` on its own thread; one handle serves requests, control and background work alike. */
export async function openEmbedded(dataDir: string, limits: DatabaseLimits, health: DatabaseHealth): Promise<DbHandle> {
  const inMemory = dataDir.startsWith('memory://');
  const writeProblem = inMemory ? async () => undefined : diskWatch(dataDir, limits.minFreeDiskMb);
  // Before the lock file: on a full disk even that cannot be written.
  if (!inMemory) await refuseToStartOnFullDisk(dataDir, limits.minFreeDiskMb);
  const release = inMemory ? () => {} : lockDataDir(dataDir);
  try {
    const client = await EmbeddedClient.open(dataDir, {
      deadlineMs: limits.requestDeadlineMs,
      slowWorkDeadlineMs: SLOW_WORK_DEADLINE_MS,
      durable: true,
      report: (error) => health.report(error),
      writeProblem,
      // Less than a WAL segment: PGlite cannot finish a write that needs a new one.
      diskExhausted: async () => !inMemory && ((await freeMb(dataDir)) ?? Number.POSITIVE_INFINITY) < WAL_SEGMENT_MB,
      watchdogMs: SLOW_WORK_DEADLINE_MS,
    }).catch(async (error: unknown) => {
      if (inMemory) throw error;
      await refuseToStartOnFullDisk(dataDir, limits.minFreeDiskMb, error);
      throw new Error(`The embedded database in ${dataDir} could not be opened: ${(error as Error).message}. ${await spaceReport(dataDir, limits.minFreeDiskMb)}`, { cause: error });
    });
    const db = drizzlePglite({ client: client as unknown as PGlite, schema }) as unknown as Database;
    // Control work takes the next turn (see EmbeddedClient.control).
    const control = drizzlePglite({ client: client.control as unknown as PGlite, schema }) as unknown as Database;
    return {
      db,
      control,
      background: db,
      kind: 'pglite',
      health,
      writeProblem,
      busy: () => {
        const busy = client.busy();
        return busy && `the embedded database is busy: ${busy.inFlight} statement(s) running, ${busy.waiting} waiting for their turn, last answer ${busy.lastAnswerMsAgo} ms ago`;
      },
      close: async () => {
        try {
          await client.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * Refuses to open the database when the disk under it has less than `minFreeMb` free (or when
 * `failure`, PGlite's failure to start, was the disk's): say so, where, and how much is needed,
 * rather than "PGlite failed to initialize properly".
 */
async function refuseToStartOnFullDisk(dataDir: string, minFreeMb: number, failure?: unknown): Promise<void> {
  const free = await freeMb(dataDir);
  const ranOut = failure !== undefined && (databaseFault(failure)?.kind === 'disk_full' || /ENOSPC|no space left on device/i.test(String((failure as Error).message ?? failure)));
  if (free === undefined || (free >= minFreeMb && !ranOut)) return;
  const what = free < minFreeMb ? `has ${free} MB free` : `ran out of space while it started (${free} MB free now)`;
  throw new DatabaseUnavailableError(
    'disk_full',
    `the disk under ${dataDir} ${what}; the embedded database needs at least ${minFreeMb} MB free to start ` +
      `(ENGRAM_MIN_FREE_DISK_MB). Free some space there, then start again` +
      (failure === undefined ? '' : `. PGlite said: ${(failure as Error).message}`),
    { cause: failure },
  );
}

/**
 * The free space of the disk under `dataDir` and what to do when it is short: PGlite's own words on
 * a failed start ("failed to initialize") never say that a restart replays its write-ahead log,
 * which needs room beyond ENGRAM_MIN_FREE_DISK_MB.
 */
async function spaceReport(dataDir: string, minFreeMb: number): Promise<string> {
  const free = await freeMb(dataDir);
  if (free === undefined) return `The free space of the disk under ${dataDir} could not be read.`;
  return (
    `The disk under ${dataDir} has ${free} MB free (ENGRAM_MIN_FREE_DISK_MB asks for ${minFreeMb} MB; starting after a crash ` +
    `replays the write-ahead log, which may need ${RECOVERY_ROOM_MB} MB or more). If that disk is nearly full, free space on it ` +
    '(or move ENGRAM_DATA_DIR to a larger disk) and start again; otherwise restore the directory from a backup or export.'
  );
}

/** {@link diskProblem}, looked up at most once a second. */
function diskWatch(dir: string, minFreeMb: number): () => Promise<string | undefined> {
  let checkedAt = Number.NEGATIVE_INFINITY;
  let last: Promise<string | undefined> = Promise.resolve(undefined);
  return () => {
    const now = performance.now();
    if (now - checkedAt >= DISK_CHECK_INTERVAL_MS) {
      checkedAt = now;
      last = diskProblem(dir, minFreeMb);
    }
    return last;
  };
}

/** Megabytes free (for this user) on the disk under `dir`, or under its nearest existing parent. */
async function freeMb(dir: string): Promise<number | undefined> {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const stats = await fs.promises.statfs(current).catch(() => undefined);
    if (stats) return Math.floor((stats.bavail * stats.bsize) / 1_048_576);
    if (path.dirname(current) === current) return undefined;
  }
}

/** Why the disk under `dir` is too full to write safely, or undefined. */
export async function diskProblem(dir: string, minFreeMb: number): Promise<string | undefined> {
  const free = await freeMb(dir);
  if (free === undefined || free >= minFreeMb) return undefined;
  return `the disk under ${dir} has ${free} MB free, less than ENGRAM_MIN_FREE_DISK_MB (${minFreeMb} MB); free some space`;
}

/**
 * PGlite is single-process: two processes on one data directory corrupt it. A pid file next to
 * the directory makes the second process fail with a clear message instead; a stale file left by a
 * crashed process is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  const lockPath = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new DatabaseLockedError(dataDir, holder);
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock the embedded database at ${dataDir} (${lockPath})`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}


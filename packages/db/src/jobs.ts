/**
 * The detection job queue (SPEC §6): jobs are rows written with the facts that trigger them; a
 * worker claims all due jobs of one workspace at once (after a short debounce, so a burst of
 * commits becomes one run) under a lease — a `running` detection_runs row, at most one per
 * workspace — and finishes, retries or gives them up. A worker that dies leaves a lapsed lease;
 * the next claim fails that run and takes its jobs over, so no job is ever lost. Where a holder is
 * known to be gone (the embedded database at start; a dead process on this host), its runs are
 * released at once ({@link releaseInterruptedRuns}); a run the database failed gives its attempt
 * back and is retried with backoff for as long as the outage lasts; jobs given up as `failed` can
 * be requeued ({@link requeueFailedJobs}).
 */
import { and, count, desc, eq, gt, gte, inArray, isNotNull, isNull, lt, lte, max, notExists, or, sql, sum } from 'drizzle-orm';
import { alias, type PgColumn } from 'drizzle-orm/pg-core';
import { queryRows, type Database } from './database.ts';
import { detectionJobs, detectionRuns, workspaces } from './schema.ts';
import { coalesce, columnsNamed, countWhere, qb } from './values.ts';

export interface ClaimOptions {
  workerId: string;
  /** A workspace's jobs wait until it has been quiet this long... */
  debounceMs: number;
  /** ...but never longer than this after the oldest one. */
  maxWaitMs: number;
  /** How long the claimed run is ours without a heartbeat. */
  leaseMs: number;
  /** Claim only this workspace's run (on-demand detection of one workspace). */
  workspaceId?: string;
  now?: Date;
}

export interface ClaimedRun {
  runId: string;
  workspaceId: string;
  jobIds: number[];
  triggerFactIds: string[];
  /** Highest attempt number among the claimed jobs (1 on a first try). */
  attempt: number;
  /** When the run started (its recorded `started_at`). */
  startedAt: Date;
}

const iso = (d: Date) => `${d.toISOString()}`;

/** Most jobs one run takes; a longer backlog is the next run's (a run stays short and its lease cheap). */
export const MAX_JOBS_PER_RUN = 2_000;

/** Jobs (as `j`) and runs (as `r`), for the hand-written statements. */
const j = alias(detectionJobs, 'j');
const r = alias(detectionRuns, 'r');

/** `column = workspaceId`, or no condition when no workspace is given (every workspace's). */
const ofWorkspace = (column: PgColumn, workspaceId: string | undefined) => (workspaceId ? eq(column, workspaceId) : undefined);

/** Jobs (as `j`) that are due at `at`: pending and past their backoff, or running under a lapsed lock. */
const due = (at: Date) => or(and(eq(j.status, 'pending'), lte(j.runAfter, at)), and(eq(j.status, 'running'), lt(j.lockedUntil, at)))!;

/**
 * Claims the due jobs of one workspace, or returns null when there is nothing to do. Safe to call
 * from any number of workers at once: the per-workspace lease and `FOR UPDATE SKIP LOCKED` make
 * every job belong to exactly one run.
 */
export async function claimDetectionRun(db: Database, options: ClaimOptions): Promise<ClaimedRun | null> {
  const now = options.now ?? new Date();
  // The database stamps jobs to the microsecond and JavaScript reads the clock to the millisecond:
  // a job stamped earlier within this very millisecond is due too.
  const clock = now.getTime() + 1;
  const nowIso = iso(now);
  const dueAt = new Date(clock);
  const dueIso = iso(dueAt);
  const quietSince = iso(new Date(clock - options.debounceMs));
  const waitedSince = iso(new Date(clock - options.maxWaitMs));
  const leaseUntil = iso(new Date(now.getTime() + options.leaseMs));

  const candidates = await queryRows<{ workspace_id: string }>(
    db,
    sql`select j.workspace_id from detection_jobs j
        where ${and(due(dueAt), ofWorkspace(j.workspaceId, options.workspaceId))}
          and not exists (
            select 1 from detection_runs r
            where r.workspace_id = j.workspace_id and r.status = 'running' and r.lease_until > ${dueIso}::timestamptz
          )
        group by j.workspace_id
        having max(j.created_at) <= ${quietSince}::timestamptz
            or min(j.created_at) <= ${waitedSince}::timestamptz
            or bool_or(j.status = 'running')
        order by min(j.created_at)
        limit 5`,
  );

  for (const { workspace_id: workspaceId } of candidates) {
    const claimed = await db.transaction(async (tx) => {
      const t = tx as unknown as Database;
      // A run whose worker stopped renewing its lease is over; its jobs are due again.
      await t
        .update(detectionRuns)
        .set({ status: 'failed', finishedAt: now, error: 'worker lease expired before the run finished' })
        .where(and(eq(detectionRuns.workspaceId, workspaceId), eq(detectionRuns.status, 'running'), lte(detectionRuns.leaseUntil, dueAt)));
      const [run] = await queryRows<{ id: string }>(
        t,
        sql`insert into detection_runs (workspace_id, status, started_at, worker_id, lease_until)
            values (${workspaceId}, 'running', ${nowIso}::timestamptz, ${options.workerId}, ${leaseUntil}::timestamptz)
            on conflict (workspace_id) where status = 'running' do nothing
            returning id`,
      );
      if (!run) return null; // another worker holds this workspace
      const jobs = await queryRows<{ id: number | string; trigger_fact_id: string | null; attempts: number }>(
        t,
        sql`update detection_jobs set status = 'running', locked_by = ${options.workerId},
              locked_until = ${leaseUntil}::timestamptz, run_id = ${run.id}, attempts = attempts + 1
            where id in (
              select j.id from detection_jobs j
              where j.workspace_id = ${workspaceId} and ${due(dueAt)}
              order by j.id
              limit ${MAX_JOBS_PER_RUN}
              for update skip locked
            )
            returning id, trigger_fact_id, attempts`,
      );
      if (jobs.length === 0) {
        await t.delete(detectionRuns).where(eq(detectionRuns.id, run.id));
        return null;
      }
      const triggerFactIds = [...new Set(jobs.map((j) => j.trigger_fact_id).filter((id): id is string => id !== null))];
      await t.update(detectionRuns).set({ jobsCoalesced: jobs.length, triggerFactIds }).where(eq(detectionRuns.id, run.id));
      return {
        runId: run.id,
        workspaceId,
        jobIds: jobs.map((j) => Number(j.id)),
        triggerFactIds,
        attempt: Math.max(...jobs.map((j) => Number(j.attempts))),
        startedAt: new Date(nowIso),
      } satisfies ClaimedRun;
    });
    if (claimed) return claimed;
  }
  return null;
}

/**
 * Extends a run's lease and its jobs' locks (the holder's heartbeat), in one statement. False when
 * the run is no longer running: another worker took it over after its lease lapsed, or it was
 * released as interrupted.
 */
export async function renewLease(db: Database, runId: string, leaseMs: number, now = new Date()): Promise<boolean> {
  const until = new Date(now.getTime() + leaseMs);
  const run = db.$with('run').as(db.update(detectionRuns).set({ leaseUntil: until }).where(stillRunning(runId)).returning({ id: detectionRuns.id }));
  const jobs = db.$with('jobs').as(
    db
      .update(detectionJobs)
      .set({ lockedUntil: until })
      .where(and(inArray(detectionJobs.runId, db.select({ id: run.id }).from(run)), eq(detectionJobs.status, 'running'))),
  );
  const [row] = await db.with(run, jobs).select({ renewed: count() }).from(run);
  return (row?.renewed ?? 0) > 0;
}

/** What a run did, recorded on its detection_runs row. */
export interface RunStats {
  factsRead: number;
  conflictsRaised: number;
  factsRetired: number;
  llmCalls?: number;
  promptTokens?: number;
  completionTokens?: number;
  seed?: string | null;
  /** What the narrative detective did (null: it is off). */
  narrative?: string | null;
  storyFacts?: number;
  batches?: number;
  failedBatches?: number;
}

/** The figures of a finished run's row. */
const runFigures = (stats: Partial<RunStats> | undefined) => ({
  llmCalls: stats?.llmCalls ?? 0,
  promptTokens: stats?.promptTokens ?? 0,
  completionTokens: stats?.completionTokens ?? 0,
  narrative: stats?.narrative ?? null,
  storyFacts: stats?.storyFacts ?? 0,
  batches: stats?.batches ?? 0,
  failedBatches: stats?.failedBatches ?? 0,
  seed: stats?.seed ?? null,
});

/** A run's row as it ends at `now`: its finish, its duration, no lease. */
const ended = (now: Date) => ({
  finishedAt: now,
  durationMs: sql<number>`greatest(0, round(extract(epoch from (${now.toISOString()}::timestamptz - ${detectionRuns.startedAt})) * 1000))::int`,
  leaseUntil: null,
});

/** A job's attempt given back (a run that failed for the database's sake, or was interrupted). */
const attemptGivenBack = sql<number>`greatest(${detectionJobs.attempts} - 1, 0)`;

/** The running jobs of a run. */
const runningJobsOf = (runId: string) => and(eq(detectionJobs.runId, runId), eq(detectionJobs.status, 'running'));
/** The run, if it is still running. */
const stillRunning = (runId: string) => and(eq(detectionRuns.id, runId), eq(detectionRuns.status, 'running'));

/**
 * Marks a run and its jobs done. False when the run was no longer ours to finish (taken over after
 * its lease lapsed, or released as interrupted): its jobs belong to another run then, and the row
 * keeps saying why it ended.
 */
export async function completeRun(db: Database, runId: string, stats: RunStats, now = new Date()): Promise<boolean> {
  return db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    await t.update(detectionJobs).set({ status: 'done', finishedAt: now, lockedUntil: null, lastError: null }).where(runningJobsOf(runId));
    const updated = await t
      .update(detectionRuns)
      .set({
        status: 'succeeded',
        ...ended(now),
        factsRead: stats.factsRead,
        conflictsRaised: stats.conflictsRaised,
        factsRetired: stats.factsRetired,
        ...runFigures(stats),
      })
      .where(stillRunning(runId))
      .returning({ id: detectionRuns.id });
    return updated.length > 0;
  });
}

/** The first retry after a run the database failed; each further failure in a row doubles it... */
export const OUTAGE_RETRY_BASE_MS = 1_000;
/** ...up to this: a job waits at most three minutes once the database is back. */
export const OUTAGE_RETRY_CAP_MS = 180_000;

export interface FailRunOptions {
  /** Attempts after which a job is given up as `failed` (runs that failed for their own reasons). */
  maxAttempts: number;
  now?: Date;
  stats?: Partial<RunStats>;
  /**
   * The database failed the run (unreachable, out of connections, too slow, locked, disk full),
   * not the run itself: the jobs get their attempt back and are retried after a backoff that grows
   * with the workspace's failed runs in a row ({@link OUTAGE_RETRY_BASE_MS} doubling up to
   * {@link OUTAGE_RETRY_CAP_MS}), for as long as the outage lasts.
   */
  databaseFault?: boolean;
}

/**
 * Records a failed run. Its jobs are retried with exponential backoff (1 s, 2 s, 4 s, ... up to a
 * minute) until `maxAttempts`, then kept as `failed` for an operator to see and requeue; a run the
 * database failed uses up no attempt (see {@link FailRunOptions.databaseFault}). Returns the
 * outage backoff used, or null for a run that failed for its own reasons.
 */
export async function failRun(db: Database, runId: string, error: string, options: FailRunOptions): Promise<{ retryInMs: number | null }> {
  const now = options.now ?? new Date();
  const message = error.slice(0, 2000);
  return db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    let retryInMs: number | null = null;
    if (options.databaseFault) {
      retryInMs = outageRetryMs(await failedRunsInARow(t, runId));
      await t
        .update(detectionJobs)
        .set({
          status: 'pending',
          attempts: attemptGivenBack,
          runAfter: new Date(now.getTime() + retryInMs),
          lockedUntil: null,
          lastError: message,
          finishedAt: null,
        })
        .where(runningJobsOf(runId));
    } else {
      await t.execute(
        sql`update detection_jobs set
              status = case when attempts >= ${options.maxAttempts} then 'failed' else 'pending' end,
              run_after = ${iso(now)}::timestamptz + least(60, power(2, greatest(attempts - 1, 0)))::int * interval '1 second',
              locked_until = null, last_error = ${message},
              finished_at = case when attempts >= ${options.maxAttempts} then ${iso(now)}::timestamptz else null end
            where run_id = ${runId} and status = 'running'`,
      );
    }
    await t
      .update(detectionRuns)
      .set({ status: 'failed', ...ended(now), error: message, ...runFigures(options.stats) })
      .where(stillRunning(runId));
    return { retryInMs };
  });
}

/** The outage backoff after `failuresBefore` failed runs in a row. */
export const outageRetryMs = (failuresBefore: number) =>
  Math.min(OUTAGE_RETRY_CAP_MS, OUTAGE_RETRY_BASE_MS * 2 ** Math.min(failuresBefore, 20));

/**
 * Failed runs of the run's workspace since its last successful one (counted up to 10: enough to
 * reach the cap). The runs table is the record of how long an outage has lasted, so the backoff
 * needs no state of its own and survives restarts.
 */
async function failedRunsInARow(db: Database, runId: string): Promise<number> {
  const run = alias(detectionRuns, 'run');
  const failed = alias(detectionRuns, 'f');
  const succeeded = alias(detectionRuns, 's');
  // Failed runs of the run's workspace that no successful run started at or after.
  const streak = db
    .select({ id: failed.id })
    .from(failed)
    .innerJoin(run, and(eq(run.id, runId), eq(run.workspaceId, failed.workspaceId)))
    .where(
      and(
        eq(failed.status, 'failed'),
        notExists(
          db
            .select({ id: succeeded.id })
            .from(succeeded)
            .where(and(eq(succeeded.workspaceId, failed.workspaceId), eq(succeeded.status, 'succeeded'), gte(succeeded.startedAt, failed.startedAt))),
        ),
      ),
    )
    .limit(10)
    .as('streak');
  const [row] = await db.select({ n: count() }).from(streak);
  return row?.n ?? 0;
}

/** What {@link releaseInterruptedRuns} released. */
export interface ReleasedRuns {
  runs: number;
  jobs: number;
}

/**
 * Fails the running runs whose holder is known to be gone and makes their jobs due at once, without
 * waiting for their leases to lapse. `goneBecause` says why a holder is gone (recorded on the run and
 * its jobs) or returns undefined for a holder that may be alive. A job's first interruption in a
 * row gives its attempt back (a restart is not the job's fault); a second one in a row keeps it,
 * so a job that brings its worker down every time is still given up after `maxAttempts`.
 */
export async function releaseInterruptedRuns(
  db: Database,
  goneBecause: (workerId: string | null) => string | undefined,
  now = new Date(),
): Promise<ReleasedRuns> {
  const running = await db
    .select({ id: detectionRuns.id, workerId: detectionRuns.workerId })
    .from(detectionRuns)
    .where(eq(detectionRuns.status, 'running'));
  const gone = running.flatMap((r) => {
    const reason = goneBecause(r.workerId);
    return reason ? [{ id: r.id, message: `interrupted: ${reason}`.slice(0, 2000) }] : [];
  });
  if (gone.length === 0) return { runs: 0, jobs: 0 };
  return db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    const released = { runs: 0, jobs: 0 };
    for (const run of gone) {
      const failed = await t
        .update(detectionRuns)
        .set({ status: 'failed', ...ended(now), error: run.message })
        .where(stillRunning(run.id))
        .returning({ id: detectionRuns.id });
      if (failed.length === 0) continue; // it finished in the meantime
      const jobs = await t
        .update(detectionJobs)
        .set({
          status: 'pending',
          runAfter: now,
          lockedUntil: null,
          lockedBy: null,
          attempts: sql`case when ${detectionJobs.lastError} like 'interrupted:%' then ${detectionJobs.attempts} else ${attemptGivenBack} end`,
          lastError: run.message,
        })
        .where(runningJobsOf(run.id))
        .returning({ id: detectionJobs.id });
      released.runs++;
      released.jobs += jobs.length;
    }
    return released;
  });
}

/** Jobs requeued in one workspace. */
export interface RequeuedJobs {
  workspaceId: string;
  engramId: string;
  jobs: number;
}

/**
 * Makes jobs given up as `failed` pending again, due now, with their attempts reset: the operator's
 * (or an owner's) answer to work that failed for longer than its retries lasted. One workspace's,
 * or every live workspace's. Returns the count per workspace that had any.
 */
export async function requeueFailedJobs(db: Database, options: { workspaceId?: string; now?: Date } = {}): Promise<RequeuedJobs[]> {
  const requeued = db.$with('requeued').as(
    db
      .update(detectionJobs)
      .set({ status: 'pending', attempts: 0, runAfter: options.now ?? new Date(), finishedAt: null, lockedUntil: null, lockedBy: null, lastError: null })
      .where(
        and(
          eq(detectionJobs.status, 'failed'),
          ofWorkspace(detectionJobs.workspaceId, options.workspaceId),
          inArray(detectionJobs.workspaceId, db.select({ id: workspaces.id }).from(workspaces).where(isNull(workspaces.deletedAt))),
        ),
      )
      .returning({ workspaceId: detectionJobs.workspaceId }),
  );
  return db
    .with(requeued)
    .select({ workspaceId: requeued.workspaceId, engramId: workspaces.engramId, jobs: count() })
    .from(requeued)
    .innerJoin(workspaces, eq(workspaces.id, requeued.workspaceId))
    .groupBy(requeued.workspaceId, workspaces.engramId)
    .orderBy(workspaces.engramId);
}

/** How long a due job may wait, with no live run holding its workspace, before it counts as stuck. */
export const STUCK_AFTER_MS = 60_000;

/** A workspace's detection work that is not done, by state. */
export interface DetectionBacklog {
  workspaceId: string;
  engramId: string;
  name: string;
  pending: number;
  running: number;
  /** Given up after their last attempt: they wait for a requeue. */
  failed: number;
  /** Pending again after a failed run, waiting out their backoff. */
  retrying: number;
  /**
   * Work nobody is doing: pending jobs due over a minute ago while no live run holds the workspace
   * (no worker is polling, or every claim fails), and jobs of a run whose lease lapsed.
   */
  stuck: number;
  /** When the oldest stuck job became due (or its run's lease lapsed). */
  stuckSince: Date | null;
  /** Runs still marked running whose lease lapsed: their worker stopped renewing it. */
  stalledRuns: number;
  /** The newest error of a failed or retrying job, and when it failed. */
  lastError: { message: string; at: Date | null } | null;
}

/**
 * Whether the workspace has detection work not done yet (jobs pending, running or failed): one
 * cheap probe, so callers describe the backlog ({@link detectionBacklog}) only when there is one.
 */
export async function hasDetectionBacklog(db: Database, workspaceId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: detectionJobs.id })
    .from(detectionJobs)
    .where(and(eq(detectionJobs.workspaceId, workspaceId), inArray(detectionJobs.status, ['pending', 'running', 'failed'])))
    .limit(1);
  return row !== undefined;
}

/**
 * Detection work that is not done, per workspace (one workspace's, or every live workspace with
 * any): for `/api/v1/detection/status`, `engram_status` and `engram detection status`.
 */
export async function detectionBacklog(db: Database, options: { workspaceId?: string; now?: Date } = {}): Promise<DetectionBacklog[]> {
  const now = options.now ?? new Date();
  const stuckBefore = new Date(now.getTime() - STUCK_AFTER_MS);
  const only = (column: PgColumn) => ofWorkspace(column, options.workspaceId);
  // A pending job is stuck when it waited too long and no run holds its workspace's lease. The
  // live runs are read once and joined: asked per job, a backlog of 7,500 took 15 ms to describe.
  const live = db
    .selectDistinct({ workspaceId: r.workspaceId })
    .from(r)
    .where(and(eq(r.status, 'running'), gt(r.leaseUntil, now), only(r.workspaceId)))
    .as('live');
  const stuck = or(
    and(eq(j.status, 'pending'), lt(j.runAfter, stuckBefore), isNull(live.workspaceId)),
    and(eq(j.status, 'running'), lt(j.lockedUntil, now)),
  )!;
  const rows = await db
    .select({
      workspaceId: j.workspaceId,
      engramId: workspaces.engramId,
      name: workspaces.name,
      pending: countWhere(eq(j.status, 'pending')),
      running: countWhere(eq(j.status, 'running')),
      failed: countWhere(eq(j.status, 'failed')),
      retrying: countWhere(and(eq(j.status, 'pending'), isNotNull(j.lastError))!),
      stuck: countWhere(stuck),
      // When a stuck job became due: a running job's lapsed lock, a pending job's retry time.
      stuckSince: sql<Date | null>`min(case when ${j.status} = 'running' then ${j.lockedUntil} else ${j.runAfter} end) filter (where ${stuck})`.mapWith(j.runAfter),
    })
    .from(j)
    .innerJoin(workspaces, and(eq(workspaces.id, j.workspaceId), isNull(workspaces.deletedAt)))
    .leftJoin(live, eq(live.workspaceId, j.workspaceId))
    .where(and(inArray(j.status, ['pending', 'running', 'failed']), only(j.workspaceId)))
    .groupBy(j.workspaceId, workspaces.engramId, workspaces.name)
    .orderBy(workspaces.engramId);
  if (rows.length === 0) return [];
  const stalled = await db
    .select({ workspaceId: detectionRuns.workspaceId, n: count() })
    .from(detectionRuns)
    .where(and(eq(detectionRuns.status, 'running'), lt(detectionRuns.leaseUntil, now), only(detectionRuns.workspaceId)))
    .groupBy(detectionRuns.workspaceId);
  // A job's last try: when it failed for good, or when its retry is due.
  const lastTried = coalesce<Date>(detectionJobs.finishedAt, detectionJobs.runAfter).mapWith(detectionJobs.runAfter);
  const errors = await db
    .selectDistinctOn([detectionJobs.workspaceId], { workspaceId: detectionJobs.workspaceId, lastError: detectionJobs.lastError, at: lastTried })
    .from(detectionJobs)
    .where(and(inArray(detectionJobs.status, ['failed', 'pending']), isNotNull(detectionJobs.lastError), only(detectionJobs.workspaceId)))
    .orderBy(detectionJobs.workspaceId, desc(lastTried));
  const stalledBy = new Map(stalled.map((r) => [r.workspaceId, r.n]));
  const errorBy = new Map(errors.map((r) => [r.workspaceId, { message: r.lastError ?? '', at: r.at }]));
  return rows.map((r) => ({
    ...r,
    stalledRuns: stalledBy.get(r.workspaceId) ?? 0,
    lastError: errorBy.get(r.workspaceId) ?? null,
  }));
}

/** An empty backlog of `workspaceId` (nothing pending, running or failed). */
const emptyBacklog = (workspaceId: string): Omit<DetectionBacklog, 'engramId' | 'name'> => ({
  workspaceId,
  pending: 0,
  running: 0,
  failed: 0,
  retrying: 0,
  stuck: 0,
  stuckSince: null,
  stalledRuns: 0,
  lastError: null,
});

/** Queue and run figures of a workspace, for `/api/v1/detection/status`. */
export async function detectionQueueStatus(db: Database, workspaceId: string, now = new Date()) {
  const [found] = await detectionBacklog(db, { workspaceId, now });
  const backlog = found ?? emptyBacklog(workspaceId);
  const counts = { pending: backlog.pending, running: backlog.running, failed: backlog.failed };
  const runs = await queryRows<{
    id: string;
    status: string;
    started_at: string;
    finished_at: string | null;
    duration_ms: number | null;
    jobs_coalesced: number;
    facts_read: number;
    conflicts_raised: number;
    facts_retired: number;
    llm_calls: number;
    prompt_tokens: number;
    completion_tokens: number;
    error: string | null;
    narrative: string | null;
    story_facts: number;
    batches: number;
    failed_batches: number;
  }>(
    db,
    // Built, but read as the driver returns it: the API answers with these rows as they are.
    qb
      .select(
        columnsNamed(detectionRuns, [
          'id', 'status', 'started_at', 'finished_at', 'duration_ms', 'jobs_coalesced', 'facts_read', 'conflicts_raised', 'facts_retired',
          'llm_calls', 'prompt_tokens', 'completion_tokens', 'error', 'narrative', 'story_facts', 'batches', 'failed_batches',
        ]),
      )
      .from(detectionRuns)
      .where(eq(detectionRuns.workspaceId, workspaceId))
      .orderBy(desc(detectionRuns.startedAt))
      .limit(10)
      .getSQL(),
  );
  const [totals] = await db
    .select({
      runs: count(),
      prompt_tokens: coalesce(sum(detectionRuns.promptTokens), 0).mapWith(Number),
      completion_tokens: coalesce(sum(detectionRuns.completionTokens), 0).mapWith(Number),
      last_run_at: max(coalesce<Date>(detectionRuns.finishedAt, detectionRuns.startedAt)).mapWith(detectionRuns.startedAt),
    })
    .from(detectionRuns)
    .where(eq(detectionRuns.workspaceId, workspaceId));
  return { counts, backlog, runs, totals };
}

/** What a run recorded to replay its story: its workspace, seed, start and trigger facts. */
export async function recordedRun(
  db: Database,
  runId: string,
): Promise<{ workspaceId: string; seed: string | null; startedAt: Date; triggerFactIds: string[] } | null> {
  const [row] = await db
    .select({
      workspaceId: detectionRuns.workspaceId,
      seed: detectionRuns.seed,
      startedAt: detectionRuns.startedAt,
      triggerFactIds: detectionRuns.triggerFactIds,
    })
    .from(detectionRuns)
    .where(eq(detectionRuns.id, runId));
  return row ?? null;
}

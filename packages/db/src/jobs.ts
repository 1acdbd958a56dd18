/**
 * The detection job queue (SPEC §6): jobs are rows written with the facts that trigger them; a
 * worker claims all due jobs of one workspace at once (after a short debounce, so a burst of
 * commits becomes one run) under a lease — a `running` detection_runs row, at most one per
 * workspace — and finishes, retries or gives them up. A worker that dies leaves a lapsed lease;
 * the next claim fails that run and takes its jobs over, so no job is ever lost.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from './client.ts';
import { toDate, uuidArrayLiteral } from './values.ts';

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

/** Jobs that are due: pending and past their backoff, or running under a lapsed lock. */
const DUE = (now: string) =>
  sql`((j.status = 'pending' and j.run_after <= ${now}::timestamptz) or (j.status = 'running' and j.locked_until < ${now}::timestamptz))`;

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
  const dueIso = iso(new Date(clock));
  const quietSince = iso(new Date(clock - options.debounceMs));
  const waitedSince = iso(new Date(clock - options.maxWaitMs));
  const leaseUntil = iso(new Date(now.getTime() + options.leaseMs));

  const candidates = await queryRows<{ workspace_id: string }>(
    db,
    sql`select j.workspace_id from detection_jobs j
        where ${DUE(dueIso)}
          ${options.workspaceId ? sql`and j.workspace_id = ${options.workspaceId}` : sql``}
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
      await t.execute(
        sql`update detection_runs set status = 'failed', finished_at = ${nowIso}::timestamptz,
              error = 'worker lease expired before the run finished'
            where workspace_id = ${workspaceId} and status = 'running' and lease_until <= ${dueIso}::timestamptz`,
      );
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
              where j.workspace_id = ${workspaceId} and ${DUE(dueIso)}
              order by j.id
              limit ${MAX_JOBS_PER_RUN}
              for update skip locked
            )
            returning id, trigger_fact_id, attempts`,
      );
      if (jobs.length === 0) {
        await t.execute(sql`delete from detection_runs where id = ${run.id}`);
        return null;
      }
      const triggerFactIds = [...new Set(jobs.map((j) => j.trigger_fact_id).filter((id): id is string => id !== null))];
      await t.execute(
        sql`update detection_runs set jobs_coalesced = ${jobs.length},
              trigger_fact_ids = ${uuidArrayLiteral(triggerFactIds)}::uuid[]
            where id = ${run.id}`,
      );
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

/** Extends a run's lease (long runs call this so no other worker takes them over). */
export async function renewLease(db: Database, runId: string, leaseMs: number, now = new Date()): Promise<boolean> {
  const until = iso(new Date(now.getTime() + leaseMs));
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update detection_runs set lease_until = ${until}::timestamptz where id = ${runId} and status = 'running' returning id`,
  );
  await db.execute(sql`update detection_jobs set locked_until = ${until}::timestamptz where run_id = ${runId} and status = 'running'`);
  return rows.length > 0;
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

/** The narrative columns of a run's row. */
const narrativeColumns = (stats: Partial<RunStats> | undefined) =>
  sql`narrative = ${stats?.narrative ?? null}, story_facts = ${stats?.storyFacts ?? 0}, batches = ${stats?.batches ?? 0},
      failed_batches = ${stats?.failedBatches ?? 0}, seed = ${stats?.seed ?? null}`;

/** Marks a run and its jobs done. */
export async function completeRun(db: Database, runId: string, stats: RunStats, now = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    await t.execute(
      sql`update detection_jobs set status = 'done', finished_at = ${iso(now)}::timestamptz, locked_until = null, last_error = null
          where run_id = ${runId} and status = 'running'`,
    );
    await t.execute(
      sql`update detection_runs set status = 'succeeded', finished_at = ${iso(now)}::timestamptz,
            duration_ms = greatest(0, round(extract(epoch from (${iso(now)}::timestamptz - started_at)) * 1000))::int,
            facts_read = ${stats.factsRead}, conflicts_raised = ${stats.conflictsRaised}, facts_retired = ${stats.factsRetired},
            llm_calls = ${stats.llmCalls ?? 0}, prompt_tokens = ${stats.promptTokens ?? 0},
            completion_tokens = ${stats.completionTokens ?? 0}, ${narrativeColumns(stats)}, lease_until = null
          where id = ${runId}`,
    );
  });
}

/**
 * Records a failed run. Its jobs are retried with exponential backoff (1 s, 2 s, 4 s, ... up to a
 * minute) until `maxAttempts`, then kept as `failed` for an operator to see.
 */
export async function failRun(
  db: Database,
  runId: string,
  error: string,
  options: { maxAttempts: number; now?: Date; stats?: Partial<RunStats> },
): Promise<void> {
  const now = options.now ?? new Date();
  const message = error.slice(0, 2000);
  await db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    await t.execute(
      sql`update detection_jobs set
            status = case when attempts >= ${options.maxAttempts} then 'failed' else 'pending' end,
            run_after = ${iso(now)}::timestamptz + least(60, power(2, greatest(attempts - 1, 0)))::int * interval '1 second',
            locked_until = null, last_error = ${message},
            finished_at = case when attempts >= ${options.maxAttempts} then ${iso(now)}::timestamptz else null end
          where run_id = ${runId} and status = 'running'`,
    );
    await t.execute(
      sql`update detection_runs set status = 'failed', finished_at = ${iso(now)}::timestamptz, error = ${message},
            duration_ms = greatest(0, round(extract(epoch from (${iso(now)}::timestamptz - started_at)) * 1000))::int,
            llm_calls = ${options.stats?.llmCalls ?? 0}, prompt_tokens = ${options.stats?.promptTokens ?? 0},
            completion_tokens = ${options.stats?.completionTokens ?? 0}, ${narrativeColumns(options.stats)}, lease_until = null
          where id = ${runId}`,
    );
  });
}

/** Queue and run figures of a workspace, for `/api/v1/detection/status`. */
export async function detectionQueueStatus(db: Database, workspaceId: string) {
  const [counts] = await queryRows<{ pending: number; running: number; failed: number }>(
    db,
    sql`select count(*) filter (where status = 'pending')::int as pending,
               count(*) filter (where status = 'running')::int as running,
               count(*) filter (where status = 'failed')::int as failed
        from detection_jobs where workspace_id = ${workspaceId} and status <> 'done'`,
  );
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
    sql`select id, status, started_at, finished_at, duration_ms, jobs_coalesced, facts_read, conflicts_raised,
               facts_retired, llm_calls, prompt_tokens, completion_tokens, error, narrative, story_facts, batches, failed_batches
        from detection_runs where workspace_id = ${workspaceId}
        order by started_at desc limit 10`,
  );
  const [totals] = await queryRows<{ runs: number; prompt_tokens: number; completion_tokens: number; last_run_at: string | null }>(
    db,
    sql`select count(*)::int as runs, coalesce(sum(prompt_tokens), 0)::int as prompt_tokens,
               coalesce(sum(completion_tokens), 0)::int as completion_tokens,
               max(coalesce(finished_at, started_at)) as last_run_at
        from detection_runs where workspace_id = ${workspaceId}`,
  );
  return { counts: counts ?? { pending: 0, running: 0, failed: 0 }, runs, totals };
}

/** What a run recorded to replay its story: its workspace, seed, start and trigger facts. */
export async function recordedRun(
  db: Database,
  runId: string,
): Promise<{ workspaceId: string; seed: string | null; startedAt: Date; triggerFactIds: string[] } | null> {
  const [row] = await queryRows<{ workspace_id: string; seed: string | null; started_at: unknown; trigger_fact_ids: string[] | string | null }>(
    db,
    sql`select workspace_id, seed, started_at, trigger_fact_ids from detection_runs where id = ${runId}`,
  );
  if (!row) return null;
  const ids = Array.isArray(row.trigger_fact_ids)
    ? row.trigger_fact_ids
    : (row.trigger_fact_ids ?? '').replace(/[{}]/g, '').split(',').filter(Boolean);
  return { workspaceId: row.workspace_id, seed: row.seed, startedAt: toDate(row.started_at)!, triggerFactIds: ids };
}

/**
 * Detection work that is failing or stuck, said so a person can act on it: `engram_status`, the
 * dashboard's detective view and `engram detection status` all describe a backlog this way. Owners
 * requeue a workspace's failed jobs here (the dashboard); operators for any workspace with
 * `engram detection requeue` or the admin API.
 */
import { databaseFault, detectionBacklog, hasDetectionBacklog, requeueFailedJobs, type Database, type DetectionBacklog } from '@engram/db';
import { assertOwner } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';

/** Failed and stuck detection work of a workspace, and what to do about it (null: nothing is wrong). */
export interface DetectionAttention {
  failed_jobs: number;
  stuck_jobs: number;
  /** Pending again after a failed run, waiting out their backoff (e.g. while the database is away). */
  retrying_jobs: number;
  /** Since when the oldest stuck job has waited (ISO 8601), or null. */
  stuck_since: string | null;
  /** The newest error of a failed or retrying job. */
  last_error: string | null;
  note: string | null;
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * Says what is wrong with a workspace's detection and what to do. Failed jobs are facts never
 * checked for conflicts: an owner (in the dashboard's Detective view) or an operator (`engram
 * detection requeue`) can requeue them. Stuck work means no worker is taking the queue.
 */
export function describeBacklog(backlog: Pick<DetectionBacklog, 'failed' | 'stuck' | 'retrying' | 'stuckSince' | 'lastError'>, engramId: string): DetectionAttention {
  const notes: string[] = [];
  if (backlog.failed > 0) {
    notes.push(
      `${plural(backlog.failed, 'detection job')} failed after every retry, so the ${backlog.failed === 1 ? 'fact behind it has' : 'facts behind them have'} ` +
        `not been checked for conflicts. An owner can requeue ${backlog.failed === 1 ? 'it' : 'them'} in the dashboard's Detective view, ` +
        `or an operator with \`engram detection requeue --workspace ${engramId}\`.`,
    );
  }
  if (backlog.stuck > 0) {
    notes.push(
      `${plural(backlog.stuck, 'detection job')} ${backlog.stuck === 1 ? 'has' : 'have'} waited over a minute with no worker taking ${backlog.stuck === 1 ? 'it' : 'them'}: ` +
        'check that the server runs a detection worker (ENGRAM_IN_PROCESS_WORKER, or `engram worker` processes) and that its database is reachable.',
    );
  }
  if (backlog.retrying > 0 && notes.length === 0) {
    notes.push(`${plural(backlog.retrying, 'detection job')} will be retried after a failed run; nothing to do unless they end up failed.`);
  }
  return {
    failed_jobs: backlog.failed,
    stuck_jobs: backlog.stuck,
    retrying_jobs: backlog.retrying,
    stuck_since: backlog.stuckSince?.toISOString() ?? null,
    last_error: backlog.lastError?.message ?? null,
    note: notes.length > 0 ? notes.join(' ') : null,
  };
}

/** An owner requeues the workspace's failed detection jobs (due now, attempts reset); returns how many. */
export async function requeueFailedDetection(db: Database, principal: MemberPrincipal): Promise<{ requeued: number }> {
  assertOwner(principal, 'requeue failed detection jobs');
  const [requeued] = await requeueFailedJobs(db, { workspaceId: principal.workspaceId });
  return { requeued: requeued?.jobs ?? 0 };
}

/** The detection part of `engram_status`: work not done yet, failed or stuck, and what to do about it. */
export interface StatusDetection {
  pending_jobs: number;
  failed_jobs: number;
  stuck_jobs: number;
  /** What to do about failed or stuck work; null when nothing is wrong. */
  note: string | null;
}

/**
 * A workspace's detection backlog as `engram_status` reports it, or undefined when the database
 * cannot say right now (status still answers; the outage is reported by its other parts).
 */
export async function detectionSummary(db: Database, principal: Pick<MemberPrincipal, 'workspaceId' | 'engramId'>): Promise<StatusDetection | undefined> {
  const none = { pending_jobs: 0, failed_jobs: 0, stuck_jobs: 0, note: null };
  try {
    // Status is called often and the backlog is usually empty: probe before describing it.
    if (!(await hasDetectionBacklog(db, principal.workspaceId))) return none;
    const [backlog] = await detectionBacklog(db, { workspaceId: principal.workspaceId });
    if (!backlog) return none;
    const { failed_jobs, stuck_jobs, note } = describeBacklog(backlog, principal.engramId);
    return { pending_jobs: backlog.pending, failed_jobs, stuck_jobs, note };
  } catch (error) {
    if (databaseFault(error)) return undefined;
    throw error;
  }
}

/** `report` with its detection part, the note (failed or stuck work) appended to what to tell the user. */
export function withDetection<T extends { next_prompt: string }>(detection: StatusDetection | undefined, report: T): T & { detection?: StatusDetection } {
  if (!detection) return report;
  return { ...report, detection, next_prompt: detection.note ? `${report.next_prompt} ${detection.note}` : report.next_prompt };
}

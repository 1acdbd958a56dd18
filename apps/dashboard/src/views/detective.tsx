/**
 * The detective: whether the narrative (LLM) detective is on, the queue, recent runs, tokens spent,
 * and work that failed or is stuck, with what to do about it (owners requeue failed jobs here).
 */
import { useState } from 'react';
import { api, ApiError, useApi } from '../api.ts';
import { Badge, EmptyState, ErrorNotice, Loading, PageHeader, Stat, StatusMessage, type BadgeTone, DataTable } from '../components/ui.tsx';
import { formatDateTime, formatDuration, formatNumber, formatPercent, formatRelative } from '../format.ts';
import { useSession } from '../session.tsx';
import type { DetectionRun, DetectionStatus } from '../types.ts';

const STATE: Record<string, { label: string; tone: BadgeTone }> = {
  on: { label: 'On', tone: 'success' },
  off: { label: 'Off', tone: 'neutral' },
  paused: { label: 'Paused', tone: 'warning' },
};
const RUN_TONE: Record<string, BadgeTone> = { succeeded: 'success', failed: 'danger', running: 'info' };

export function DetectiveView() {
  const { data, error, loading, reload } = useApi<DetectionStatus>('/detection/status');

  return (
    <>
      <PageHeader
        title="Detective"
        description="Deterministic checks run on every commit. The narrative detective reads the team’s facts as a story with an LLM when the server has an API key."
        actions={
          <button type="button" className="button button-secondary" onClick={reload} disabled={loading}>
            {loading ? 'Refreshing…' : 'Refresh'}
          </button>
        }
      />
      {error ? (
        <ErrorNotice error={error} title="Could not load the detection status" onRetry={reload} />
      ) : !data ? (
        <Loading label="Loading the detection status…" />
      ) : (
        <DetectiveStatus status={data} onChanged={reload} />
      )}
    </>
  );
}

function DetectiveStatus({ status, onChanged }: { status: DetectionStatus; onChanged: () => void }) {
  const state = status.narrative_state ?? (status.llm_enabled ? 'on' : 'off');
  const badge = STATE[state] ?? { label: state, tone: 'neutral' as const };
  const budget = status.daily_token_budget;
  const today = status.tokens_today;
  const used = today !== undefined && budget ? today / budget : undefined;

  return (
    <>
      <Attention status={status} onChanged={onChanged} />
      <section className="card" aria-labelledby="narrative-heading">
        <h2 id="narrative-heading" className="card-heading">
          Narrative detective <Badge tone={badge.tone}>{badge.label}</Badge>
        </h2>
        <p>{status.narrative}</p>
        {status.model ? (
          <p className="muted small">
            Model: <code>{status.model}</code>
          </p>
        ) : null}
      </section>

      <section aria-labelledby="figures-heading">
        <h2 id="figures-heading" className="visually-hidden">
          Key figures
        </h2>
        <dl className="stats">
          <Stat label="Pending jobs" value={formatNumber(status.pending_jobs)} hint={status.running_jobs ? `${status.running_jobs} running` : undefined} />
          <Stat
            label="Failed jobs"
            value={formatNumber(status.failed_jobs)}
            hint={status.retrying_jobs ? `${formatNumber(status.retrying_jobs)} retrying after a failed run` : undefined}
          />
          {status.stuck_jobs !== undefined ? (
            <Stat
              label="Stuck jobs"
              value={formatNumber(status.stuck_jobs)}
              hint={status.stuck_since ? `waiting since ${formatRelative(status.stuck_since)}` : undefined}
            />
          ) : null}
          <Stat label="Runs" value={formatNumber(status.runs_total)} hint={status.last_run_at ? `last ${formatRelative(status.last_run_at)}` : 'none yet'} />
          {today !== undefined ? (
            <Stat
              label="Tokens today"
              value={formatNumber(today)}
              hint={budget ? `of ${formatNumber(budget)} daily budget (${formatPercent(used)})` : budget === 0 ? 'budget is 0: paused' : undefined}
            />
          ) : null}
          <Stat
            label="Tokens, all runs"
            value={formatNumber(status.tokens.prompt + status.tokens.completion)}
            hint={`${formatNumber(status.tokens.prompt)} prompt · ${formatNumber(status.tokens.completion)} completion`}
          />
        </dl>
      </section>

      <section aria-labelledby="runs-heading">
        <h2 id="runs-heading">Recent runs</h2>
        {status.recent_runs.length === 0 ? (
          <EmptyState title="No detection runs yet">A run starts shortly after agents commit facts.</EmptyState>
        ) : (
          <DataTable caption="Recent detection runs, newest first" phoneColumns={3}>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col" className="numeric">
                  Duration
                </th>
                <th scope="col" className="numeric">
                  Facts read
                </th>
                <ShortHeader short="Conflicts" full="Conflicts raised" />
                <ShortHeader short="Settled" full="Facts settled" />
                <th scope="col">Narrative</th>
                <th scope="col" className="numeric">
                  Tokens
                </th>
              </tr>
            </thead>
            <tbody>
              {status.recent_runs.map((run) => (
                <RunRow key={run.run_id} run={run} />
              ))}
            </tbody>
          </DataTable>
        )}
      </section>
    </>
  );
}

const jobs = (n: number) => `${formatNumber(n)} detection ${n === 1 ? 'job' : 'jobs'}`;

/**
 * Failed and stuck work, and what to do: failed jobs are facts never checked for conflicts (owners
 * requeue them here; operators with `engram detection requeue`); stuck ones mean no worker is taking
 * the queue. Nothing is shown while all is well.
 */
function Attention({ status, onChanged }: { status: DetectionStatus; onChanged: () => void }) {
  const session = useSession();
  const owner = session.member.role === 'owner';
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const failed = status.failed_jobs;
  const stuck = status.stuck_jobs ?? 0;
  const engramId = session.workspace.engram_id ?? 'ENG-XXXX-XXXX';

  const requeue = async () => {
    setBusy(true);
    setError(null);
    try {
      const { requeued } = await api<{ requeued: number }>('POST', '/detection/requeue', {});
      setMessage(
        requeued === 0 ? 'No failed jobs were left to requeue.' : `Requeued ${jobs(requeued)}: the detective picks them up within seconds.`,
      );
      onChanged();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'client', String(caught)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <StatusMessage message={message} />
      {error ? <ErrorNotice error={error} title="Could not requeue the failed jobs" /> : null}
      {failed > 0 || stuck > 0 ? (
        <section className="notice notice-warning" aria-labelledby="attention-heading">
          <h2 id="attention-heading" className="notice-title card-heading">
            Detection needs attention
          </h2>
          {failed > 0 ? (
            <>
              <p>
                {jobs(failed)} failed after every retry, so the {failed === 1 ? 'fact behind it has' : 'facts behind them have'} not been checked for
                conflicts.{' '}
                {owner ? `Requeue ${failed === 1 ? 'it' : 'them'} to try again.` : `An owner can requeue ${failed === 1 ? 'it' : 'them'} on this page.`} Operators can
                also run{' '}
                <code>engram detection requeue --workspace {engramId}</code>.
              </p>
              {status.last_error ? <p className="small">Last error: {status.last_error}</p> : null}
              {owner ? (
                <button type="button" className="button" onClick={() => void requeue()} disabled={busy}>
                  {busy ? 'Requeuing…' : 'Requeue failed jobs'}
                </button>
              ) : null}
            </>
          ) : null}
          {stuck > 0 ? (
            <p>
              {jobs(stuck)} {stuck === 1 ? 'has' : 'have'} waited{status.stuck_since ? ` since ${formatRelative(status.stuck_since)}` : ' over a minute'} with
              no worker taking {stuck === 1 ? 'it' : 'them'}
              {status.stalled_runs ? ` (${status.stalled_runs === 1 ? 'a run' : `${status.stalled_runs} runs`} stopped renewing ${status.stalled_runs === 1 ? 'its' : 'their'} lease)` : ''}.
              Check that the server runs a detection worker (the in-process one, or <code>engram worker</code>) and that its database is
              reachable: nothing is lost, and detection resumes by itself once a worker can take the queue.
            </p>
          ) : null}
        </section>
      ) : null}
    </>
  );
}

/** A numeric column's header, shortened so the table fits: the full name is its title and accessible name. */
function ShortHeader({ short, full }: { short: string; full: string }) {
  return (
    <th scope="col" className="numeric" aria-label={full}>
      <abbr title={full}>{short}</abbr>
    </th>
  );
}

/** What the narrative pass did in a run: off, why it did not run (e.g. paused), or what it read. */
function narrativeSummary(run: DetectionRun): string {
  if (run.narrative == null) return 'off';
  if (run.narrative !== 'ran') return run.narrative;
  const batches = run.batches ?? 0;
  return [
    run.story_facts != null ? `${formatNumber(run.story_facts)} story facts` : null,
    `${batches} ${batches === 1 ? 'batch' : 'batches'}${run.failed_batches ? ` (${run.failed_batches} failed)` : ''}`,
    `${run.llm_calls} LLM ${run.llm_calls === 1 ? 'call' : 'calls'}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

function RunRow({ run }: { run: DetectionRun }) {
  const narrative = narrativeSummary(run);
  return (
    <tr>
      <td data-label="Started" className="nowrap phone-span-2">
        <time dateTime={run.started_at ?? undefined}>{formatDateTime(run.started_at)}</time>
      </td>
      <td data-label="Status">
        <Badge tone={RUN_TONE[run.status] ?? 'neutral'}>{run.status}</Badge>
        {run.error ? <p className="small error-text">{run.error}</p> : null}
      </td>
      <td data-label="Duration" className="numeric">
        {formatDuration(run.duration_ms)}
      </td>
      <td data-label="Facts read" className="numeric">
        {formatNumber(run.facts_read)}
      </td>
      <td data-label="Conflicts raised" className="numeric">
        {formatNumber(run.conflicts_raised)}
      </td>
      <td data-label="Facts settled" className="numeric">
        {formatNumber(run.facts_retired)}
      </td>
      <td data-label="Narrative" className={run.failed_batches ? 'error-text' : undefined}>
        {narrative}
      </td>
      <td data-label="Tokens" className="numeric">
        {formatNumber(run.prompt_tokens + run.completion_tokens)}
      </td>
    </tr>
  );
}

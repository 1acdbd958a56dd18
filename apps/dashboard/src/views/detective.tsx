/** The detective: whether the narrative (LLM) detective is on, the queue, recent runs, tokens spent. */
import { useApi } from '../api.ts';
import { Badge, EmptyState, ErrorNotice, Loading, PageHeader, Stat, type BadgeTone, DataTable } from '../components/ui.tsx';
import { formatDateTime, formatDuration, formatNumber, formatPercent, formatRelative } from '../format.ts';
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
        <DetectiveStatus status={data} />
      )}
    </>
  );
}

function DetectiveStatus({ status }: { status: DetectionStatus }) {
  const state = status.narrative_state ?? (status.llm_enabled ? 'on' : 'off');
  const badge = STATE[state] ?? { label: state, tone: 'neutral' as const };
  const budget = status.daily_token_budget;
  const today = status.tokens_today;
  const used = today !== undefined && budget ? today / budget : undefined;

  return (
    <>
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
          <Stat label="Failed jobs" value={formatNumber(status.failed_jobs)} />
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

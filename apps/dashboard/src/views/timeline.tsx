/**
 * The timeline: how long each fact was believed, per scope, as a Gantt chart (plus the same data
 * as a table for screen readers and copying). Loaded on demand together with the chart library.
 */
import { useMemo, type FormEvent } from 'react';
import { queryString, useApi } from '../api.ts';
import { GanttChart, ganttRows } from '../components/gantt-chart.tsx';
import { Committer, DataTable, EmptyState, ErrorNotice, Loading, PageHeader, ScopeTag } from '../components/ui.tsx';
import { formText } from '../forms.ts';
import { endOfDayIso, formatDateTime, startOfDayIso } from '../format.ts';
import { navigate, useLocation } from '../router.tsx';
import type { TimelineResponse } from '../types.ts';

const LIMIT = 500;

export default function TimelineView() {
  const { path, query } = useLocation();
  const scope = query.get('scope') ?? '';
  const since = query.get('since') ?? '';
  const until = query.get('until') ?? '';
  const { data, error, loading, reload } = useApi<TimelineResponse>(
    `/timeline${queryString({ scope, since: since ? startOfDayIso(since) : '', until: until ? endOfDayIso(until) : '', limit: LIMIT })}`,
  );
  const rows = useMemo(() => ganttRows(data?.facts ?? []), [data]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => formText(form, name);
    navigate(`${path}${queryString({ scope: value('scope'), since: value('since'), until: value('until') })}`);
  };

  return (
    <>
      <PageHeader
        title="Timeline"
        description="How long each fact was believed. Solid bars are still current; faded bars were superseded, expired or resolved away."
      />
      <form className="filters filters-compact" role="search" aria-label="Filter the timeline" onSubmit={submit} key={query.toString()}>
        <div className="field">
          <label htmlFor="t-scope">Scope</label>
          <input id="t-scope" name="scope" defaultValue={scope} placeholder="e.g. payments" />
        </div>
        <div className="field">
          <label htmlFor="t-since">From</label>
          <input id="t-since" name="since" type="date" defaultValue={since} />
        </div>
        <div className="field">
          <label htmlFor="t-until">To</label>
          <input id="t-until" name="until" type="date" defaultValue={until} />
        </div>
        <div className="filter-actions">
          <button type="submit" className="button">
            Show
          </button>
        </div>
      </form>
      <section aria-labelledby="timeline-heading" aria-busy={loading}>
        <h2 id="timeline-heading" className="visually-hidden">
          Validity windows
        </h2>
        {error ? (
          <ErrorNotice error={error} title="Could not load the timeline" onRetry={reload} />
        ) : !data ? (
          <Loading label="Loading the timeline…" />
        ) : rows.length === 0 ? (
          <EmptyState title="Nothing on the timeline yet">Facts appear here with their validity windows once agents commit them.</EmptyState>
        ) : (
          <>
            {data.truncated ?? data.facts.length >= LIMIT ? (
              <p className="notice notice-info">Showing the {LIMIT} most recent windows: narrow the scope or the dates to see the rest.</p>
            ) : null}
            <div className="card chart-card">
              <GanttChart rows={rows} />
            </div>
            <details className="card">
              <summary>Show as a table</summary>
              <DataTable caption="Validity windows">
                <thead>
                  <tr>
                    <th scope="col">Scope</th>
                    <th scope="col">Fact</th>
                    <th scope="col">By</th>
                    <th scope="col">Valid from</th>
                    <th scope="col">Valid until</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.flatMap((row) =>
                    row.windows.map((w) => (
                      <tr key={w.id}>
                        <td data-label="Scope">
                          <ScopeTag scope={w.scope} />
                        </td>
                        <td data-label="Fact" className="phone-wide">
                          {w.content}
                        </td>
                        <td data-label="By">
                          <Committer member={w.member} agentId={w.agent_id} />
                        </td>
                        <td data-label="Valid from">{formatDateTime(w.valid_from)}</td>
                        <td data-label="Valid until">{w.valid_until ? formatDateTime(w.valid_until) : 'still current'}</td>
                      </tr>
                    )),
                  )}
                </tbody>
              </DataTable>
            </details>
          </>
        )}
      </section>
    </>
  );
}

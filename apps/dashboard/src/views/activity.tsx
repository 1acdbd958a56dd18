/** Agent activity: who commits how much, how often their facts end up in conflicts, how often verified. */
import { useApi } from '../api.ts';
import { EmptyState, ErrorNotice, Loading, PageHeader, RateBar, DataTable } from '../components/ui.tsx';
import { formatDateTime, formatNumber, formatPercent, formatRelative } from '../format.ts';
import { navigate, useLocation } from '../router.tsx';
import type { ActivityResponse } from '../types.ts';

const PERIODS = [7, 30, 90];

export function ActivityView() {
  const { query } = useLocation();
  const requested = Number(query.get('days'));
  const days = PERIODS.includes(requested) ? requested : 30;
  const { data, error, loading, reload } = useApi<ActivityResponse>(`/agents/activity?days=${days}`);
  const agents = [...(data?.agents ?? [])].sort((a, b) => b.commits - a.commits || a.agent_id.localeCompare(b.agent_id));

  return (
    <>
      <PageHeader
        title="Agent activity"
        description="Commit rate, how often an agent’s facts end up in conflicts, and how often other agents verified them."
        actions={
          <div className="field field-inline">
            <label htmlFor="a-days">Period</label>
            <select id="a-days" value={days} onChange={(e) => navigate(`/activity?days=${e.target.value}`)}>
              {PERIODS.map((d) => (
                <option key={d} value={d}>
                  Last {d} days
                </option>
              ))}
            </select>
          </div>
        }
      />
      <section aria-labelledby="activity-heading" aria-busy={loading}>
        <h2 id="activity-heading" className="visually-hidden">
          Agents
        </h2>
        {error ? (
          <ErrorNotice error={error} title="Could not load agent activity" onRetry={reload} />
        ) : !data ? (
          <Loading label="Loading agent activity…" />
        ) : agents.length === 0 ? (
          <EmptyState title={`No commits in the last ${days} days`}>Agents show up here once they commit facts.</EmptyState>
        ) : (
          <DataTable caption={`Agent activity over the last ${data.days} days`}>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Member</th>
                <th scope="col" className="numeric">
                  Commits
                </th>
                <th scope="col" className="numeric">
                  Per day
                </th>
                <th scope="col">Conflict rate</th>
                <th scope="col">Verification rate</th>
                <th scope="col">Last commit</th>
              </tr>
            </thead>
            <tbody>
              {agents.map((a) => (
                <tr key={a.agent_id}>
                  <th scope="row" data-label="Agent" className="phone-wide">
                    {a.agent_id}
                  </th>
                  <td data-label="Member">{a.member ?? <span className="muted">not named</span>}</td>
                  <td data-label="Commits" className="numeric">
                    {formatNumber(a.commits)}
                  </td>
                  <td data-label="Per day" className="numeric">
                    {a.commits_per_day.toFixed(a.commits_per_day < 10 ? 1 : 0)}
                  </td>
                  <td data-label="Conflict rate">
                    <span className="rate">
                      <RateBar rate={a.conflict_rate} tone="danger" />
                      {formatPercent(a.conflict_rate)} <span className="muted small">({formatNumber(a.conflicts)})</span>
                    </span>
                  </td>
                  <td data-label="Verification rate">
                    <span className="rate">
                      <RateBar rate={a.verification_rate} tone="success" />
                      {formatPercent(a.verification_rate)} <span className="muted small">({formatNumber(a.verified)})</span>
                    </span>
                  </td>
                  <td data-label="Last commit">
                    <time dateTime={a.last_commit_at ?? undefined} title={formatDateTime(a.last_commit_at)}>
                      {formatRelative(a.last_commit_at)}
                    </time>
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
      </section>
    </>
  );
}

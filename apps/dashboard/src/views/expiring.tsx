/** Facts with a time to live that runs out soon (ephemeral facts, facts committed with ttl_days). */
import { useApi } from '../api.ts';
import { FactTable } from '../components/fact-table.tsx';
import { EmptyState, ErrorNotice, Loading, PageHeader } from '../components/ui.tsx';
import { navigate, useLocation } from '../router.tsx';
import type { ExpiringResponse } from '../types.ts';

const WINDOWS = [1, 7, 30];

export function ExpiringView() {
  const { query } = useLocation();
  const requested = Number(query.get('within_days'));
  const within = WINDOWS.includes(requested) ? requested : 7;
  const { data, error, loading, reload } = useApi<ExpiringResponse>(`/facts/expiring?within_days=${within}`);
  const facts = [...(data?.facts ?? [])].sort((a, b) => (a.expires_at ?? '').localeCompare(b.expires_at ?? ''));

  return (
    <>
      <PageHeader
        title="Expiring facts"
        description="Facts whose time to live runs out soon. When it does, agents stop receiving them; an agent can commit the fact again (or promote an ephemeral one) to keep it."
        actions={
          <div className="field field-inline">
            <label htmlFor="e-within">Expiring within</label>
            <select id="e-within" value={within} onChange={(e) => navigate(`/expiring?within_days=${e.target.value}`)}>
              {WINDOWS.map((d) => (
                <option key={d} value={d}>
                  {d === 1 ? '1 day' : `${d} days`}
                </option>
              ))}
            </select>
          </div>
        }
      />
      <section aria-labelledby="expiring-heading" aria-busy={loading}>
        <h2 id="expiring-heading" className="visually-hidden">
          Facts expiring within {within} days
        </h2>
        {error ? (
          <ErrorNotice error={error} title="Could not load expiring facts" onRetry={reload} />
        ) : !data ? (
          <Loading label="Loading expiring facts…" />
        ) : facts.length === 0 ? (
          <EmptyState title={`Nothing expires in the next ${within === 1 ? 'day' : `${within} days`}`}>
            Durable facts without a time to live never expire.
          </EmptyState>
        ) : (
          <FactTable facts={facts} caption={`Facts expiring within ${within} days`} showExpiry />
        )}
      </section>
    </>
  );
}

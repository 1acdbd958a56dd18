/**
 * The knowledge base (current facts) and the point-in-time view (what was current at an instant):
 * one list, filtered from the address bar so a view can be bookmarked and shared.
 */
import { useState, type FormEvent } from 'react';
import { queryString, useApi } from '../api.ts';
import { FactTable } from '../components/fact-table.tsx';
import { formText } from '../forms.ts';
import { EmptyState, ErrorNotice, Loading, PageHeader } from '../components/ui.tsx';
import { endOfDayIso, formatInstant, formatNumber, startOfDayIso } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import type { FactsResponse } from '../types.ts';

const PAGE_SIZE = 50;
const FILTERS = ['q', 'scope', 'agent_id', 'fact_type', 'since', 'until'] as const;

/** `2026-03-01T14:30` (datetime-local, local time) → ISO instant; undefined when unparseable. */
function localToIso(value: string | null): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

export function KnowledgeView({ mode }: { mode: 'current' | 'as-of' }) {
  const { path, query } = useLocation();
  const asOfLocal = query.get('as_of');
  const asOf = localToIso(asOfLocal);
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
  const since = query.get('since');
  const until = query.get('until');

  const apiPath =
    mode === 'as-of' && !asOf
      ? null
      : `/facts${queryString({
          q: query.get('q'),
          scope: query.get('scope'),
          agent_id: query.get('agent_id'),
          fact_type: query.get('fact_type'),
          since: since ? startOfDayIso(since) : undefined,
          until: until ? endOfDayIso(until) : undefined,
          as_of: mode === 'as-of' ? asOf : undefined,
          limit: PAGE_SIZE,
          offset: offset || undefined,
        })}`;
  const { data, error, loading, reload } = useApi<FactsResponse>(apiPath);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next: Record<string, string> = {};
    for (const name of [...FILTERS, 'as_of']) {
      const value = formText(form, name);
      if (value) next[name] = value;
    }
    setFiltersOpen(false);
    navigate(`${path}${queryString(next)}`);
  };
  const page = (to: number) => {
    const next = new URLSearchParams(query);
    if (to > 0) next.set('offset', String(to));
    else next.delete('offset');
    const s = next.toString();
    navigate(`${path}${s ? `?${s}` : ''}`);
  };
  const active = FILTERS.filter((f) => query.get(f)).length;
  const filtered = active > 0;
  // On phones the filters wait behind a disclosure so the facts come first (wide screens show them).
  const [filtersOpen, setFiltersOpen] = useState(false);

  const title = mode === 'current' ? 'Knowledge base' : 'Point in time';
  const description =
    mode === 'current'
      ? 'What the team’s agents currently hold true. Superseded, expired and resolved-away facts are not listed.'
      : 'What the team believed at a moment in the past: the facts whose validity window covered that instant, each labelled as it stood then.';

  const actions = (
    <div className="filter-actions">
      <button type="submit" className="button">
        {mode === 'as-of' ? 'Show' : 'Apply filters'}
      </button>
      {filtered || asOfLocal ? (
        <button type="button" className="button button-secondary" onClick={() => navigate(path)}>
          Clear
        </button>
      ) : null}
    </div>
  );

  return (
    <>
      <PageHeader title={title} description={description} />
      <form
        className={`filters${mode === 'as-of' ? ' filters-as-of' : ''}${filtersOpen ? '' : ' filters-collapsed'}`}
        role="search"
        aria-label={`Filter ${title.toLowerCase()}`}
        onSubmit={submit}
        key={query.toString()}
      >
        {mode === 'as-of' ? (
          <>
            <div className="field field-wide">
              <label htmlFor="f-as-of">Show facts as of</label>
              <input id="f-as-of" name="as_of" type="datetime-local" step={1} defaultValue={asOfLocal ?? ''} required />
            </div>
            {actions}
          </>
        ) : null}
        <button
          type="button"
          className="filters-toggle button button-secondary"
          aria-expanded={filtersOpen}
          aria-controls="filter-fields"
          onClick={() => setFiltersOpen((open) => !open)}
        >
          <span className="disclosure-icon" aria-hidden="true" />
          {active ? `Filters · ${active} active` : 'Filters'}
        </button>
        <div id="filter-fields" className="filter-fields">
          <div className="field field-wide">
            <label htmlFor="f-q">Search</label>
            <input id="f-q" name="q" type="search" maxLength={200} defaultValue={query.get('q') ?? ''} placeholder="e.g. rate limit" />
          </div>
          <div className="field">
            <label htmlFor="f-scope">
              Scope <span className="label-hint">(and below)</span>
            </label>
            <input id="f-scope" name="scope" defaultValue={query.get('scope') ?? ''} placeholder="e.g. payments" />
          </div>
          <div className="field">
            <label htmlFor="f-agent">Agent</label>
            <input id="f-agent" name="agent_id" defaultValue={query.get('agent_id') ?? ''} />
          </div>
          <div className="field">
            <label htmlFor="f-type">Type</label>
            <select id="f-type" name="fact_type" defaultValue={query.get('fact_type') ?? ''}>
              <option value="">Any type</option>
              <option value="observation">Observation</option>
              <option value="inference">Inference</option>
              <option value="decision">Decision</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="f-since">Committed from</label>
            <input id="f-since" name="since" type="date" defaultValue={since ?? ''} />
          </div>
          <div className="field">
            <label htmlFor="f-until">Committed to</label>
            <input id="f-until" name="until" type="date" defaultValue={until ?? ''} />
          </div>
          {mode === 'current' ? actions : null}
        </div>
      </form>

      <section aria-labelledby="results-heading" aria-busy={loading}>
        <h2 id="results-heading" className="visually-hidden">
          Results
        </h2>
        {mode === 'as-of' && !asOf ? (
          <EmptyState title="Pick a moment">Choose a date and time above to see the facts that were current then.</EmptyState>
        ) : error ? (
          <ErrorNotice error={error} title="Could not load the facts" onRetry={reload} />
        ) : !data ? (
          <Loading label="Loading facts…" />
        ) : data.facts.length === 0 ? (
          <EmptyState title={filtered ? 'No facts match these filters' : mode === 'as-of' ? 'No facts were current then' : 'No facts yet'}>
            {filtered ? (
              'Try a broader search, or clear the filters.'
            ) : mode === 'as-of' ? (
              'Try a later moment.'
            ) : (
              <>
                Facts appear here when agents call <code>engram_commit</code>. Connect an agent from the{' '}
                <Link to="/members">Members</Link> page.
              </>
            )}
          </EmptyState>
        ) : (
          <>
            <p className="result-count" aria-live="polite">
              {loading ? 'Updating… ' : ''}
              {data.total > data.facts.length
                ? `Showing ${formatNumber(offset + 1)}–${formatNumber(offset + data.facts.length)} of ${formatNumber(data.total)} facts`
                : `${formatNumber(data.total)} ${data.total === 1 ? 'fact' : 'facts'}`}
              {mode === 'as-of' && asOf ? ` current at ${formatInstant(asOf)}` : ''}
            </p>
            <FactTable
              facts={data.facts}
              caption={mode === 'as-of' ? `Facts current at ${formatInstant(asOf)}` : 'Current facts'}
              asOf={mode === 'as-of' ? asOf : undefined}
            />
            {data.total > PAGE_SIZE ? (
              <nav className="pager" aria-label="Pages">
                <button type="button" className="button button-secondary" disabled={offset === 0} onClick={() => page(Math.max(0, offset - PAGE_SIZE))}>
                  Previous
                </button>
                <button
                  type="button"
                  className="button button-secondary"
                  disabled={offset + data.facts.length >= data.total}
                  onClick={() => page(offset + PAGE_SIZE)}
                >
                  Next
                </button>
              </nav>
            ) : null}
          </>
        )}
      </section>
    </>
  );
}

/**
 * The conflict queue: grouped by scope, most severe first, each conflict's facts side by side with
 * the question that settles it. Settling is one click (keep this one / merge / dismiss) plus a
 * confirmation with the resolution note, so nothing closes facts by accident.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiError, queryString, useApi } from '../api.ts';
import { formText } from '../forms.ts';
import { CitationList } from '../components/citations.tsx';
import { Badge, EmptyState, ErrorNotice, Loading, PageHeader, ScopeTag, StatusMessage, type BadgeTone } from '../components/ui.tsx';
import { DETECTOR_LABELS, formatDateTime, formatRelative, KIND_LABELS } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { useSession } from '../session.tsx';
import type { Conflict, ConflictFact, ConflictsResponse, ConflictStatus, ResolveResponse } from '../types.ts';

const SEVERITY_TONE: Record<string, BadgeTone> = { high: 'danger', medium: 'warning', low: 'neutral' };
const STATUSES: { value: ConflictStatus; label: string }[] = [
  { value: 'open', label: 'Open' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'dismissed', label: 'Dismissed' },
];

const RESOLUTION_LABELS: Record<string, string> = {
  winner: 'Resolved, one fact kept',
  merge: 'Resolved by merging',
  dismissed: 'Dismissed as a false alarm',
  detector: 'Settled by the detector',
  resolved: 'Resolved',
};

type Action = { type: 'winner'; fact: ConflictFact } | { type: 'merge' } | { type: 'dismissed' };

const excerpt = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
/** The detector's reason, after the label the card shows (its resolution reads "Settled by the detector: <reason>."). */
const settlementReason = (resolution: string | null) =>
  (resolution ?? '').replace(new RegExp(`^${RESOLUTION_LABELS.detector}:\\s*`, 'i'), '').replace(/\.+$/, '') || 'no note';

export function ConflictsView() {
  const { query } = useLocation();
  const status = (STATUSES.find((s) => s.value === query.get('status'))?.value ?? 'open') satisfies ConflictStatus;
  const kind = query.get('kind') ?? '';
  const scope = query.get('scope') ?? '';
  const { data, error, loading, reload } = useApi<ConflictsResponse>(`/conflicts${queryString({ status, kind, scope })}`);
  const [outcome, setOutcome] = useState<string | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);

  const link = (next: Record<string, string>) => `/conflicts${queryString({ status: status === 'open' ? '' : status, kind, scope, ...next })}`;
  const submitFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    navigate(link({ kind: formText(form, 'kind'), scope: formText(form, 'scope') }));
  };
  const resolved = (message: string) => {
    setOutcome(message);
    reload();
    // The settled conflict leaves the open queue: keep keyboard focus somewhere meaningful.
    requestAnimationFrame(() => outcomeRef.current?.focus());
  };

  return (
    <>
      <PageHeader
        title="Conflicts"
        description="Where the team’s memory has become confusing. Answer the question, then keep the right fact, merge them, or dismiss a false alarm."
      />
      <nav className="tabs" aria-label="Conflict status">
        {STATUSES.map((s) => (
          <Link key={s.value} to={link({ status: s.value === 'open' ? '' : s.value })} aria-current={s.value === status ? 'page' : undefined} className="tab">
            {s.label}
          </Link>
        ))}
      </nav>
      <form className="filters filters-compact" role="search" aria-label="Filter conflicts" onSubmit={submitFilters} key={`${kind}|${scope}`}>
        <div className="field">
          <label htmlFor="c-kind">Kind</label>
          <select id="c-kind" name="kind" defaultValue={kind}>
            <option value="">Any kind</option>
            {Object.entries(KIND_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="c-scope">Scope</label>
          <input id="c-scope" name="scope" defaultValue={scope} placeholder="e.g. payments" />
        </div>
        <div className="filter-actions">
          <button type="submit" className="button">
            Apply filters
          </button>
        </div>
      </form>

      <div ref={outcomeRef} tabIndex={-1} className="focus-target">
        <StatusMessage message={outcome} />
      </div>

      <section aria-labelledby="queue-heading" aria-busy={loading}>
        <h2 id="queue-heading" className="visually-hidden">
          {STATUSES.find((s) => s.value === status)?.label} conflicts
        </h2>
        {error ? (
          <ErrorNotice error={error} title="Could not load the conflicts" onRetry={reload} />
        ) : !data ? (
          <Loading label="Loading conflicts…" />
        ) : data.total === 0 ? (
          <EmptyState title={status === 'open' ? 'No open conflicts' : `No ${status} conflicts`}>
            {status === 'open'
              ? 'The team’s memory tells one consistent story. The detector checks every new fact in the background.'
              : 'Conflicts appear here once they are settled.'}
          </EmptyState>
        ) : (
          data.groups.map((group) => (
            <section key={group.scope} className="conflict-group" aria-labelledby={`scope-${group.scope}`}>
              <h2 id={`scope-${group.scope}`} className="group-heading">
                <span className="muted">Scope</span> <ScopeTag scope={group.scope} />{' '}
                <span className="count">
                  {group.conflicts.length} {group.conflicts.length === 1 ? 'conflict' : 'conflicts'}
                </span>
              </h2>
              {group.conflicts.map((conflict) => (
                <ConflictCard key={conflict.conflict_id} conflict={conflict} onResolved={resolved} />
              ))}
            </section>
          ))
        )}
      </section>
    </>
  );
}

function ConflictCard({ conflict, onResolved }: { conflict: Conflict; onResolved: (message: string) => void }) {
  const session = useSession();
  const [action, setAction] = useState<Action | null>(null);
  // A settlement the detector made is a person's to overrule, like an open conflict.
  const bySettlement = conflict.resolution_type === 'detector';
  const canWrite = session.member.role !== 'reader' && (conflict.status === 'open' || bySettlement);
  const headingId = `conflict-${conflict.conflict_id}`;

  return (
    <article className={`conflict severity-${conflict.severity}`} aria-labelledby={headingId} data-conflict-id={conflict.conflict_id}>
      <div className="conflict-meta">
        <Badge tone={SEVERITY_TONE[conflict.severity] ?? 'neutral'}>{conflict.severity} severity</Badge>
        <Badge tone="info">{KIND_LABELS[conflict.kind] ?? conflict.kind}</Badge>
        <span className="muted small">
          Found by {DETECTOR_LABELS[conflict.detected_by] ?? conflict.detected_by}{' '}
          <time dateTime={conflict.detected_at} title={formatDateTime(conflict.detected_at)}>
            {formatRelative(conflict.detected_at)}
          </time>
        </span>
      </div>
      <h3 id={headingId} className="conflict-question">
        {conflict.question}
      </h3>
      {conflict.explanation ? <p className="conflict-explanation">{conflict.explanation}</p> : null}

      <ol className="conflict-facts" aria-label="Facts involved, oldest first">
        {conflict.facts.map((fact, index) => {
          const label = String.fromCharCode(65 + (index % 26));
          const won = conflict.winning_fact_id === fact.fact_id;
          return (
            <li key={fact.fact_id} className={`conflict-fact${won ? ' winner' : ''}`} data-fact-id={fact.fact_id}>
              <p className="fact-label" aria-hidden="true">
                {label}
              </p>
              <p className="fact-text">{fact.content}</p>
              <CitationList citations={fact.citations} />
              <dl className="fact-meta">
                {fact.member ? (
                  <div>
                    <dt>Member</dt>
                    <dd className="fact-member">{fact.member}</dd>
                  </div>
                ) : null}
                <div>
                  <dt>Agent</dt>
                  <dd>{fact.agent_id}</dd>
                </div>
                <div>
                  <dt>Committed</dt>
                  <dd>
                    <time dateTime={fact.committed_at}>{formatDateTime(fact.committed_at)}</time>
                  </dd>
                </div>
                <div>
                  <dt>Scope</dt>
                  <dd>
                    <ScopeTag scope={fact.scope} />
                  </dd>
                </div>
              </dl>
              {won ? <Badge tone="success">Kept</Badge> : fact.valid_until ? <Badge>Closed {formatRelative(fact.valid_until)}</Badge> : null}
              {canWrite ? (
                <button
                  type="button"
                  className="button"
                  aria-label={`Keep this one (fact ${label}): ${excerpt(fact.content, 80)}`}
                  aria-expanded={action?.type === 'winner' && action.fact.fact_id === fact.fact_id}
                  onClick={() => setAction({ type: 'winner', fact })}
                >
                  Keep this one
                </button>
              ) : null}
            </li>
          );
        })}
      </ol>
      {conflict.facts_omitted > 0 ? <p className="muted small">{conflict.facts_omitted} older facts of this conflict are not shown.</p> : null}

      {bySettlement ? (
        <p className="resolution">
          <strong>{RESOLUTION_LABELS.detector}:</strong> {settlementReason(conflict.resolution)}. Keep another fact, or undo, to overrule it.
        </p>
      ) : null}
      {canWrite ? (
        <div className="conflict-actions">
          <button type="button" className="button button-secondary" aria-expanded={action?.type === 'merge'} onClick={() => setAction({ type: 'merge' })}>
            Merge…
          </button>
          <button type="button" className="button button-secondary" aria-expanded={action?.type === 'dismissed'} onClick={() => setAction({ type: 'dismissed' })}>
            {bySettlement ? 'Undo: keep both…' : 'Dismiss…'}
          </button>
        </div>
      ) : conflict.status === 'open' || bySettlement ? (
        <p className="muted small">Your role is reader: you can see conflicts but not settle them.</p>
      ) : (
        <p className="resolution">
          <strong>{RESOLUTION_LABELS[conflict.resolution_type ?? conflict.status] ?? 'Settled'}:</strong> {conflict.resolution ?? 'no note'}
        </p>
      )}

      {action ? (
        <ResolveForm
          key={action.type === 'winner' ? action.fact.fact_id : action.type}
          conflict={conflict}
          action={action}
          onCancel={() => setAction(null)}
          onDone={(message) => {
            setAction(null);
            onResolved(message);
          }}
        />
      ) : null}
    </article>
  );
}

function ResolveForm({
  conflict,
  action,
  onCancel,
  onDone,
}: {
  conflict: Conflict;
  action: Action;
  onCancel: () => void;
  onDone: (message: string) => void;
}) {
  const newest = conflict.facts.at(-1);
  const [note, setNote] = useState(() =>
    action.type === 'winner'
      ? `Kept: ${excerpt(action.fact.content, 200)}`
      : action.type === 'merge'
        ? 'Merged into one fact.'
        : 'Not a real conflict.',
  );
  const [merged, setMerged] = useState(newest?.content ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const first = useRef<HTMLTextAreaElement & HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);

  const id = conflict.conflict_id;
  const title =
    action.type === 'winner'
      ? 'Keep this fact and close the others'
      : action.type === 'merge'
        ? 'Replace these facts with one merged fact'
        : conflict.resolution_type === 'detector'
          ? 'Undo the detector’s settlement: keep both facts'
          : 'Dismiss as a false alarm';
  const explain =
    action.type === 'winner'
      ? `“${excerpt(action.fact.content)}” stays current; ${conflict.facts.length === 2 ? 'the other fact is' : `the other ${conflict.facts.length - 1} facts are`} closed and no longer returned to agents.`
      : action.type === 'merge'
        ? 'The merged fact is committed in the conflict’s scope and every original fact is closed.'
        : conflict.resolution_type === 'detector'
          ? 'The fact the detector closed is current again, next to the later one, and this pair is never raised again.'
          : 'All facts stay as they are, and this set of facts is never raised again.';
  const confirmLabel = action.type === 'winner' ? 'Confirm: keep this fact' : action.type === 'merge' ? 'Confirm merge' : 'Confirm dismissal';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const result = await api<ResolveResponse>('POST', `/conflicts/${id}/resolve`, {
        resolution_type: action.type,
        resolution: note.trim(),
        ...(action.type === 'winner' ? { winning_claim_id: action.fact.fact_id } : {}),
        ...(action.type === 'merge' ? { merged_content: merged.trim() } : {}),
      });
      const closed = result.closed_fact_ids.length;
      const settled = result.settled_conflicts ?? 0;
      onDone(
        result.already_resolved
          ? 'This conflict had already been settled this way; nothing changed.'
          : action.type === 'dismissed'
            ? 'Conflict dismissed. It will not be raised again.'
            : `Conflict resolved: ${closed} ${closed === 1 ? 'fact was' : 'facts were'} closed${settled ? `, and ${settled} other ${settled === 1 ? 'conflict was' : 'conflicts were'} settled with it` : ''}.`,
      );
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'client', String(caught)));
      setBusy(false);
    }
  };

  return (
    <form className="resolve-form" aria-labelledby={`resolve-${id}`} onSubmit={(e) => void submit(e)}>
      <h4 id={`resolve-${id}`}>{title}</h4>
      <p className="muted">{explain}</p>
      {action.type === 'merge' ? (
        <div className="field">
          <label htmlFor={`merged-${id}`}>Merged fact</label>
          <textarea id={`merged-${id}`} ref={first} rows={3} required maxLength={4000} value={merged} onChange={(e) => setMerged(e.target.value)} />
        </div>
      ) : null}
      <div className="field">
        <label htmlFor={`note-${id}`}>Resolution note</label>
        <input
          id={`note-${id}`}
          ref={action.type === 'merge' ? undefined : first}
          required
          maxLength={2000}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          aria-describedby={`note-hint-${id}`}
        />
        <span id={`note-hint-${id}`} className="hint">
          Why — kept in the conflict’s history for the team.
        </span>
      </div>
      {error ? <ErrorNotice error={error} title="The conflict was not settled" /> : null}
      <div className="form-actions">
        <button type="submit" className={action.type === 'dismissed' ? 'button button-secondary' : 'button'} disabled={busy}>
          {busy ? 'Saving…' : confirmLabel}
        </button>
        <button type="button" className="button button-ghost" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

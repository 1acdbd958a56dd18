/** Facts as a table (compact cards on narrow screens). */
import { formatDateTime, formatInstant, formatPercent, formatRelative } from '../format.ts';
import { Link } from '../router.tsx';
import type { Fact } from '../types.ts';
import { FactCitations } from './citations.tsx';
import { Badge, Committer, DataTable, ScopeTag } from './ui.tsx';

export function FactBadges({ fact, showExpiry = true }: { fact: Fact; showExpiry?: boolean }) {
  const expires = showExpiry && fact.expires_at && !fact.valid_until;
  if (!fact.has_open_conflict && !fact.verified && fact.corroboration <= 0 && fact.durability !== 'ephemeral' && !fact.valid_until && !expires) return null;
  return (
    <span className="badges">
      {fact.has_open_conflict ? (
        <Link to={`/conflicts?scope=${encodeURIComponent(fact.scope)}`} className="badge badge-danger badge-link">
          Open conflict
        </Link>
      ) : null}
      {fact.verified ? <Badge tone="success">Verified</Badge> : null}
      {fact.corroboration > 0 ? (
        <Badge tone="info" title="Other agents committed the same fact">
          Corroborated ×{fact.corroboration}
        </Badge>
      ) : null}
      {fact.durability === 'ephemeral' ? <Badge tone="warning">Ephemeral</Badge> : null}
      {expires ? (
        <Badge tone="warning" title={`Expires ${formatDateTime(fact.expires_at)}`}>
          Expires {formatRelative(fact.expires_at)}
        </Badge>
      ) : null}
      {fact.valid_until ? <Badge title={`No longer current since ${formatDateTime(fact.valid_until)}`}>Superseded</Badge> : null}
    </span>
  );
}

const at = (iso: string | null) => (iso ? new Date(iso).getTime() : undefined);

/** Where a fact stood at an instant, from its validity window and its time to live. */
export function stateAt(fact: Fact, instant: number): 'not yet committed' | 'current' | 'closed' | 'expired' {
  if (at(fact.committed_at)! > instant) return 'not yet committed';
  const until = at(fact.valid_until);
  const expires = at(fact.expires_at);
  if (until !== undefined && until <= instant) return expires !== undefined && expires <= until ? 'expired' : 'closed';
  if (expires !== undefined && expires <= instant) return 'expired';
  return 'current';
}

const STATE_THEN = {
  'not yet committed': { label: 'Not committed yet then', tone: 'neutral' },
  current: { label: 'Current then', tone: 'success' },
  closed: { label: 'Superseded then', tone: 'neutral' },
  expired: { label: 'Expired then', tone: 'neutral' },
} as const;

/**
 * A fact's badges as of a past instant: its state then (from its window), whether a conflict over
 * it was open then (the API evaluates that at `as_of`), what happened to it later, and only the
 * badges that hold for that instant. How many agents had corroborated it then is not recorded
 * (the count is today's), so that badge is left out.
 */
export function FactBadgesAsOf({ fact, asOf }: { fact: Fact; asOf: string }) {
  const instant = new Date(asOf).getTime();
  const state = stateAt(fact, instant);
  const until = at(fact.valid_until);
  const expires = at(fact.expires_at);
  // What became of a fact that was current then: its window closed after that instant (the expiry
  // sweep closes it at the end of its TTL, so an expired fact says so).
  const endedAt = state === 'current' ? until : undefined;
  const ended = endedAt === undefined ? null : expires !== undefined && expires <= endedAt ? 'expired later' : 'closed later';
  return (
    <span className="badges">
      <Badge tone={STATE_THEN[state].tone} title={`As of ${formatInstant(asOf)}`}>
        {STATE_THEN[state].label}
      </Badge>
      {fact.has_open_conflict ? (
        <Badge tone="danger" title={`A conflict over this fact was open on ${formatDateTime(asOf)}`}>
          Conflict open then
        </Badge>
      ) : null}
      {fact.verified ? <Badge tone="success">Verified</Badge> : null}
      {fact.durability === 'ephemeral' ? <Badge tone="warning">Ephemeral</Badge> : null}
      {state === 'current' && expires !== undefined ? (
        <Badge tone="warning" title={`Expires ${formatDateTime(fact.expires_at)}, counted from ${formatDateTime(asOf)}`}>
          Expires {formatRelative(fact.expires_at, instant)}
        </Badge>
      ) : null}
      {ended ? (
        <span className="muted small">
          {ended}, <time dateTime={new Date(endedAt!).toISOString()}>{formatInstant(new Date(endedAt!).toISOString())}</time>
        </span>
      ) : null}
    </span>
  );
}

/** Facts as a table; with `asOf`, each fact is labelled as it stood at that instant. */
export function FactTable({ facts, caption, showExpiry = false, asOf }: { facts: Fact[]; caption: string; showExpiry?: boolean; asOf?: string }) {
  return (
    <DataTable caption={caption} phoneColumns={3}>
      <thead>
        <tr>
          <th scope="col">Fact</th>
          <th scope="col">Scope</th>
          <th scope="col">By</th>
          <th scope="col">Type</th>
          <th scope="col">{showExpiry ? 'Expires' : 'Committed'}</th>
          <th scope="col" className="numeric">
            Confidence
          </th>
        </tr>
      </thead>
      <tbody>
        {facts.map((fact) => (
          <tr key={fact.id} data-fact-id={fact.id}>
            <td data-label="Fact" className="fact-content phone-wide">
              <span>{fact.content}</span>
              {asOf ? <FactBadgesAsOf fact={fact} asOf={asOf} /> : <FactBadges fact={fact} showExpiry={!showExpiry} />}
              <FactCitations fact={fact} />
            </td>
            <td data-label="Scope" className="scope-cell">
              <ScopeTag scope={fact.scope} />
            </td>
            <td data-label="By" className="by-cell">
              <Committer member={fact.member} agentId={fact.agent_id} />
            </td>
            <td data-label="Type">{fact.fact_type}</td>
            <td data-label={showExpiry ? 'Expires' : 'Committed'} className="when-cell phone-span-2">
              {showExpiry ? (
                <time dateTime={fact.expires_at ?? undefined} title={formatDateTime(fact.expires_at)}>
                  {formatRelative(fact.expires_at)}
                </time>
              ) : (
                <time dateTime={fact.committed_at}>{formatDateTime(fact.committed_at)}</time>
              )}
            </td>
            <td data-label="Confidence" className="numeric">
              {formatPercent(fact.confidence)}
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}

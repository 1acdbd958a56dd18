/** Facts as a table (stacked into cards on narrow screens). */
import { formatDateTime, formatPercent, formatRelative } from '../format.ts';
import { Link } from '../router.tsx';
import type { Fact } from '../types.ts';
import { Badge, DataTable } from './ui.tsx';

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

export function FactTable({ facts, caption, showExpiry = false }: { facts: Fact[]; caption: string; showExpiry?: boolean }) {
  return (
    <DataTable caption={caption}>
      <thead>
        <tr>
          <th scope="col">Fact</th>
          <th scope="col">Scope</th>
          <th scope="col">Agent</th>
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
            <td data-label="Fact" className="fact-content">
              <span>{fact.content}</span>
              <FactBadges fact={fact} showExpiry={!showExpiry} />
            </td>
            <td data-label="Scope">
              <code>{fact.scope}</code>
            </td>
            <td data-label="Agent" className="nowrap">
              {fact.agent_id}
            </td>
            <td data-label="Type">{fact.fact_type}</td>
            <td data-label={showExpiry ? 'Expires' : 'Committed'} className="nowrap">
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

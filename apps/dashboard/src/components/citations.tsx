/**
 * The code a fact cites (links to the lines at the cited commit on GitHub, GitLab or Bitbucket, as
 * the server computes them) and what re-reading it found: when it was last verified still true,
 * and, on demand, every verification (`engram_verify`, `engram check --report`).
 */
import { useState } from 'react';
import { useApi } from '../api.ts';
import { formatDateTime, formatRelative } from '../format.ts';
import type { Citation, Verification } from '../types.ts';
import { Badge } from './ui.tsx';

/** `src/retry.ts:3-5 @ 1a2b3c4`. */
const citationLabel = (c: Citation) =>
  `${c.path}${c.start_line ? `:${c.start_line}${c.end_line && c.end_line !== c.start_line ? `-${c.end_line}` : ''}` : ''}${c.commit ? ` @ ${c.commit.slice(0, 7)}` : ''}`;

/** A fact's citations, each a link when its repository is on a known forge. */
export function CitationList({ citations }: { citations?: Citation[] }) {
  if (!citations?.length) return null;
  return (
    <ul className="citations" aria-label="Cited code">
      {citations.map((c, i) => (
        <li key={i}>
          {c.url ? (
            <a href={c.url} target="_blank" rel="noreferrer noopener">
              <code>{citationLabel(c)}</code>
            </a>
          ) : (
            <code title={c.repo}>{citationLabel(c)}</code>
          )}
        </li>
      ))}
    </ul>
  );
}

const STATUS = { still_true: 'still true', outdated: 'outdated', unsure: 'unsure' } as const;

/** A fact's verifications, loaded when opened. */
function VerificationHistory({ factId }: { factId: string }) {
  const { data, error, loading } = useApi<{ verifications: Verification[] }>(`/facts/${factId}/verifications`);
  if (loading) return <p className="muted small">Loading verifications…</p>;
  if (error) return <p className="muted small">{error.message}</p>;
  if (!data?.verifications.length) return <p className="muted small">No verifications yet.</p>;
  return (
    <ol className="verifications">
      {data.verifications.map((v) => (
        <li key={v.id} data-verification-status={v.status}>
          <Badge tone={v.status === 'still_true' ? 'success' : v.status === 'outdated' ? 'danger' : 'neutral'}>{STATUS[v.status]}</Badge>{' '}
          <time dateTime={v.created_at}>{formatDateTime(v.created_at)}</time>
          {' · '}
          {v.member ?? 'anonymous'}
          {v.agent_id ? ` (${v.agent_id})` : ''}
          {v.source === 'check' ? ' · engram check' : ''}
          {v.commit ? (
            <>
              {' · at '}
              <code>{v.commit.slice(0, 12)}</code>
            </>
          ) : null}
          {v.evidence ? <p className="small">{v.evidence}</p> : null}
        </li>
      ))}
    </ol>
  );
}

/** What a fact cites and when it was last found still true, with its verifications on demand. */
export function FactCitations({ fact }: { fact: { id: string; citations?: Citation[]; verified_at?: string | null } }) {
  const [open, setOpen] = useState(false);
  if (!fact.citations?.length && !fact.verified_at) return null;
  return (
    <div className="fact-citations">
      <CitationList citations={fact.citations} />
      {fact.verified_at ? (
        <Badge tone="success" title={`Last found still true ${formatDateTime(fact.verified_at)}`}>
          Checked in code {formatRelative(fact.verified_at)}
        </Badge>
      ) : null}
      <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
        <summary className="small">Verifications</summary>
        {open ? <VerificationHistory factId={fact.id} /> : null}
      </details>
    </div>
  );
}

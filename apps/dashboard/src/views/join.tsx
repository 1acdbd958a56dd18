/**
 * Join with an invite key (`POST /api/v1/join`): creates a member with its own token, shows the
 * token once with the agent configuration, and offers to sign in with it.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api.ts';
import { CopyButton, ErrorNotice } from '../components/ui.tsx';
import { formText } from '../forms.ts';
import { Link, navigate } from '../router.tsx';
import { useSessionApi } from '../session.tsx';
import type { Joined } from '../types.ts';

/** One agent's configuration in the server's setup text: a title line ending in ":" and the lines under it. */
interface SetupBlock {
  title: string | null;
  body: string;
}

/** Splits the setup text into its blocks (separated by blank lines), each without its common indent. */
export function setupBlocks(text: string): SetupBlock[] {
  return text
    .split(/\n[ \t]*\n/)
    .map((chunk) => chunk.replace(/^\n+|\s+$/g, ''))
    .filter(Boolean)
    .map((chunk) => {
      const lines = chunk.split('\n');
      const title = lines.length > 1 && lines[0]!.trimEnd().endsWith(':') ? lines.shift()!.trim().replace(/:$/, '') : null;
      const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
      return { title, body: lines.map((l) => l.slice(indent)).join('\n') };
    });
}

/** A configuration block with its title and a button that copies exactly the block. */
function SetupBlockView({ block }: { block: SetupBlock }) {
  const id = useId();
  const pre = useRef<HTMLPreElement>(null);
  const name = block.title?.replace(/\s*\(.*\)$/, '') ?? 'configuration';
  return (
    <figure className="config-block" aria-labelledby={block.title ? id : undefined} aria-label={block.title ? undefined : 'Configuration'}>
      <div className="config-head">
        {block.title ? <span id={id}>{block.title}</span> : <span />}
        <CopyButton text={block.body} what={`the ${name} configuration`} fallback={() => pre.current} />
      </div>
      <pre ref={pre} className="code-block">
        {block.body}
      </pre>
    </figure>
  );
}

export function JoinView() {
  const { state, signIn } = useSessionApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [joined, setJoined] = useState<Joined | null>(null);
  const [initialKey] = useState(() => new URLSearchParams(window.location.search).get('key') ?? '');

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const displayName = formText(form, 'display_name');
    setBusy(true);
    setError(null);
    try {
      setJoined(
        await api<Joined>('POST', '/join', {
          invite_key: formText(form, 'invite_key'),
          ...(displayName ? { display_name: displayName } : {}),
        }),
      );
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'client', String(caught)));
    } finally {
      setBusy(false);
    }
  };

  const continueAsNewMember = async () => {
    if (!joined) return;
    setBusy(true);
    setError(null);
    try {
      await signIn(joined.token);
      navigate('/');
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'client', String(caught)));
      setBusy(false);
    }
  };

  if (joined) {
    return (
      <div className="auth-card auth-card-wide">
        <h1>Welcome to {joined.workspace_name}</h1>
        <p>
          You joined <code>{joined.engram_id}</code> as a {joined.role}. This is your token; it is shown only now, so store it somewhere safe
          (a password manager).
        </p>
        <div className="field">
          <label htmlFor="new-token">Your token</label>
          <div className="copy-field">
            <input id="new-token" readOnly value={joined.token} className="mono" onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={joined.token} what="token" fallback={() => document.getElementById('new-token')} />
          </div>
        </div>
        {joined.client_setup ? (
          <details className="card">
            <summary>Connect your coding agent</summary>
            {setupBlocks(joined.client_setup).map((block, i) => (
              <SetupBlockView key={i} block={block} />
            ))}
          </details>
        ) : null}
        {error ? <ErrorNotice error={error} title="Could not sign in" /> : null}
        <button type="button" className="button button-block" onClick={() => void continueAsNewMember()} disabled={busy}>
          {busy ? 'Signing in…' : state.status === 'signed-in' ? 'Switch to the new member and open the dashboard' : 'Sign in and open the dashboard'}
        </button>
      </div>
    );
  }

  return (
    <div className="auth-card">
      <h1>Join a workspace</h1>
      <p className="muted">Redeem the invite key a teammate sent you (it starts with ek_). You get your own member token.</p>
      <form onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor="invite-key-input">Invite key</label>
          <input id="invite-key-input" name="invite_key" required spellCheck={false} autoComplete="off" defaultValue={initialKey} placeholder="ek_…" />
        </div>
        <div className="field">
          <label htmlFor="display-name">Your name</label>
          <input id="display-name" name="display_name" maxLength={100} autoComplete="name" aria-describedby="display-name-hint" />
          <span id="display-name-hint" className="hint">
            Optional. Shown to your teammates in the member list.
          </span>
        </div>
        {error ? <ErrorNotice error={error} title="Could not join" /> : null}
        <button type="submit" className="button button-block" disabled={busy}>
          {busy ? 'Joining…' : 'Join'}
        </button>
      </form>
      <p className="auth-alt">
        Already have a token? <Link to="/">Sign in</Link>
      </p>
    </div>
  );
}

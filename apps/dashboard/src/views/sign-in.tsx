/** Sign in with a member token; the server exchanges it for an HttpOnly session cookie. */
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api.ts';
import { ErrorNotice } from '../components/ui.tsx';
import { Link } from '../router.tsx';
import { useSessionApi } from '../session.tsx';

export function SignInView({ notice }: { notice?: string }) {
  const { signIn } = useSessionApi();
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(token.trim());
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'client', String(caught)));
      setBusy(false);
    }
  };

  return (
    <div className="auth-card">
      <h1>Sign in to Engram</h1>
      {notice ? (
        <p className="notice notice-info" role="status">
          {notice}
        </p>
      ) : null}
      <form onSubmit={(e) => void submit(e)} aria-describedby="token-hint">
        <div className="field">
          <label htmlFor="token">Member token</label>
          <input
            id="token"
            name="token"
            type="password"
            autoComplete="current-password"
            spellCheck={false}
            required
            value={token}
            onChange={(e) => setToken(e.target.value)}
            placeholder="egm_…"
          />
          <span id="token-hint" className="hint">
            The token your agent uses (it starts with <code>egm_</code>). <code>npm start</code> prints the owner token; a teammate gets one by
            joining with an invite key. It is exchanged for a session cookie and not stored by this page.
          </span>
        </div>
        {error ? <ErrorNotice error={error} title="Could not sign in" /> : null}
        <button type="submit" className="button button-block" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="auth-alt">
        Have an invite key instead? <Link to="/join">Join a workspace</Link>
      </p>
    </div>
  );
}

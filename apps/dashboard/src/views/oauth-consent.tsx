/**
 * The consent page of Engram's OAuth authorization server. An MCP client sent the browser to
 * `/oauth/authorize`; the server checked the request, sealed it and redirected here. The user
 * allows the client as the signed-in member, as the member of a pasted token, or as a new member
 * (invite key), or denies; either way the server answers with the client's redirect and the
 * browser goes back to the client.
 */
import { useState, type FormEvent } from 'react';
import { api, ApiError, queryString, setCsrfToken, useApi } from '../api.ts';
import { ErrorNotice, Loading, StatusMessage } from '../components/ui.tsx';
import { formText } from '../forms.ts';
import { useLocation } from '../router.tsx';
import type { OAuthAuthorization, OAuthDecided, OAuthDecision, Session } from '../types.ts';

/** The sealed request itself is unusable (tampered with, or too old): only the client can start a new one. */
const isDeadRequest = (error: ApiError) => error.code === 'oauth_request_invalid' || error.code === 'oauth_request_expired';

const asApiError = (caught: unknown) => (caught instanceof ApiError ? caught : new ApiError(0, 'client', String(caught)));

/** What went wrong with a pasted credential, as a sentence for the person at the browser (no field names, no "Invalid input:"). */
const CREDENTIAL_PROBLEMS: Record<string, (message: string) => string> = {
  token: (message) =>
    /invite key/i.test(message)
      ? 'That is an invite key (it starts with ek_), not a member token: choose "Join with an invite" and paste it there.'
      : /membership/i.test(message)
        ? message
        : 'This sign-in token has expired or is not valid: check that you pasted all of it, or ask your workspace owner for a new token or invite.',
  invite_key: () => 'This invite key is not valid: check that you pasted all of it, or ask your workspace owner for a new invite.',
  display_name: (message) => `Your name ${message}.`,
};

/**
 * The server's answer to a consent decision, worded for people: an invalid credential says what to
 * do about it; any other error keeps the server's own sentence (invite expired, name taken, ...).
 */
function consentError(error: ApiError): ApiError {
  if (error.code !== 'invalid_input') return error;
  const problems = (error.details?.problems as { field?: string; message?: string }[] | undefined) ?? [];
  const said = problems.map((p) => CREDENTIAL_PROBLEMS[p.field ?? '']?.(p.message ?? '') ?? p.message ?? '').filter(Boolean);
  const message = said.length > 0 ? said.join(' ') : error.message.replace(/^Invalid input: /, '');
  return new ApiError(error.status, error.code, message, error.requestId, error.details);
}

export function OAuthConsentView() {
  const request = useLocation().query.get('request');
  const { data, error, loading, reload } = useApi<OAuthAuthorization>(request ? `/oauth/authorization${queryString({ request })}` : null);

  if (!request) {
    return (
      <div className="auth-card">
        <h1>Connect an app to Engram</h1>
        <p className="notice notice-error" role="alert">
          This page needs the connection request an app sends. Go back to the app and start connecting again.
        </p>
      </div>
    );
  }
  if (error && isDeadRequest(error)) return <DeadRequest error={error} />;
  if (error) {
    return (
      <div className="auth-card">
        <h1>Connect an app to Engram</h1>
        <ErrorNotice error={error} title="Could not load the connection request" onRetry={reload} />
      </div>
    );
  }
  if (loading || !data) {
    return (
      <div className="auth-card">
        <Loading label="Loading the connection request…" />
      </div>
    );
  }
  return <Consent request={request} authorization={data} />;
}

function DeadRequest({ error }: { error: ApiError }) {
  return (
    <div className="auth-card">
      <h1>Connect an app to Engram</h1>
      <ErrorNotice error={error} title="This connection request cannot be used" />
      <p>Go back to the app and start connecting again.</p>
    </div>
  );
}

type Credential = 'token' | 'invite';

function Consent({ request, authorization }: { request: string; authorization: OAuthAuthorization }) {
  const { client } = authorization;
  // A client may register without a name: then it is known by where it sends the browser back.
  const appName = client.name ?? client.redirect_host;
  // Null once the server says the session ended: only the other credentials are offered then.
  const [session, setSession] = useState(authorization.session);
  const [withSession, setWithSession] = useState(session !== null);
  const [credential, setCredential] = useState<Credential>('token');
  const [busy, setBusy] = useState<'allow' | 'deny' | null>(null);
  const [leaving, setLeaving] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const decide = async (decision: OAuthDecision, asSession?: Session) => {
    setBusy(decision.decision);
    setError(null);
    try {
      // The session the server just vouched for: its token goes along even if SessionProvider's own check has not answered yet.
      if (asSession) setCsrfToken(asSession.csrf_token);
      const { redirect_to } = await api<OAuthDecided>('POST', '/oauth/authorization', decision);
      // Buttons stay disabled while the browser leaves for the client.
      setLeaving(true);
      window.location.assign(redirect_to);
    } catch (caught) {
      const failure = asApiError(caught);
      if (asSession && failure.status === 401) setSession(null);
      setError(consentError(failure));
      setBusy(null);
    }
  };

  const deny = () => void decide({ request, decision: 'deny' });
  const switchTo = (toSession: boolean) => {
    setWithSession(toSession);
    setError(null);
  };

  const allowWithCredential = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const displayName = formText(form, 'display_name');
    void decide(
      credential === 'token'
        ? { request, decision: 'allow', token: formText(form, 'token') }
        : { request, decision: 'allow', invite_key: formText(form, 'invite_key'), ...(displayName ? { display_name: displayName } : {}) },
    );
  };

  if (error && isDeadRequest(error)) return <DeadRequest error={error} />;

  /** Allow and Deny; without `onAllow`, Allow submits the credential form. */
  const actions = (onAllow?: () => void) => (
    <div className="form-actions consent-actions">
      <button type={onAllow ? 'button' : 'submit'} className="button" disabled={busy !== null} onClick={onAllow}>
        {busy === 'allow' ? 'Allowing…' : 'Allow'}
      </button>
      <button type="button" className="button button-secondary" disabled={busy !== null} onClick={deny}>
        {busy === 'deny' ? 'Denying…' : 'Deny'}
      </button>
    </div>
  );

  return (
    <div className="auth-card">
      <h1>Connect {appName} to Engram</h1>
      <p>
        <strong>{appName}</strong> asks to connect to your team&apos;s shared memory in Engram. After you decide, your browser goes back to{' '}
        <strong>{client.redirect_host}</strong>.
      </p>
      {client.registration === 'dynamic' ? (
        <p className="notice notice-warning">
          This app named itself when it registered, so Engram cannot verify the name. Continue only if you started connecting from{' '}
          {appName} just now.
        </p>
      ) : null}

      {withSession && session ? (
        <>
          <p>
            You are signed in as <strong>{session.member.display_name ?? 'a member'}</strong> ({session.member.role}) in{' '}
            <strong>{session.workspace.name}</strong>
            {session.workspace.engram_id ? (
              <>
                {' '}
                (<code>{session.workspace.engram_id}</code>)
              </>
            ) : null}
            .
          </p>
          <Meaning client={appName} access={session.member.role === 'reader' ? 'read' : 'read and write'} who="you" whose="your" />
          {error ? <ErrorNotice error={error} title="Could not finish connecting" /> : null}
          {actions(() => void decide({ request, decision: 'allow' }, session))}
          <p className="auth-alt">
            <button type="button" className="button button-ghost" disabled={busy !== null} onClick={() => switchTo(false)}>
              Use a different token or invite
            </button>
          </p>
        </>
      ) : (
        <form onSubmit={allowWithCredential}>
          <fieldset className="choice">
            <legend>How do you want to allow it?</legend>
            <CredentialChoice value="token" current={credential} onChange={setCredential} label="Sign in with a token" />
            <CredentialChoice value="invite" current={credential} onChange={setCredential} label="Join with an invite" />
          </fieldset>
          {credential === 'token' ? (
            <div className="field">
              <label htmlFor="consent-token">Member token</label>
              <input
                id="consent-token"
                name="token"
                type="password"
                autoComplete="current-password"
                spellCheck={false}
                required
                placeholder="egm_…"
                aria-describedby="consent-token-hint"
              />
              <span id="consent-token-hint" className="hint">
                Your member token (it starts with <code>egm_</code>). This page does not store it.
              </span>
            </div>
          ) : (
            <>
              <div className="field">
                <label htmlFor="consent-invite-key">Invite key</label>
                <input
                  id="consent-invite-key"
                  name="invite_key"
                  required
                  spellCheck={false}
                  autoComplete="off"
                  placeholder="ek_…"
                  aria-describedby="consent-invite-hint"
                />
                <span id="consent-invite-hint" className="hint">
                  The invite key a teammate sent you (it starts with <code>ek_</code>). You join the workspace as a new member.
                </span>
              </div>
              <div className="field">
                <label htmlFor="consent-display-name">Your name</label>
                <input id="consent-display-name" name="display_name" maxLength={100} autoComplete="name" aria-describedby="consent-name-hint" />
                <span id="consent-name-hint" className="hint">
                  Optional. Shown to your teammates in the member list.
                </span>
              </div>
            </>
          )}
          {error ? <ErrorNotice error={error} title="Could not finish connecting" /> : null}
          <Meaning
            client={appName}
            access="read and write"
            who={credential === 'token' ? 'the member the token belongs to' : 'the new member'}
            whose="that member's"
          />
          {actions()}
          {session ? (
            <p className="auth-alt">
              <button type="button" className="button button-ghost" disabled={busy !== null} onClick={() => switchTo(true)}>
                Continue as {session.member.display_name ?? 'the signed-in member'} instead
              </button>
            </p>
          ) : null}
        </form>
      )}
      <StatusMessage message={leaving ? `Going back to ${client.redirect_host}…` : null} tone="info" />
    </div>
  );
}

function CredentialChoice({ value, current, onChange, label }: { value: Credential; current: Credential; onChange: (value: Credential) => void; label: string }) {
  const id = `credential-${value}`;
  return (
    <div className="choice-option">
      <input type="radio" id={id} name="credential" value={value} checked={current === value} onChange={() => onChange(value)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/** What allowing grants, in one sentence. */
function Meaning({ client, access, who, whose }: { client: string; access: string; who: string; whose: string }) {
  return (
    <p className="consent-meaning">
      Allowing lets {client} {access} this workspace&apos;s memory as {who}, until {whose} access is revoked on the Members page.
    </p>
  );
}

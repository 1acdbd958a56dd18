/**
 * Who is signed in. The session itself is an HttpOnly cookie the page cannot read; the page keeps
 * the member, the workspace and the CSRF token in memory and asks the server again on reload.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, ApiError, setCsrfToken, setSessionLostHandler } from './api.ts';
import type { Session } from './types.ts';

export type SessionState =
  | { status: 'checking' }
  | { status: 'signed-out'; notice?: string }
  | { status: 'unavailable'; error: ApiError }
  | { status: 'signed-in'; session: Session };

interface SessionApi {
  state: SessionState;
  /** Exchanges a member token for a session cookie. */
  signIn: (token: string) => Promise<Session>;
  signOut: () => Promise<void>;
  /** Asks the server again (after "Try again"). */
  recheck: () => void;
  /** Shows the signed-in member's new name (after they renamed themselves). */
  renamed: (displayName: string) => void;
}

const SessionContext = createContext<SessionApi | null>(null);

/** The server's own words when the membership ended (a removal), which a generic notice would hide. */
const endedMembership = (error: unknown) =>
  error instanceof ApiError && error.details?.reason === 'membership_ended' ? error.message : undefined;

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'checking' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    api<Session>('GET', '/session', undefined, controller.signal).then(
      (session) => {
        setCsrfToken(session.csrf_token);
        setState({ status: 'signed-in', session });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setCsrfToken(null);
        if (error instanceof ApiError && error.status === 401) setState({ status: 'signed-out', notice: endedMembership(error) });
        else setState({ status: 'unavailable', error: error instanceof ApiError ? error : new ApiError(0, 'client', String(error)) });
      },
    );
    return () => controller.abort();
  }, [attempt]);

  useEffect(() => {
    setSessionLostHandler((error) => {
      setCsrfToken(null);
      const ended = endedMembership(error);
      // A view loads several things at once, and the first 401 clears the cookie: a request that
      // left after it is answered "not signed in", which must not replace the server's reason.
      setState((current) =>
        current.status === 'signed-out' && !ended
          ? current
          : { status: 'signed-out', notice: ended ?? 'Your session has ended (it expired, or its token was revoked). Sign in again to continue.' },
      );
    });
    return () => setSessionLostHandler(null);
  }, []);

  const signIn = useCallback(async (token: string) => {
    const session = await api<Session>('POST', '/session', { token });
    setCsrfToken(session.csrf_token);
    setState({ status: 'signed-in', session });
    return session;
  }, []);

  const signOut = useCallback(async () => {
    try {
      await api<void>('DELETE', '/session');
    } catch (error) {
      // 401: the session was already gone, which is what signing out wants. Anything else: the
      // cookie may still be valid, so say so instead of pretending.
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    setCsrfToken(null);
    setState({ status: 'signed-out', notice: 'You are signed out.' });
  }, []);

  const recheck = useCallback(() => {
    setState({ status: 'checking' });
    setAttempt((n) => n + 1);
  }, []);

  const renamed = useCallback((displayName: string) => {
    setState((current) =>
      current.status === 'signed-in' ? { ...current, session: { ...current.session, member: { ...current.session.member, display_name: displayName } } } : current,
    );
  }, []);

  const value = useMemo(() => ({ state, signIn, signOut, recheck, renamed }), [state, signIn, signOut, recheck, renamed]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSessionApi(): SessionApi {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSessionApi outside SessionProvider');
  return value;
}

/** The signed-in session (views under the signed-in shell only). */
export function useSession(): Session {
  const { state } = useSessionApi();
  if (state.status !== 'signed-in') throw new Error('useSession without a signed-in session');
  return state.session;
}

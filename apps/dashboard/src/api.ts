/**
 * The dashboard's only way to the server: same-origin `fetch` to `/api/v1`, the session cookie
 * sent by the browser, and the CSRF token (kept in memory only) on every write.
 */
import { useCallback, useEffect, useState } from 'react';

/** An API failure, carrying the server's own explanation when there is one. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, requestId?: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.details = details;
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string; request_id?: string; details?: Record<string, unknown> };
}

let csrfToken: string | null = null;
let onSessionLost: ((error: ApiError) => void) | null = null;
/** Requests whose answers have not been read yet (see the 401 below). */
const unanswered = new Set<Promise<void>>();

/** Remembers (or forgets) the CSRF token of the current session. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when an API call answers 401: the session expired, was revoked, or the membership ended. */
export function setSessionLostHandler(handler: ((error: ApiError) => void) | null): void {
  onSessionLost = handler;
}

/** The HTTP methods the dashboard's API uses. */
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Sends one API request; resolves with the parsed JSON body (undefined for 204). */
export async function api<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  let resolve = () => {};
  const mine = new Promise<void>((r) => (resolve = r));
  const answered = () => {
    unanswered.delete(mine);
    resolve();
  };
  unanswered.add(mine);
  try {
    return await send<T>(method, path, body, signal, answered);
  } finally {
    answered();
  }
}

async function send<T>(
  method: Method,
  path: string,
  body: unknown,
  signal: AbortSignal | undefined,
  read: () => void,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'network', 'Could not reach the Engram server. Check your connection, or that the server is running, and try again.');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  read();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const problem = (parsed as ErrorBody | undefined)?.error;
    const error = new ApiError(
      response.status,
      problem?.code ?? `http_${response.status}`,
      problem?.message ?? `The server answered ${response.status} ${response.statusText || ''}`.trim() + '.',
      problem?.request_id,
      problem?.details,
    );
    // A 401 from signing in, joining or an OAuth consent is about the credential just sent, not the session.
    if (response.status === 401 && !/^\/(?:session|join|oauth)\b/.test(path)) {
      // A view loads several things at once, and the first 401 clears the cookie: a request that left
      // after it is answered "not signed in", without the server's reason (a removal). Its answer can
      // be read first, and signing out unmounts the view, which drops the others' answers; so a 401
      // without a reason waits for the answers already on their way, one of which may carry it.
      if (!error.details?.reason) await Promise.allSettled([...unanswered]);
      onSessionLost?.(error);
    }
    throw error;
  }
  if (parsed === undefined) throw new ApiError(response.status, 'bad_response', 'The server sent an empty or unreadable answer.');
  return parsed as T;
}

/** Query string from the non-empty entries of `params` (with the leading `?`, or empty). */
export function queryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const s = search.toString();
  return s ? `?${s}` : '';
}

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Fetches again (after a write, or on "Try again"). */
  reload: () => void;
}

/**
 * GETs `path` (null: nothing to load) and re-fetches when it changes. Earlier answers for another
 * path are ignored, so fast filter changes never show stale results.
 */
export function useApi<T>(path: string | null): Loaded<T> {
  const [generation, setGeneration] = useState(0);
  const key = path === null ? null : `${generation}:${path}`;
  const [state, setState] = useState<{ key: string; data?: T; error?: ApiError }>();
  const [last, setLast] = useState<T>();

  useEffect(() => {
    if (path === null || key === null) return;
    const controller = new AbortController();
    api<T>('GET', path, undefined, controller.signal).then(
      (data) => {
        setState({ key, data });
        setLast(data);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState({
          key,
          error: error instanceof ApiError ? error : new ApiError(0, 'client', error instanceof Error ? error.message : String(error)),
        });
      },
    );
    return () => controller.abort();
  }, [path, key]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const current = state?.key === key ? state : undefined;
  return {
    // While a reload or a new filter is loading, keep showing the last answer (no flicker).
    data: current ? current.data : last,
    error: current?.error,
    loading: path !== null && current === undefined,
    reload,
  };
}

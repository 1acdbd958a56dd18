/**
 * What went wrong with the database, in words a caller can act on. A query that fails because the
 * database is down, out of connections, out of disk, too slow, or locked is not an internal error:
 * it is retryable, and callers are told so (REST 503 with Retry-After, an MCP tool error). Every
 * driver error is classified here, in one place.
 */

/** Why the database could not serve a query. */
export type DatabaseFaultKind =
  /** It cannot be reached: refused, reset, shut down, starting up, or not answering in time. */
  | 'unavailable'
  /** It has no connection slot left for this process. */
  | 'too_many_connections'
  /** A statement ran past its timeout. */
  | 'timeout'
  /** A statement waited too long for a lock another session holds. */
  | 'locked'
  /** The disk under it is full (or too full to write safely). */
  | 'disk_full';

/** Seconds a caller should wait before retrying, per kind. */
const RETRY_AFTER: Record<DatabaseFaultKind, number> = {
  unavailable: 5,
  too_many_connections: 2,
  timeout: 2,
  locked: 2,
  disk_full: 30,
};

const DESCRIPTION: Record<DatabaseFaultKind, string> = {
  unavailable: 'The database is unavailable',
  too_many_connections: 'The database has no free connections',
  timeout: 'The database is too slow to answer right now',
  locked: 'The data this needs is locked by other work in the database',
  disk_full: 'The database\'s disk is full, so nothing can be written',
};

/** A query failed for a reason outside the request: retry later. */
export class DatabaseUnavailableError extends Error {
  readonly kind: DatabaseFaultKind;
  readonly retryAfterSeconds: number;
  /** The driver's own words (an errno or SQLSTATE and its message), for logs. */
  readonly detail: string;

  constructor(kind: DatabaseFaultKind, detail: string, options: { cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(`${DESCRIPTION[kind]} (${detail}).`, { cause: options.cause });
    this.name = 'DatabaseUnavailableError';
    this.kind = kind;
    this.detail = detail;
    this.retryAfterSeconds = options.retryAfterSeconds ?? RETRY_AFTER[kind];
  }
}

/** Node socket errors that mean the server is not there (or went away). */
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** postgres.js's own connection error codes. */
const DRIVER_CONNECTION_CODES = new Set(['CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED']);

/** The fault behind `error`, or undefined when it is not the database's (a bug, a constraint). */
export function databaseFault(error: unknown): DatabaseUnavailableError | undefined {
  for (const current of causes(error)) {
    if (current instanceof DatabaseUnavailableError) return current;
    const { code, message } = current as { code?: unknown; message?: unknown };
    const text = typeof message === 'string' ? message : '';
    if (typeof code !== 'string') continue;
    const kind = faultKindOf(code, text);
    if (kind) return new DatabaseUnavailableError(kind, `${code}: ${text}`.slice(0, 200), { cause: error });
  }
  return undefined;
}

/** Codes that say a connection was gone before a statement reached the server (postgres.js, Node). */
const DROPPED_CONNECTION_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'ECONNRESET', 'EPIPE']);

/** The connection was gone before the statement reached the server (so the server did not run it). */
export function droppedConnection(error: unknown): boolean {
  return causes(error).some((current) => DROPPED_CONNECTION_CODES.has((current as { code?: unknown }).code as string));
}

/** A server's SQLSTATE (Node's errnos, also five capitals at times like EPIPE, all begin with E). */
const SQLSTATE = /^(?!E)[0-9A-Z]{2}[0-9A-Z]{3}$/;

/** Codes of a connection that was never made: no statement of it reached the server. */
const NEVER_CONNECTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'CONNECT_TIMEOUT']);

/**
 * Whether the failed work certainly took no effect: the server itself refused a statement (a
 * SQLSTATE outside class 08: its transaction was rolled back, nothing of it committed), or no
 * connection was ever made. A connection lost mid-statement, or a deadline, leaves it unknown.
 */
export function neverApplied(error: unknown): boolean {
  return causes(error).some((current) => {
    const code = (current as { code?: unknown }).code;
    if (typeof code !== 'string') return false;
    return NEVER_CONNECTED_CODES.has(code) || (SQLSTATE.test(code) && !code.startsWith('08'));
  });
}

/** `error` and its causes (drivers' errors arrive wrapped by drizzle), outermost first. */
function causes(error: unknown): object[] {
  const chain: object[] = [];
  for (let current = error; current && typeof current === 'object' && chain.length < 6; current = (current as { cause?: unknown }).cause) chain.push(current);
  return chain;
}

function faultKindOf(code: string, message: string): DatabaseFaultKind | undefined {
  if (CONNECTION_ERRNOS.has(code) || DRIVER_CONNECTION_CODES.has(code)) return 'unavailable';
  switch (code) {
    case '53300': // too_many_connections
    case '53400': // configuration_limit_exceeded
      return 'too_many_connections';
    case '53100': // disk_full
      return 'disk_full';
    case '55P03': // lock_not_available (lock_timeout)
    case '40P01': // deadlock_detected
      return 'locked';
    case '57014': // query_canceled: statement_timeout (a cancel by us reads the same)
      return /lock timeout/i.test(message) ? 'locked' : 'timeout';
    case '57P01': // admin_shutdown
    case '57P02': // crash_shutdown
    case '57P03': // cannot_connect_now (starting up, shutting down, in recovery)
    case '57P05': // idle_session_timeout
    case '08000':
    case '08001':
    case '08003':
    case '08004':
    case '08006':
      return 'unavailable';
    default:
      // ENOSPC from the embedded database's file system
      if (code === 'ENOSPC') return 'disk_full';
      return undefined;
  }
}

/** The logger shape the health tracker writes to (pino-compatible). */
export interface HealthLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/** Kinds that mean the database as a whole is out, until a check succeeds again. */
const OUTAGE_KINDS: ReadonlySet<DatabaseFaultKind> = new Set(['unavailable', 'too_many_connections', 'disk_full']);
/** Running out of connections is over after this long without another such fault. */
export const CONNECTIONS_QUIET_MS = 10_000;
/** A slow or locked episode is over after this long without another such fault. */
const EPISODE_QUIET_MS = 60_000;

/**
 * What this process knows of its database's health: faults reported by requests and workers, and
 * the periodic check's result. Each outage is logged once, with its cause, when it starts, and once
 * when it ends, never once per request.
 */
export class DatabaseHealth {
  readonly #log: HealthLogger | undefined;
  /** Open episodes by kind: when each started and the last fault seen. */
  readonly #episodes = new Map<DatabaseFaultKind, { since: number; last: number; fault: DatabaseUnavailableError }>();

  constructor(log?: HealthLogger) {
    this.#log = log;
  }

  /** Records a failure; returns the fault when `error` was the database's. */
  report(error: unknown): DatabaseUnavailableError | undefined {
    const fault = databaseFault(error);
    if (!fault) return undefined;
    const now = Date.now();
    const episode = this.#episodes.get(fault.kind);
    if (episode && (OUTAGE_KINDS.has(fault.kind) || now - episode.last < EPISODE_QUIET_MS)) {
      episode.last = now;
      episode.fault = fault;
      return fault;
    }
    this.#episodes.set(fault.kind, { since: now, last: now, fault });
    this.#log?.warn(
      { kind: fault.kind, cause: fault.detail },
      OUTAGE_KINDS.has(fault.kind)
        ? `${fault.message.replace(/\.$/, '')}; requests get a retryable error until it is back (logged once per outage)`
        : `${fault.message.replace(/\.$/, '')} (logged once a minute while it lasts)`,
    );
    return fault;
  }

  /**
   * The periodic check (or any caller) saw the database answer and accept writes. Running out of
   * connections is over only once requests stopped reporting it for a while (a check can succeed
   * on a connection it already holds while requests cannot open new ones).
   */
  recovered(): void {
    const now = Date.now();
    for (const [kind, episode] of this.#episodes) {
      if (!OUTAGE_KINDS.has(kind)) continue;
      if (kind === 'too_many_connections' && now - episode.last < CONNECTIONS_QUIET_MS) continue;
      this.#episodes.delete(kind);
      this.#log?.info({ kind, down_ms: Date.now() - episode.since }, 'the database is back');
    }
  }

  /** The outage in progress, if any: what is wrong, since when, and when it was last seen. */
  outage(): { fault: DatabaseUnavailableError; since: Date; last: Date } | undefined {
    for (const [kind, episode] of this.#episodes) {
      if (OUTAGE_KINDS.has(kind)) return { fault: episode.fault, since: new Date(episode.since), last: new Date(episode.last) };
    }
    return undefined;
  }
}

/**
 * `promise`, or a `timeout` fault when it has not settled after `ms` (the work itself goes on; its
 * result is dropped). For waits that nothing inside the database bounds: a stalled network, an
 * embedded database that stopped answering.
 */
export function withinDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError('timeout', `${what} got no answer within ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

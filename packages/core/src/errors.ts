/**
 * Typed domain errors. Each has a stable `code` (part of the API contract: clients branch on it),
 * the HTTP status it maps to, and a message that tells the caller what to change. The web layer
 * maps them in one place; MCP tools turn them into `isError` results.
 */
import { databaseFault, type EndedMembership } from '@engram/db';

/** Stable error codes and the HTTP status each maps to. */
export const ERROR_STATUS = {
  invalid_input: 400,
  unauthorized: 401,
  invalid_token: 401,
  invite_invalid: 400,
  invite_expired: 410,
  invite_revoked: 410,
  invite_used_up: 410,
  invite_workspace_deleted: 410,
  oauth_request_invalid: 400,
  oauth_request_expired: 410,
  forbidden: 403,
  csrf: 403,
  admin_disabled: 403,
  host_not_allowed: 403,
  origin_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  secret_detected: 422,
  idempotency_key_reused: 422,
  embedding_unavailable: 503,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One field-level problem of an invalid input. */
export interface FieldProblem {
  /** Dotted path of the field, e.g. `invite.max_uses`; empty for the whole input. */
  field: string;
  message: string;
}

/** An error the caller can act on. */
export class EngramError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'EngramError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
  }
}

/** The input failed validation; `problems` names each field and what it must be. */
export class InvalidInputError extends EngramError {
  readonly problems: FieldProblem[];

  constructor(problems: FieldProblem[]) {
    const summary = problems.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join('; ');
    super('invalid_input', `Invalid input: ${summary}`, { problems });
    this.problems = problems;
  }
}

export const unauthorized = (message = 'Authentication required: send `Authorization: Bearer <token>`.') =>
  new EngramError('unauthorized', message);

export const invalidToken = () =>
  new EngramError(
    'invalid_token',
    'The bearer token is not valid: it may have been revoked, or mistyped. Ask a workspace owner for a new token.',
  );

/**
 * The 401 for a credential of a removed member: says the membership ended, when, and that their
 * facts stay. Only a caller holding the real token or session cookie ever sees it.
 */
export function membershipEnded(ended: EndedMembership, code: 'invalid_token' | 'unauthorized' = 'invalid_token'): EngramError {
  const at = ended.removedAt.toISOString();
  return new EngramError(
    code,
    `Your membership of the workspace "${ended.workspaceName}" ended at ${at}: you were removed (or left), which ended all your tokens and dashboard sessions. ` +
      'The facts you committed stay in the workspace. To take part again, ask a workspace owner for a new invite key.',
    { reason: 'membership_ended', removed_at: at },
  );
}

export const forbidden = (message: string) => new EngramError('forbidden', message);

export const notFound = (what: string) => new EngramError('not_found', `${what} was not found.`);

/** Converts zod issues into field problems with dotted paths. */
export function problemsFromZod(issues: readonly { path: PropertyKey[]; message: string }[]): FieldProblem[] {
  return issues.map((issue) => ({
    field: issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

/**
 * `error` as an error the caller can act on: a domain error as it is, a database fault (down, out
 * of connections or disk, too slow, locked) as `unavailable` with the seconds to wait; undefined
 * for anything else, which is an internal error.
 */
export function callerErrorOf(error: unknown): EngramError | undefined {
  if (error instanceof EngramError) return error;
  const fault = databaseFault(error);
  if (!fault) return undefined;
  return new EngramError('unavailable', `${fault.message} Try again in ${fault.retryAfterSeconds} s.`, {
    retry_after_seconds: fault.retryAfterSeconds,
    reason: fault.kind,
  });
}

/**
 * Dashboard sessions (SPEC §7): a browser signs in once with a member token and then holds an
 * opaque session id in an HttpOnly cookie instead of the token. The database keeps only the id's
 * SHA-256; the session speaks for its token, so revoking the token ends every session opened
 * with it. Writes made with the cookie must echo the session's CSRF token in a header.
 */
import { randomBytes } from 'node:crypto';
import {
  deleteDashboardSessionByHash,
  findEndedMembershipBySessionHash,
  findSessionOwnerByHash,
  forWorkspace,
  insertDashboardSession,
  type Database,
} from '@engram/db';
import { z } from 'zod';
import { authenticateToken, type MemberPrincipal } from './auth.ts';
import { hashToken, looksLikeInviteKey } from './credentials.ts';
import { EngramError, InvalidInputError, membershipEnded } from './errors.ts';
import type { SessionView } from './responses.ts';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'engram_session';
/** Header that carries the CSRF token on cookie-authenticated writes. */
export const CSRF_HEADER = 'x-csrf-token';
/** How long a session lasts from sign-in by default (ENGRAM_SESSION_HOURS; not extended by use). */
export const SESSION_TTL_MS = 12 * 3_600_000;

const SESSION_PREFIX = 'egs_';
/**
 * CSRF tokens carry a prefix too, so a log recognises one wherever a client put it: without it, a
 * random token that happened to hold no digit (about one in 1,500) did not look random enough.
 */
const CSRF_PREFIX = 'egc_';
const SESSION_SHAPE = /^egs_[A-Za-z0-9_-]{43}$/;

/** `POST /api/v1/session` body. */
export const SessionLogin = z
  .object({
    token: z
      .string({ error: 'is required: your member token (egm_...)' })
      .trim()
      .min(1, { error: 'must not be empty: paste your member token (egm_...)' })
      .max(1000, { error: 'is too long to be a member token' }),
  })
  .strict();

/** A signed-in browser: the cookie value, its CSRF token, and who it speaks for. */
export interface DashboardSession {
  /** The cookie value; shown once, stored only as a hash. */
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
  principal: MemberPrincipal;
}


export function sessionView(session: Pick<DashboardSession, 'csrfToken' | 'expiresAt' | 'principal'>): SessionView {
  const p = session.principal;
  return {
    member: { id: p.memberId, display_name: p.displayName, role: p.role },
    workspace: { id: p.workspaceId, name: p.workspaceName, engram_id: p.engramId },
    csrf_token: session.csrfToken,
    expires_at: session.expiresAt.toISOString(),
  };
}

/** Exchanges a member token for a new session. */
export async function openDashboardSession(
  db: Database,
  token: string,
  options: { ttlMs?: number } = {},
  now = new Date(),
): Promise<DashboardSession> {
  if (looksLikeInviteKey(token)) {
    throw new InvalidInputError([
      {
        field: 'token',
        message: 'is an invite key (ek_...), not a member token: redeem it first (POST /api/v1/join, or engram_join in your agent) and sign in with the egm_ token it returns',
      },
    ]);
  }
  let principal: MemberPrincipal;
  try {
    principal = await authenticateToken(db, token);
  } catch (error) {
    // A removed member's token keeps its own message: the membership ended, not a typo.
    if (error instanceof EngramError && error.code === 'invalid_token' && error.details?.reason !== 'membership_ended') {
      throw new EngramError(
        'invalid_token',
        'This member token is not valid: it may have been revoked, or mistyped. Sign in with a current member token (egm_ followed by 43 characters); a workspace owner can issue one.',
      );
    }
    throw error;
  }
  const sessionId = SESSION_PREFIX + randomBytes(32).toString('base64url');
  const csrfToken = CSRF_PREFIX + randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + (options.ttlMs ?? SESSION_TTL_MS));
  await insertDashboardSession(forWorkspace(db, principal.workspaceId), {
    sessionHash: hashToken(sessionId),
    tokenId: principal.tokenId,
    csrfToken,
    expiresAt,
    now,
  });
  return { sessionId, csrfToken, expiresAt, principal };
}

/** The live session behind a cookie value, or null (unknown, expired, signed out, or its token revoked). */
export async function authenticateDashboardSession(
  db: Database,
  sessionId: string,
  now = new Date(),
): Promise<Omit<DashboardSession, 'sessionId'> | null> {
  if (!SESSION_SHAPE.test(sessionId)) return null;
  const owner = await findSessionOwnerByHash(db, hashToken(sessionId), now);
  if (!owner) return null;
  const { csrfToken, expiresAt, ...identity } = owner;
  return { csrfToken, expiresAt, principal: { kind: 'member', ...identity } };
}

/**
 * The 401 for a cookie that no longer opens a session: that the membership ended, when the
 * session's member was removed (the browser held a real session, so this tells a guesser
 * nothing); otherwise `fallback`.
 */
export async function endedSessionError(db: Database, sessionId: string, fallback: EngramError): Promise<EngramError> {
  if (!SESSION_SHAPE.test(sessionId)) return fallback;
  const ended = await findEndedMembershipBySessionHash(db, hashToken(sessionId));
  return ended ? membershipEnded(ended, 'unauthorized') : fallback;
}

/** Signs a session out (idempotent). */
export async function endDashboardSession(db: Database, sessionId: string): Promise<void> {
  if (!SESSION_SHAPE.test(sessionId)) return;
  await deleteDashboardSessionByHash(db, hashToken(sessionId));
}

import type { Config } from '@engram/config';
import {
  authenticateDashboardSession,
  CSRF_HEADER,
  endedSessionError,
  EngramError,
  resolveBearer,
  secretsEqual,
  SESSION_COOKIE,
  unauthorized,
  type MemberPrincipal,
  type Principal,
} from '@engram/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { localOperatorToken } from '../local-state.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling, once a route has resolved it (read by the audit hook). */
    principal?: Principal;
    /** The workspace an operator action concerned (read by the audit hook). */
    auditWorkspaceId?: string;
  }
}

/** The bearer credential of a request, if any. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Base URL clients reach this service at: the configured public URL, else the request's own. */
export function publicBaseUrl(config: Config, request: FastifyRequest): string {
  return config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/**
 * RFC 9728 / MCP authorization: a 401 names the protected-resource metadata, so clients can
 * discover how to authenticate.
 */
export function challenge(reply: FastifyReply, config: Config, request: FastifyRequest, error: EngramError): void {
  const metadata = `${publicBaseUrl(config, request)}/.well-known/oauth-protected-resource`;
  const params = [`resource_metadata="${metadata}"`];
  // The server's own message, for clients that show the challenge rather than the body (RFC 6750 §3).
  const description = error.message.replace(/[\\"]/g, "'").replace(/[^\x20-\x7e]/g, '');
  params.unshift(`error_description="${description}"`);
  if (error.code === 'invalid_token') params.unshift('error="invalid_token"');
  void reply.header('www-authenticate', `Bearer ${params.join(', ')}`);
}

/**
 * Resolves the caller (member token, invite key, or nobody) and counts the request against its
 * rate limit (`calls` requests: a JSON-RPC batch counts each message). A bearer that is neither a valid token nor a valid invite key is a 401.
 */
export async function resolvePrincipal(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, calls = 1): Promise<Principal> {
  let principal: Principal;
  try {
    principal = await resolveBearer(ctx.db.control, ctx.secret, bearerToken(request), { address: request.ip, cache: ctx.tokens });
  } catch (error) {
    if (error instanceof EngramError && error.status === 401) challenge(reply, ctx.config, request, error);
    throw error;
  }
  request.principal = principal;
  await ctx.limits.request(principal, ctx.config.anonymousLimits, calls);
  return principal;
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The dashboard session cookie of a request, if any. */
export function sessionCookie(request: FastifyRequest): string | undefined {
  return request.cookies[SESSION_COOKIE] || undefined;
}

/** Whether a session cookie should carry `Secure`: the service is reached over https. */
export function secureCookies(config: Config, request: FastifyRequest): boolean {
  return (config.publicUrl ?? '').startsWith('https:') || request.protocol === 'https';
}

/** Tells the browser to forget the session cookie. */
export function clearSessionCookie(reply: FastifyReply, config: Config, request: FastifyRequest): void {
  void reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: secureCookies(config, request) });
}

/**
 * Resolves the member behind a dashboard session cookie. Writes (POST, PUT, PATCH, DELETE) must
 * also echo the session's CSRF token in `x-csrf-token`: a cookie is sent by the browser whoever
 * made the page, a header only by the dashboard's own script.
 */
async function requireSessionMember(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, cookie: string): Promise<MemberPrincipal> {
  const session = await authenticateDashboardSession(ctx.db.control, cookie);
  if (!session) {
    clearSessionCookie(reply, ctx.config, request);
    const error = await endedSessionError(
      ctx.db.db,
      cookie,
      unauthorized('Your dashboard session has expired or was signed out (or its token was revoked): sign in again with a member token (POST /api/v1/session).'),
    );
    challenge(reply, ctx.config, request, error);
    throw error;
  }
  request.principal = session.principal;
  if (UNSAFE_METHODS.has(request.method)) {
    const sent = request.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !secretsEqual(sent, session.csrfToken)) {
      throw new EngramError(
        'csrf',
        `${request.method} with the session cookie needs the header \`${CSRF_HEADER}\` set to the csrf_token that POST (or GET) /api/v1/session returned${typeof sent === 'string' ? '; the one sent does not match this session' : ''}.`,
      );
    }
  }
  await ctx.limits.request(session.principal, ctx.config.anonymousLimits);
  return session.principal;
}

/**
 * Resolves the caller, who must be a member: by a member token as bearer, or — without a bearer —
 * by a dashboard session cookie (401 otherwise, with its challenge).
 */
export async function requireMember(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<MemberPrincipal> {
  const cookie = bearerToken(request) ? undefined : sessionCookie(request);
  if (cookie) return requireSessionMember(ctx, request, reply, cookie);
  const principal = await resolvePrincipal(ctx, request, reply);
  if (principal.kind === 'member') return principal;
  const error =
    principal.kind === 'invite'
      ? new EngramError('unauthorized', 'An invite key is not a member token: redeem it first (POST /api/v1/join or engram_join).')
      : unauthorized();
  challenge(reply, ctx.config, request, error);
  throw error;
}

/**
 * Checks the operator token in constant time: `ENGRAM_ADMIN_TOKEN`, or in embedded mode the local
 * operator token derived from the server secret (what the operator commands send to a running
 * server; see {@link localOperatorToken}).
 */
export function requireOperator(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): void {
  const accepted = [ctx.config.adminToken, ctx.config.database.kind === 'pglite' ? localOperatorToken(ctx.secret) : undefined].filter(
    (t): t is string => t !== undefined,
  );
  if (accepted.length === 0) {
    throw new EngramError('admin_disabled', 'The admin API is disabled on this server: set ENGRAM_ADMIN_TOKEN to enable it.');
  }
  const token = bearerToken(request);
  // Every candidate is compared, so the time taken does not say which one matched.
  const matches = accepted.filter((t) => token !== undefined && secretsEqual(token, t)).length;
  if (!token || matches === 0) {
    const error = token
      ? new EngramError('invalid_token', 'The operator token is not valid.')
      : unauthorized('The admin API needs `Authorization: Bearer <ENGRAM_ADMIN_TOKEN>`.');
    challenge(reply, ctx.config, request, error);
    throw error;
  }
}

import type { Config } from '@engram/config';
import {
  EngramError,
  resolveBearer,
  secretsEqual,
  unauthorized,
  type MemberPrincipal,
  type Principal,
} from '@engram/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';

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
  if (error.code === 'invalid_token') params.unshift('error="invalid_token"');
  void reply.header('www-authenticate', `Bearer ${params.join(', ')}`);
}

/**
 * Resolves the caller (member token, invite key, or nobody) and counts the request against its
 * rate limit. A bearer that is neither a valid token nor a valid invite key is a 401.
 */
export async function resolvePrincipal(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
  let principal: Principal;
  try {
    principal = await resolveBearer(ctx.db.db, ctx.secret, bearerToken(request), { address: request.ip, cache: ctx.tokens });
  } catch (error) {
    if (error instanceof EngramError && error.status === 401) challenge(reply, ctx.config, request, error);
    throw error;
  }
  request.principal = principal;
  await ctx.limits.request(principal, ctx.config.anonymousLimits);
  return principal;
}

/** Resolves the caller, who must hold a member token (401 otherwise, with its challenge). */
export async function requireMember(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<MemberPrincipal> {
  const principal = await resolvePrincipal(ctx, request, reply);
  if (principal.kind === 'member') return principal;
  const error =
    principal.kind === 'invite'
      ? new EngramError('unauthorized', 'An invite key is not a member token: redeem it first (POST /api/v1/join or engram_join).')
      : unauthorized();
  challenge(reply, ctx.config, request, error);
  throw error;
}

/** Checks the operator token (`ENGRAM_ADMIN_TOKEN`) in constant time. */
export function requireOperator(config: Config, request: FastifyRequest, reply: FastifyReply): void {
  if (!config.adminToken) {
    throw new EngramError('admin_disabled', 'The admin API is disabled on this server: set ENGRAM_ADMIN_TOKEN to enable it.');
  }
  const token = bearerToken(request);
  if (!token || !secretsEqual(token, config.adminToken)) {
    const error = token
      ? new EngramError('invalid_token', 'The operator token is not valid.')
      : unauthorized('The admin API needs `Authorization: Bearer <ENGRAM_ADMIN_TOKEN>`.');
    challenge(reply, config, request, error);
    throw error;
  }
}

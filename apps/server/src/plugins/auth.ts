import type { Config } from '@engram/config';
import { authenticateToken, EngramError, secretsEqual, unauthorized, type MemberPrincipal, type TokenCache } from '@engram/core';
import type { Database } from '@engram/db';
import type { FastifyReply, FastifyRequest } from 'fastify';

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

/** Authenticates a member token or throws a 401 (with its challenge header set on the reply). */
export async function requireMember(
  ctx: { db: { db: Database }; config: Config; tokens: TokenCache },
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<MemberPrincipal> {
  const { config } = ctx;
  const token = bearerToken(request);
  try {
    if (!token) throw unauthorized();
    return await authenticateToken(ctx.db.db, token, ctx.tokens);
  } catch (error) {
    if (error instanceof EngramError && error.status === 401) challenge(reply, config, request, error);
    throw error;
  }
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

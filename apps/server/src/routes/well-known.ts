import { OAUTH_SCOPE } from '@engram/core';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { publicBaseUrl } from '../plugins/auth.ts';

/**
 * RFC 9728 protected-resource metadata for the MCP endpoint, at both the root and the
 * path-suffixed location (clients try `/.well-known/oauth-protected-resource/mcp` first).
 */
export async function wellKnownRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const handler = async (request: Parameters<typeof publicBaseUrl>[1]) => {
    const base = publicBaseUrl(ctx.config, request);
    return {
      resource: `${base}/mcp`,
      resource_name: 'Engram',
      // The built-in authorization server (its metadata: /.well-known/oauth-authorization-server).
      ...(ctx.config.oauth ? { authorization_servers: [base], scopes_supported: [OAUTH_SCOPE] } : {}),
      bearer_methods_supported: ['header'],
      resource_documentation: `${base}/`,
    };
  };
  app.get('/.well-known/oauth-protected-resource', handler);
  app.get('/.well-known/oauth-protected-resource/mcp', handler);
}

import type { Config } from '@engram/config';
import type { FastifyInstance } from 'fastify';

/** Where a browser-based MCP client at an allowed origin needs to reach: the endpoint, its discovery documents, the OAuth calls it makes with fetch. */
const CORS_PATHS = [/^\/mcp$/, /^\/\.well-known\/oauth-[a-z-]+(?:\/.*)?$/, /^\/oauth\/(?:token|register|revoke)$/];
const ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';
const ALLOWED_HEADERS = 'authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id';
// What such a client must read from a response: the negotiated revision, and how to authenticate.
const EXPOSED_HEADERS = 'mcp-protocol-version, mcp-session-id, www-authenticate, retry-after, x-request-id';

/**
 * CORS for the origins in `ENGRAM_ALLOWED_ORIGINS` on `/mcp` and the OAuth discovery documents:
 * preflights are answered (204), responses name the origin and expose the MCP headers. Other
 * origins get no CORS headers (the request guard refuses them outright). Credentials are bearer
 * headers, never cookies, so `Access-Control-Allow-Credentials` is not sent.
 */
export function registerCors(app: FastifyInstance, config: Pick<Config, 'allowedOrigins'>): void {
  const origins = new Set(config.allowedOrigins);
  if (origins.size === 0) return;
  const applies = (url: string) => CORS_PATHS.some((path) => path.test(url.split('?')[0] ?? ''));
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || !origins.has(origin) || !applies(request.url)) return;
    void reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      return reply
        .header('access-control-allow-methods', ALLOWED_METHODS)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', '600')
        .code(204)
        .send();
    }
    void reply.header('access-control-expose-headers', EXPOSED_HEADERS);
  });
}

/**
 * A local HTTP proxy that adds `Authorization: Bearer <token>` and forwards everything else as is:
 * for MCP tools that cannot send a token themselves (the official conformance suite). Used by
 * `npm run conformance` (infra/mcp-tools.ts) and by test/e2e/conformance.test.ts.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** A started proxy: `url` is where to point the tool. */
export interface BearerProxy {
  url: string;
  close(): Promise<void>;
}

// Headers that describe one hop, not the message (RFC 9110 section 7.6.1).
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name, value]) => value !== undefined && !HOP_HEADERS.has(name)));
}

/**
 * Starts a proxy in front of `target` (e.g. `http://127.0.0.1:4000`). In front of a loopback target
 * the Host header passes through unchanged, so DNS-rebinding checks judge what the client sent; in
 * front of any other host it is the target's, which is what that server accepts. A client's own
 * Authorization header is replaced. Bodies stream both ways, byte for byte (SSE included).
 */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const keepHost = LOOPBACK.has(new URL(target).hostname);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', target);
    const headers = { ...endToEnd(req.headers), host: keepHost && req.headers.host ? req.headers.host : url.host, authorization: `Bearer ${token}` };
    const upstream = (url.protocol === 'https:' ? https : http).request(url, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy(error);
      else res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy error: ${error.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

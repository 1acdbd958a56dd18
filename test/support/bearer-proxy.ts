import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

/** A local HTTP proxy that adds `Authorization: Bearer <token>` and forwards everything else as is. */
export interface BearerProxy {
  url: string;
  close(): Promise<void>;
}

// Describe the hop, not the message: fetch sets them itself.
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

/**
 * Starts a proxy in front of `target` (e.g. `http://127.0.0.1:4000`). Host and Origin pass through
 * unchanged (undici lets a request set Host), so DNS-rebinding checks see what the client sent.
 * Responses stream (SSE included).
 */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || HOP_HEADERS.has(name)) continue;
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      if (req.headers.host) headers.set('host', req.headers.host);
      headers.set('authorization', `Bearer ${token}`);
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
      fetch(new URL(req.url ?? '/', target), { method: req.method, headers, body })
        .then((answer) => {
          const out: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (!HOP_HEADERS.has(name) && name !== 'content-encoding') out[name] = value;
          });
          res.writeHead(answer.status, out);
          if (answer.body) Readable.fromWeb(answer.body).pipe(res);
          else res.end();
        })
        .catch((error: Error) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`proxy error: ${error.message}`);
        });
    });
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

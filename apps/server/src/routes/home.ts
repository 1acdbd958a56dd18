import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { publicBaseUrl } from '../plugins/auth.ts';

/** Where `npm run build:dashboard` puts the single-page app (apps/dashboard/dist). */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));

/** Paths the dashboard never answers for: they belong to the API, MCP and the service itself. */
const RESERVED = /^\/(?:api|mcp|assets|\.well-known|healthz|readyz)(?:\/|$)/;

/**
 * The dashboard's page may load scripts, styles, images and data from this origin only, and may
 * not be framed (clickjacking) or send the Referer (tokens never appear in URLs, but paths do).
 */
const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply, csp: string): void {
  void reply.headers({
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  });
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const FALLBACK_STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
code,pre{font:14px ui-monospace,monospace;background:#f2f2f2;border-radius:4px}
pre{padding:.75rem;overflow-x:auto}code{padding:.1rem .3rem}`;
// The page's one inline style block is allowed by its hash; nothing else may run or load.
const FALLBACK_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(FALLBACK_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

export interface HomeRouteOptions {
  /** The built dashboard (default {@link DEFAULT_DASHBOARD_DIR}); tests point it elsewhere. */
  dashboardDir?: string;
}

/**
 * `/` and every other dashboard path: the single-page app from apps/dashboard/dist (index.html for
 * any GET that wants HTML and is not an API, MCP, health or well-known path; hashed assets under
 * `/assets/`, cached for a year). Without a build, a page that says how to build it and how to
 * connect an agent. The dist folder is looked up per request, so building while the server runs
 * is enough.
 */
export async function homeRoutes(app: FastifyInstance, ctx: AppContext, options: HomeRouteOptions = {}): Promise<void> {
  const root = options.dashboardDir ?? DEFAULT_DASHBOARD_DIR;
  const indexFile = `${root.replace(/\/+$/, '')}/index.html`;

  await app.register(fastifyStatic, {
    root,
    serve: false,
    // The build writes .br and .gz next to each asset: no compression work per request.
    preCompressed: true,
    suppressWarning: true,
    dotfiles: 'deny',
  });

  const fallbackPage = (request: FastifyRequest, reply: FastifyReply) => {
    const mcpUrl = escapeHtml(`${publicBaseUrl(ctx.config, request)}/mcp`);
    const detective = ctx.config.openai.apiKey
      ? `on (${escapeHtml(ctx.config.openai.detectiveModel)})`
      : 'off — set OPENAI_API_KEY to enable it';
    securityHeaders(reply, FALLBACK_CSP);
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Engram</title>
<style>${FALLBACK_STYLE}</style></head>
<body>
<main>
<h1>Engram</h1>
<p>Shared memory for your team's coding agents.</p>
<h2>The dashboard is not built</h2>
<p>This server has no dashboard build at <code>${escapeHtml(root)}</code>. Build it once from the repository with
<code>npm run build:dashboard</code> (<code>npm start</code> does this for you), then reload this page.</p>
<h2>Connect an agent</h2>
<p>MCP endpoint: <code>${mcpUrl}</code></p>
<pre>claude mcp add --transport http engram ${mcpUrl} --header "Authorization: Bearer &lt;your token&gt;"</pre>
<p>Your token was printed when the server started (embedded mode) or given to you by a workspace owner.</p>
<p>Narrative detective: ${detective}.</p>
<p><a href="/api/v1/openapi.json">REST API (OpenAPI)</a></p>
</main>
</body>
</html>`);
  };

  const dashboard = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await fs.promises.stat(indexFile).catch(() => null))?.isFile()) return fallbackPage(request, reply);
    securityHeaders(reply, DASHBOARD_CSP);
    // index.html names the current hashed assets: always revalidate it (ETag / Last-Modified).
    void reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html', { cacheControl: false });
  };

  app.get('/', { schema: { hide: true } }, dashboard);

  // Content-hashed build output: a changed file gets a new name, so it can be cached for good.
  app.get('/assets/*', { schema: { hide: true } }, async (request, reply) => {
    const file = (request.params as { '*': string })['*'];
    void reply.header('x-content-type-options', 'nosniff');
    return reply.sendFile(`assets/${file}`, { maxAge: '365d', immutable: true });
  });
  app.get('/favicon.svg', { schema: { hide: true } }, async (_request, reply) => reply.sendFile('favicon.svg', { maxAge: '1d', immutable: false }));

  // Deep links (/conflicts, /members?…) load the app, which routes in the browser. Everything else
  // gets the API's own 404 (JSON), so a mistyped API path never answers with HTML.
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const wantsHtml = (request.headers.accept ?? '').includes('text/html');
    if (RESERVED.test(path) || !wantsHtml) return reply.callNotFound();
    return dashboard(request, reply);
  });
}

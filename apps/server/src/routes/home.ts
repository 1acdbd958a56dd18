import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { publicBaseUrl } from '../plugins/auth.ts';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * `/`: where the dashboard will live. Until it lands, a page that says how to connect an agent
 * (no secrets: the token is printed at start and handed out by the workspace owner).
 */
export async function homeRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get('/', async (request, reply) => {
    const mcpUrl = escapeHtml(`${publicBaseUrl(ctx.config, request)}/mcp`);
    const detective = ctx.config.openai.apiKey
      ? `on (${escapeHtml(ctx.config.openai.detectiveModel)})`
      : 'off — set OPENAI_API_KEY to enable it';
    return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Engram</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
code,pre{font:14px ui-monospace,monospace;background:#f2f2f2;border-radius:4px}
pre{padding:.75rem;overflow-x:auto}code{padding:.1rem .3rem}
</style></head>
<body>
<main>
<h1>Engram</h1>
<p>Shared memory for your team's coding agents. The web dashboard is not part of this build yet;
agents connect over MCP.</p>
<h2>Connect an agent</h2>
<p>MCP endpoint: <code>${mcpUrl}</code></p>
<pre>claude mcp add --transport http engram ${mcpUrl} --header "Authorization: Bearer &lt;your token&gt;"</pre>
<p>Your token was printed when the server started (embedded mode) or given to you by a workspace owner.</p>
<p>Narrative detective: ${detective}.</p>
<p><a href="/api/v1/openapi.json">REST API (OpenAPI)</a></p>
</main>
</body>
</html>`);
  });
}

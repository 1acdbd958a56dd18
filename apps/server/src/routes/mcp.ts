import { EngramError, nextTurn, unauthorized } from '@engram/core';
import { McpEndpoint } from '@engram/mcp';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { challenge, publicBaseUrl, resolvePrincipal } from '../plugins/auth.ts';

const SIGN_IN = unauthorized(
  'Sign in to use Engram: a client with OAuth sign-in opens a page where you sign in with a member token or join with an invite key. ' +
    'Other clients send `Authorization: Bearer <member token>` (or the invite key, then call engram_join).',
);

/** How much sooner than the request's deadline a tool call gives up (room to answer it). */
const TOOL_DEADLINE_MARGIN_MS = 500;

/** Where `npm run build:app` puts the conflict queue MCP App (one self-contained HTML file). */
export const DEFAULT_CONFLICT_APP_FILE = fileURLToPath(new URL('../../../conflict-app/dist/conflict-app.html', import.meta.url));

/** The built App, or undefined (the resource then says how to build it) when it is missing. */
function readConflictApp(app: FastifyInstance, file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    app.log.warn({ file }, 'the conflict queue MCP App is not built (npm run build:app): ui://engram/conflicts says how to build it');
    return undefined;
  }
}

/** `/mcp`: MCP Streamable HTTP (2026-07-28 and the 2025 revisions), stateless; the bearer decides which tools a caller sees. */
export async function mcpRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const llm = { enabled: Boolean(ctx.config.openai.apiKey), model: ctx.config.openai.detectiveModel };
  const endpoint = new McpEndpoint();
  // Read once: the App is part of the release, like the code serving it.
  const conflictAppHtml = readConflictApp(app, DEFAULT_CONFLICT_APP_FILE);
  const signInFirst = ctx.config.oauth && !ctx.config.openSignup;
  app.addHook('onClose', () => endpoint.close());

  app.post('/mcp', async (request, reply) => {
    // Each message of a JSON-RPC batch is a call of its own for the rate limit.
    const principal = await resolvePrincipal(ctx, request, reply, Array.isArray(request.body) ? Math.max(1, request.body.length) : 1);
    if (principal.kind === 'anonymous' && signInFirst) {
      // With the authorization server on, a client without credentials is sent to sign in: an
      // OAuth client opens the consent page (where an invite key joins), others show the message.
      // Open signup keeps credential-less access, which engram_init needs (SPEC §3).
      challenge(reply, ctx.config, request, SIGN_IN);
      throw SIGN_IN;
    }
    // Reading the MCP message and building its server takes a turn of the event loop once it is busy (turns.ts).
    const turn = nextTurn();
    if (turn) await turn;
    const answer = await endpoint.handle(
      { method: request.method, url: request.url, headers: request.headers, body: request.body },
      {
        db: ctx.db.db,
        embedder: ctx.embedder,
        secret: ctx.secret,
        principal,
        llm,
        openSignup: ctx.config.openSignup,
        anonymousLimits: ctx.config.anonymousLimits,
        limits: ctx.limits,
        mcpUrl: `${publicBaseUrl(ctx.config, request)}/mcp`,
        log: request.log,
        // What is left of the request's deadline, less a margin, so a slow tool answers as a tool error.
        deadlineMs: Math.max(100, request.deadlineAt - Date.now() - TOOL_DEADLINE_MARGIN_MS),
        audit: (entry) => ctx.audit.record(entry),
        conflictAppHtml,
      },
    );
    // The request's deadline may have answered it meanwhile (plugins/errors.ts): a second answer
    // would only be refused by Fastify (FST_ERR_REP_ALREADY_SENT).
    if (reply.sent) return;
    void reply.code(answer.status);
    for (const [name, value] of answer.headers) void reply.header(name, value);
    return reply.send(answer.body);
  });

  // Stateless server: there is no session to stream to (GET) or to end (DELETE).
  const notAllowed = async () => {
    throw new EngramError(
      'method_not_allowed',
      'This MCP endpoint is stateless: send JSON-RPC messages with POST; GET streams and DELETE are not used.',
    );
  };
  app.get('/mcp', async (request, reply) => {
    void reply.header('allow', 'POST');
    return notAllowed();
  });
  app.delete('/mcp', async (request, reply) => {
    void reply.header('allow', 'POST');
    return notAllowed();
  });
}

/**
 * The built-in OAuth 2.1 authorization server (SPEC §3), on unless ENGRAM_OAUTH=false: RFC 8414
 * metadata, `/oauth/authorize` (to the dashboard's consent page), `/oauth/token`,
 * `/oauth/register` (RFC 7591) and `/oauth/revoke` (RFC 7009) answering in RFC 6749's error
 * format, and the two JSON calls the consent page makes.
 */
import {
  AuthorizationDecided,
  AuthorizationDecision,
  AuthorizationView,
  authenticateDashboardSession,
  authenticateToken,
  authorizationServerMetadata,
  beginAuthorization,
  ClientDirectory,
  decideAuthorization,
  describeAuthorization,
  EngramError,
  InvalidInputError,
  isLoopbackHost,
  looksLikeInviteKey,
  OAuthError,
  registerClient,
  revoke,
  sessionView,
  token,
  type Consenter,
  type OAuthRequestContext,
  type OAuthServices,
} from '@engram/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { publicBaseUrl, requireMember, sessionCookie } from '../plugins/auth.ts';

/** The issuer and loopback allowance of a request. */
function requestContext(ctx: AppContext, request: FastifyRequest): OAuthRequestContext {
  const issuer = publicBaseUrl(ctx.config, request);
  return { issuer, allowLoopback: isLoopbackHost(new URL(issuer).hostname) };
}

/** `a=1&b=2` → `{a: '1', b: '2'}`; a repeated name becomes an array (refused by the flow). */
function parseForm(body: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const seen = form[key];
    form[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return form;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page shown when an authorization request cannot be sent back to its client. */
function errorPage(reply: FastifyReply, error: OAuthError): FastifyReply {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Cannot connect this app</title></head><body><main><h1>This app cannot connect to Engram</h1><p>${escapeHtml(error.message)}</p><p>Error: <code>${escapeHtml(error.error)}</code>. Go back to the app and check its Engram settings, or tell its developer.</p></main></body></html>`;
  return reply
    .code(error.status === 401 ? 400 : error.status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    .header('cache-control', 'no-store')
    .send(html);
}

// The protocol endpoints speak RFC 6749, not this API's error format: their document is the
// authorization server metadata, so they stay out of the OpenAPI document.
const HIDDEN = { schema: { hide: true } };

/** The wire endpoints, in their own scope: form bodies, RFC 6749 errors, never cached. */
async function protocolRoutes(app: FastifyInstance, ctx: AppContext, services: OAuthServices): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
    done(null, parseForm(body as string));
  });
  app.addHook('onSend', async (_request, reply) => {
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  });
  app.setErrorHandler((error, request, reply) => {
    let oauth: OAuthError;
    if (error instanceof OAuthError) oauth = error;
    else if (error instanceof EngramError && error.status < 500) {
      if (error.code === 'rate_limited') {
        const retry = error.details?.retry_after_seconds;
        if (typeof retry === 'number') void reply.header('retry-after', String(retry));
      }
      oauth = new OAuthError(error.code === 'rate_limited' ? 'slow_down' : 'invalid_request', error.message, error.status);
    } else {
      const status = (error as { statusCode?: number }).statusCode;
      if (typeof status !== 'number' || status >= 500) throw error;
      oauth = new OAuthError('invalid_request', (error as Error).message, status);
    }
    if (request.routeOptions.url === '/oauth/authorize') return errorPage(reply, oauth);
    if (oauth.status === 401 && /^Basic\s/i.test(request.headers.authorization ?? '')) void reply.header('www-authenticate', 'Basic realm="engram"');
    return reply.code(oauth.status).send(oauth.body());
  });
  const countAnonymous = (request: FastifyRequest) => ctx.limits.request({ kind: 'anonymous', address: request.ip }, ctx.config.anonymousLimits);

  app.get('/oauth/authorize', HIDDEN, async (request, reply) => {
    await countAnonymous(request);
    const location = await beginAuthorization(services, request.query as Record<string, unknown>, requestContext(ctx, request));
    return reply.redirect(location, 302);
  });

  app.post('/oauth/token', HIDDEN, async (request) => {
    await countAnonymous(request);
    return token(services, formOf(request), request.headers.authorization, requestContext(ctx, request));
  });

  app.post('/oauth/revoke', HIDDEN, async (request, reply) => {
    await countAnonymous(request);
    await revoke(services, formOf(request), request.headers.authorization, requestContext(ctx, request));
    return reply.code(200).send();
  });

  app.post('/oauth/register', HIDDEN, async (request, reply) => {
    await countAnonymous(request);
    return reply.code(201).send(await registerClient(ctx.db.db, request.body));
  });
}

function formOf(request: FastifyRequest): Record<string, unknown> {
  if (!request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded (RFC 6749 §4.1.3).');
  }
  return (request.body ?? {}) as Record<string, unknown>;
}

const consent: { tags: string[] } = { tags: ['oauth'] };

/** The consent page's API: the standard error format, the dashboard's session and CSRF rules. */
async function consentRoutes(app: FastifyInstance, ctx: AppContext, services: OAuthServices): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/api/v1/oauth/authorization',
    {
      schema: {
        summary: 'What the consent page shows: the app asking to connect, and the dashboard session if the browser has one',
        ...consent,
        querystring: z.object({ request: z.string({ error: 'is required: the request parameter of the consent page URL' }).min(1).max(8000) }),
        response: { 200: AuthorizationView },
      },
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      const described = await describeAuthorization(services, request.query.request, requestContext(ctx, request));
      const cookie = sessionCookie(request);
      const session = cookie ? await authenticateDashboardSession(ctx.db.db, cookie) : null;
      if (session) request.principal = session.principal;
      return { ...described, session: session ? sessionView(session) : null };
    },
  );

  typed.post(
    '/api/v1/oauth/authorization',
    {
      schema: {
        summary: 'Allow or deny an app: as the dashboard session (with x-csrf-token), with a member token, or joining with an invite key',
        ...consent,
        body: AuthorizationDecision,
        response: { 200: AuthorizationDecided },
      },
    },
    async (request, reply) => {
      const body = request.body;
      let consenter: Consenter | null = null;
      if (body.decision === 'allow') {
        if (body.invite_key) {
          await ctx.limits.request({ kind: 'anonymous', address: request.ip }, ctx.config.anonymousLimits);
          consenter = { invite: { invite_key: body.invite_key, ...(body.display_name ? { display_name: body.display_name } : {}) } };
        } else if (body.token) {
          consenter = { member: await memberFromToken(ctx, body.token) };
          request.principal = consenter.member;
          await ctx.limits.request(consenter.member, ctx.config.anonymousLimits);
        } else {
          consenter = { member: await requireMember(ctx, request, reply) };
        }
      }
      const decided = await decideAuthorization(services, body, consenter, requestContext(ctx, request));
      if (decided.workspaceId) request.auditWorkspaceId = decided.workspaceId;
      void reply.header('cache-control', 'no-store');
      return { redirect_to: decided.redirectTo };
    },
  );
}

/** The member behind a pasted token, with errors the consent form shows next to the field. */
async function memberFromToken(ctx: AppContext, tokenText: string) {
  if (looksLikeInviteKey(tokenText)) {
    throw new InvalidInputError([{ field: 'token', message: 'is an invite key (ek_...): choose "Join with an invite" instead' }]);
  }
  try {
    return await authenticateToken(ctx.db.db, tokenText, ctx.tokens);
  } catch (error) {
    // Said to a person on the consent page: what happened and whom to ask, not how bearer tokens work.
    if (error instanceof EngramError && error.status === 401) {
      const reason = error.details?.reason === 'membership_ended' ? error.message : undefined;
      throw new InvalidInputError([
        {
          field: 'token',
          message: reason ?? 'is not a valid member token: it may have expired or been revoked, or part of it is missing. Ask your workspace owner for a new token or invite.',
        },
      ]);
    }
    throw error;
  }
}

export async function oauthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  if (!ctx.config.oauth) return;
  const services: OAuthServices = { db: ctx.db.db, secret: ctx.secret, clients: new ClientDirectory(ctx.db.db), tokens: ctx.tokens };
  app.get('/.well-known/oauth-authorization-server', HIDDEN, async (request) => authorizationServerMetadata(publicBaseUrl(ctx.config, request)));
  await app.register(async (scope) => protocolRoutes(scope, ctx, services));
  await app.register(async (scope) => consentRoutes(scope, ctx, services));
}

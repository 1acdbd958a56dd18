/**
 * Dashboard sign-in (SPEC §7): a member token is exchanged for an HttpOnly, SameSite=Strict session
 * cookie, so the browser never keeps the token. Cookie-authenticated writes need the session's
 * CSRF token in `x-csrf-token` (enforced by requireMember).
 */
import {
  authenticateDashboardSession,
  endDashboardSession,
  endedSessionError,
  openDashboardSession,
  SESSION_COOKIE,
  SessionLogin,
  sessionView,
  SessionView,
  unauthorized,
} from '@engram/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import { clearSessionCookie, requireMember, secureCookies, sessionCookie } from '../plugins/auth.ts';

const session: { tags: string[]; security: Record<string, string[]>[] } = { tags: ['session'], security: [{ dashboardSession: [] }] };

export async function sessionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/api/v1/session',
    {
      schema: {
        summary: 'Sign the dashboard in: exchange a member token for a session cookie and a CSRF token',
        tags: ['session'],
        body: SessionLogin,
        response: { 200: SessionView },
      },
    },
    async (request, reply) => {
      const opened = await openDashboardSession(ctx.db.db, request.body.token, { ttlMs: ctx.config.sessionTtlMs });
      request.principal = opened.principal;
      // Signing in again replaces the browser's previous session rather than leaving it alive.
      const previous = sessionCookie(request);
      if (previous) await endDashboardSession(ctx.db.db, previous);
      void reply.setCookie(SESSION_COOKIE, opened.sessionId, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: secureCookies(ctx.config, request),
        maxAge: Math.floor(ctx.config.sessionTtlMs / 1000),
      });
      return sessionView(opened);
    },
  );

  typed.get(
    '/api/v1/session',
    { schema: { summary: 'The signed-in member, workspace and CSRF token of this dashboard session', ...session, response: { 200: SessionView } } },
    async (request, reply) => {
      const cookie = sessionCookie(request);
      const current = cookie ? await authenticateDashboardSession(ctx.db.db, cookie) : null;
      if (!current) {
        if (!cookie) throw unauthorized('Not signed in: POST /api/v1/session with {"token": "egm_..."} to start a dashboard session.');
        clearSessionCookie(reply, ctx.config, request);
        throw await endedSessionError(
          ctx.db.db,
          cookie,
          unauthorized('Your dashboard session has expired or was signed out (or its token was revoked): sign in again with POST /api/v1/session.'),
        );
      }
      request.principal = current.principal;
      return sessionView(current);
    },
  );

  typed.delete(
    '/api/v1/session',
    { schema: { summary: 'Sign the dashboard out: ends the session and clears its cookie (idempotent)', ...session } },
    async (request, reply) => {
      const cookie = sessionCookie(request);
      // A live session signs out like any cookie write (CSRF token required); a dead or missing
      // one only needs its cookie cleared.
      if (cookie && (await authenticateDashboardSession(ctx.db.db, cookie))) {
        await requireMember(ctx, request, reply);
        await endDashboardSession(ctx.db.db, cookie);
      }
      clearSessionCookie(reply, ctx.config, request);
      return reply.code(204).send();
    },
  );
}

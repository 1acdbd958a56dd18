/**
 * Citations checked against the code (issue 57): what `engram check` reads (the workspace's facts
 * that cite code) and where it reports what it found, both with a member's bearer token, and a
 * fact's verifications for the dashboard.
 */
import {
  auditIdentity,
  CheckReportInput,
  CheckReportOutput,
  CitedFactsOutput,
  CitedFactsQuery,
  EngramError,
  listCitedFacts,
  listVerifications,
  reportCheck,
  VerificationsOutput,
} from '@engram/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { factServicesOf, type AppContext } from '../context.ts';
import { bearerToken, requireMember } from '../plugins/auth.ts';

/** Most milliseconds a report of up to 500 facts may take (one short statement or two each). */
const REPORT_DEADLINE_MS = 60_000;

/** A member by bearer token only: these routes are for `engram check` and CI, not the dashboard's session. */
async function requireTokenMember(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  if (!bearerToken(request)) {
    throw new EngramError('unauthorized', 'This route needs `Authorization: Bearer <member token>` (engram check --token egm_...).');
  }
  return requireMember(ctx, request, reply);
}

export async function citationRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/api/v1/facts/cited',
    {
      schema: {
        summary: 'Current facts that cite code, with their citations, a page at a time (what engram check compares with a checkout)',
        tags: ['facts'],
        security: [{ memberToken: [] }],
        querystring: CitedFactsQuery,
        response: { 200: CitedFactsOutput },
      },
    },
    async (request, reply) => listCitedFacts(ctx.db, await requireTokenMember(ctx, request, reply), request.query),
  );

  typed.post(
    '/api/v1/facts/check-report',
    {
      config: { requestDeadlineMs: REPORT_DEADLINE_MS },
      schema: {
        summary: 'What engram check found: unchanged facts are recorded as verified, changed, vanished or mismatching ones raise stale questions',
        tags: ['facts'],
        security: [{ memberToken: [] }],
        body: CheckReportInput,
        response: { 200: CheckReportOutput },
      },
    },
    async (request, reply) => {
      const principal = await requireTokenMember(ctx, request, reply);
      const started = performance.now();
      const report = await reportCheck(factServicesOf(ctx, request.log), principal, request.body);
      // Each verification and question in the audit log, beside the request's own entry.
      for (const f of report.facts) {
        if (f.outcome === 'not_found' || f.outcome === 'already_verified') continue;
        ctx.audit.record({
          ...auditIdentity(principal),
          action: 'engram check',
          summary: { fact_id: f.fact_id, status: f.outcome === 'verified' ? 'still_true' : 'outdated', conflict_id: f.conflict_id, commit: request.body.commit ?? null },
          outcome: 'ok',
          errorCode: null,
          durationMs: performance.now() - started,
        });
      }
      return report;
    },
  );

  typed.get(
    '/api/v1/facts/:id/verifications',
    {
      schema: {
        summary: 'A fact\'s verifications (engram_verify, engram check --report), newest first',
        tags: ['facts'],
        security: [{ memberToken: [] }, { dashboardSession: [] }],
        params: z.object({ id: z.uuid({ error: 'must be a fact id (UUID)' }) }),
        response: { 200: VerificationsOutput },
      },
    },
    async (request, reply) => listVerifications(ctx.db.db, await requireMember(ctx, request, reply), request.params.id),
  );
}

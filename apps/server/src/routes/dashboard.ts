/**
 * What the dashboard reads and does beyond the workspace routes: the knowledge base, expiring
 * facts, the timeline of validity windows, agent activity, and settling conflicts. Every route takes
 * a member token or a dashboard session (requireMember).
 */
import {
  ActivityOutput,
  ActivityQuery,
  agentActivityReport,
  ExpiringOutput,
  ExpiringQuery,
  FactListOutput,
  FactListQuery,
  listExpiring,
  listKnowledgeFacts,
  readTimeline,
  resolveConflict,
  ResolveOutput,
  ResolveRequest,
  TimelineOutput,
  TimelineQuery,
} from '@engram/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { factServicesOf, type AppContext } from '../context.ts';
import { requireMember } from '../plugins/auth.ts';

const member: { security: Record<string, string[]>[] } = { security: [{ memberToken: [] }, { dashboardSession: [] }] };

/**
 * The querystring as its schema's output. The zod validator compiler has already replaced it with
 * the parsed value; the type provider types preprocessed schemas by their input (unknown).
 */
const parsed = <S extends z.ZodType>(_schema: S, query: unknown) => query as z.output<S>;

export async function dashboardRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/api/v1/facts',
    {
      schema: {
        summary: 'Knowledge base: current facts (or those valid at as_of), newest first, filtered and paged',
        tags: ['facts'],
        ...member,
        querystring: FactListQuery,
        response: { 200: FactListOutput },
      },
    },
    async (request, reply) => listKnowledgeFacts(ctx.db.db, await requireMember(ctx, request, reply), parsed(FactListQuery, request.query)),
  );

  typed.get(
    '/api/v1/facts/expiring',
    {
      schema: {
        summary: 'Current facts whose TTL runs out within within_days, soonest first',
        tags: ['facts'],
        ...member,
        querystring: ExpiringQuery,
        response: { 200: ExpiringOutput },
      },
    },
    async (request, reply) => listExpiring(ctx.db.db, await requireMember(ctx, request, reply), parsed(ExpiringQuery, request.query)),
  );

  typed.get(
    '/api/v1/timeline',
    {
      schema: {
        summary: 'Validity windows of facts (current and retired), by scope, for a timeline',
        tags: ['facts'],
        ...member,
        querystring: TimelineQuery,
        response: { 200: TimelineOutput },
      },
    },
    async (request, reply) => readTimeline(ctx.db.db, await requireMember(ctx, request, reply), parsed(TimelineQuery, request.query)),
  );

  typed.get(
    '/api/v1/agents/activity',
    {
      schema: {
        summary: 'Per agent over the last days: commits, commit rate, conflict rate, verification rate',
        tags: ['agents'],
        ...member,
        querystring: ActivityQuery,
        response: { 200: ActivityOutput },
      },
    },
    async (request, reply) => agentActivityReport(ctx.db.db, await requireMember(ctx, request, reply), parsed(ActivityQuery, request.query)),
  );

  typed.post(
    '/api/v1/conflicts/:id/resolve',
    {
      schema: {
        summary: 'Settle a conflict: keep a winner, merge (by fact id or merged_content), or dismiss (as engram_resolve)',
        tags: ['detection'],
        ...member,
        params: z.object({ id: z.uuid({ error: 'must be a conflict id (UUID)' }) }),
        body: ResolveRequest,
        response: { 200: ResolveOutput },
      },
    },
    async (request, reply) => {
      const principal = await requireMember(ctx, request, reply);
      return resolveConflict(factServicesOf(ctx, request.log), principal, { ...request.body, conflict_id: request.params.id });
    },
  );
}

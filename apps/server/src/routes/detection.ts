import { ConflictsInput, detectionStatus, EngramError, listConflicts, notFound, canRead, assertCanWrite, requeueFailedDetection } from '@engram/core';
import { forWorkspace, getFact, restoreRetiredFact } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { requireMember } from '../plugins/auth.ts';

/** What the detector found and how it is doing. */
export async function detectionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const llm = { enabled: Boolean(ctx.config.openai.apiKey), model: ctx.config.openai.detectiveModel };

  typed.get(
    '/api/v1/detection/status',
    { schema: { summary: 'Detection queue, recent runs and whether the narrative detective is on', tags: ['detection'], security: [{ memberToken: [] }] } },
    async (request, reply) => detectionStatus(ctx.db.db, await requireMember(ctx, request, reply), llm),
  );

  typed.post(
    '/api/v1/detection/requeue',
    {
      schema: {
        summary: 'Requeue the workspace\'s failed detection jobs: due now, attempts reset (owners)',
        tags: ['detection'],
        security: [{ memberToken: [] }],
        response: { 200: z.object({ requeued: z.number().int() }) },
      },
    },
    async (request, reply) => requeueFailedDetection(ctx.db.db, await requireMember(ctx, request, reply)),
  );

  typed.get(
    '/api/v1/conflicts',
    {
      schema: {
        summary: 'Conflicts grouped by scope, most severe first (same as engram_conflicts)',
        tags: ['detection'],
        security: [{ memberToken: [] }],
        querystring: ConflictsInput,
      },
    },
    async (request, reply) => listConflicts(ctx.db.db, await requireMember(ctx, request, reply), request.query),
  );

  typed.post(
    '/api/v1/facts/:id/restore',
    {
      schema: {
        summary: 'Make current again a fact the detector retired as settled (undo a settlement)',
        tags: ['detection'],
        security: [{ memberToken: [] }],
        params: z.object({ id: z.uuid({ error: 'must be a fact id (UUID)' }) }),
      },
    },
    async (request, reply) => {
      const principal = await requireMember(ctx, request, reply);
      const tenant = forWorkspace(ctx.db.db, principal.workspaceId);
      const fact = await getFact(tenant, request.params.id);
      if (!fact || !canRead(principal, fact.scope)) throw notFound(`Fact ${request.params.id}`);
      assertCanWrite(principal, fact.scope);
      if (!(await restoreRetiredFact(tenant, fact.id))) {
        throw new EngramError('conflict', 'Only a fact the detector retired (and not since restored) can be restored.');
      }
      return { fact_id: fact.id, restored: true };
    },
  );
}

import {
  notFound,
  ProvisionedWorkspaceBody,
  ProvisionWorkspaceInput,
  provisionWorkspace,
  toProvisionedWorkspaceBody,
} from '@engram/core';
import { softDeleteWorkspace } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { publicBaseUrl, requireOperator } from '../plugins/auth.ts';

/** Operator API: provisions workspaces without a browser (`Authorization: Bearer $ENGRAM_ADMIN_TOKEN`). */
export async function adminRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/v1/admin/workspaces',
    {
      schema: {
        summary: 'Create a workspace with its owner token and a first invite key',
        tags: ['admin'],
        security: [{ operatorToken: [] }],
        body: z.preprocess((body) => body ?? {}, ProvisionWorkspaceInput),
        response: { 201: ProvisionedWorkspaceBody },
      },
      preHandler: async (request, reply) => requireOperator(ctx.config, request, reply),
    },
    async (request, reply) => {
      const created = await provisionWorkspace(ctx.db.db, ctx.secret, request.body);
      request.auditWorkspaceId = created.workspaceId;
      request.log.info({ workspace_id: created.workspaceId, engram_id: created.engramId }, 'workspace provisioned');
      return reply.code(201).send(toProvisionedWorkspaceBody(created, `${publicBaseUrl(ctx.config, request)}/mcp`));
    },
  );

  app.withTypeProvider<ZodTypeProvider>().delete(
    '/api/v1/admin/workspaces/:id',
    {
      schema: {
        summary: 'Delete a workspace: its tokens and invite keys stop working at once (rows are kept)',
        tags: ['admin'],
        security: [{ operatorToken: [] }],
        params: z.object({ id: z.uuid({ error: 'must be a workspace id (UUID)' }) }),
      },
      preHandler: async (request, reply) => requireOperator(ctx.config, request, reply),
    },
    async (request) => {
      if (!(await softDeleteWorkspace(ctx.db.db, request.params.id))) throw notFound(`Workspace ${request.params.id}`);
      request.auditWorkspaceId = request.params.id;
      ctx.tokens.clear();
      return { workspace_id: request.params.id, deleted: true };
    },
  );
}

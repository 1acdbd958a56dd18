import { ProvisionWorkspaceInput, provisionWorkspace } from '@engram/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { publicBaseUrl, requireOperator } from '../plugins/auth.ts';

const ProvisionedWorkspaceBody = z.object({
  workspace_id: z.uuid(),
  engram_id: z.string(),
  name: z.string(),
  owner_token: z.string().describe('Bearer token of the workspace owner. Shown once.'),
  invite_key: z.string().describe('Invite key for teammates (engram_join or POST /api/v1/join). Shown once.'),
  invite_expires_at: z.iso.datetime(),
  mcp_url: z.url(),
});

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
      request.log.info({ workspace_id: created.workspaceId, engram_id: created.engramId }, 'workspace provisioned');
      return reply.code(201).send({
        workspace_id: created.workspaceId,
        engram_id: created.engramId,
        name: created.name,
        owner_token: created.ownerToken,
        invite_key: created.inviteKey,
        invite_expires_at: created.inviteExpiresAt.toISOString(),
        mcp_url: `${publicBaseUrl(ctx.config, request)}/mcp`,
      });
    },
  );
}

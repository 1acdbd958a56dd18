import {
  issueTokenForOperator,
  listMembersForOperator,
  removeMemberForOperator,
  revokeTokenForOperator,
  notFound,
  OperatorMembersBody,
  OperatorMembersQuery,
  OperatorTokenBody,
  OperatorTokenInput,
  ProvisionedWorkspaceBody,
  ProvisionWorkspaceInput,
  provisionWorkspace,
  toProvisionedWorkspaceBody,
} from '@engram/core';
import { findWorkspaceByEngramId, requeueFailedJobs, softDeleteWorkspace } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { publicBaseUrl, requireOperator } from '../plugins/auth.ts';

const RequeueInput = z
  .object({
    engram_id: z
      .string()
      .regex(/^ENG-[A-Z0-9]{4}-[A-Z0-9]{4}$/i, { error: 'must be a workspace id like ENG-X7K2-P9M4' })
      .optional()
      .describe('Only this workspace; every workspace when absent.'),
  })
  .strict();

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
      preHandler: async (request, reply) => requireOperator(ctx, request, reply),
    },
    async (request, reply) => {
      const created = await provisionWorkspace(ctx.db.db, ctx.secret, request.body);
      request.auditWorkspaceId = created.workspaceId;
      request.log.info({ workspace_id: created.workspaceId, engram_id: created.engramId }, 'workspace provisioned');
      return reply.code(201).send(toProvisionedWorkspaceBody(created, `${publicBaseUrl(ctx.config, request)}/mcp`));
    },
  );

  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/v1/admin/detection/requeue',
    {
      schema: {
        summary: 'Requeue failed detection jobs (one workspace, or all): due now, attempts reset, like `engram detection requeue`',
        tags: ['admin'],
        security: [{ operatorToken: [] }],
        body: z.preprocess((body) => body ?? {}, RequeueInput),
        response: {
          200: z.object({
            requeued: z.number().int(),
            workspaces: z.array(z.object({ engram_id: z.string(), requeued: z.number().int() })),
          }),
        },
      },
      preHandler: async (request, reply) => requireOperator(ctx, request, reply),
    },
    async (request) => {
      const engramId = request.body.engram_id;
      const workspace = engramId ? await findWorkspaceByEngramId(ctx.db.db, engramId) : undefined;
      if (engramId && !workspace) throw notFound(`Workspace ${engramId}`);
      const started = performance.now();
      const requeued = await requeueFailedJobs(ctx.db.db, workspace ? { workspaceId: workspace.id } : {});
      if (workspace) request.auditWorkspaceId = workspace.id;
      // Across workspaces, each one's audit log says so too (the request's own entry has no workspace).
      else {
        for (const r of requeued) {
          ctx.audit.record({
            workspaceId: r.workspaceId,
            memberId: null,
            tokenId: null,
            actor: 'operator',
            action: 'POST /api/v1/admin/detection/requeue',
            summary: { requeued: r.jobs, all_workspaces: true },
            outcome: 'ok',
            errorCode: null,
            durationMs: performance.now() - started,
          });
        }
      }
      request.log.info({ requeued: requeued.reduce((n, r) => n + r.jobs, 0), workspaces: requeued.length }, 'failed detection jobs requeued');
      return {
        requeued: requeued.reduce((n, r) => n + r.jobs, 0),
        workspaces: requeued.map((r) => ({ engram_id: r.engramId, requeued: r.jobs })),
      };
    },
  );

  // The operator commands' own work, for when they cannot open the database themselves (the
  // embedded one is held by `engram start`): `engram member list|remove`, `engram token create|revoke`.
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/v1/admin/members',
    {
      schema: {
        summary: "A workspace's members, removed ones included, like `engram member list`",
        tags: ['admin'],
        security: [{ operatorToken: [] }],
        querystring: OperatorMembersQuery,
        response: { 200: OperatorMembersBody },
      },
      preHandler: async (request, reply) => requireOperator(ctx, request, reply),
    },
    async (request) => listMembersForOperator(ctx.db.db, request.query.engram_id),
  );

  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/v1/admin/tokens',
    {
      schema: {
        summary: "Issue a token for a member, or for the workspace's oldest owner, like `engram token create`",
        tags: ['admin'],
        security: [{ operatorToken: [] }],
        body: OperatorTokenInput,
        response: { 201: OperatorTokenBody },
      },
      preHandler: async (request, reply) => requireOperator(ctx, request, reply),
    },
    async (request, reply) => {
      const issued = await issueTokenForOperator(ctx.db.db, request.body);
      request.auditWorkspaceId = issued.workspace_id;
      return reply.code(201).send(issued);
    },
  );

  app.withTypeProvider<ZodTypeProvider>().delete(
    '/api/v1/admin/tokens/:token_id',
    {
      schema: {
        summary: 'Revoke a token of a workspace, like `engram token revoke`; idempotent',
        tags: ['admin'],
        security: [{ operatorToken: [] }],
        params: z.object({ token_id: z.uuid({ error: 'must be a token id (UUID)' }) }),
        querystring: OperatorMembersQuery,
      },
      preHandler: async (request, reply) => requireOperator(ctx, request, reply),
    },
    async (request) => {
      const revoked = await revokeTokenForOperator(ctx.db.db, request.query.engram_id, request.params.token_id);
      request.auditWorkspaceId = revoked.workspace_id;
      ctx.tokens.clear();
      return revoked;
    },
  );

  app.withTypeProvider<ZodTypeProvider>().delete(
    '/api/v1/admin/members/:member_id',
    {
      schema: {
        summary: 'Remove a member of a workspace, like `engram member remove`: tokens revoked, sessions ended, facts kept',
        tags: ['admin'],
        security: [{ operatorToken: [] }],
        params: z.object({ member_id: z.uuid({ error: 'must be a member id (UUID)' }) }),
        querystring: OperatorMembersQuery,
      },
      preHandler: async (request, reply) => requireOperator(ctx, request, reply),
    },
    async (request) => {
      const removed = await removeMemberForOperator(ctx.db.db, request.query.engram_id, request.params.member_id);
      request.auditWorkspaceId = removed.workspace_id;
      ctx.tokens.clear();
      return removed;
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
      preHandler: async (request, reply) => requireOperator(ctx, request, reply),
    },
    async (request) => {
      if (!(await softDeleteWorkspace(ctx.db.db, request.params.id))) throw notFound(`Workspace ${request.params.id}`);
      request.auditWorkspaceId = request.params.id;
      ctx.tokens.clear();
      return { workspace_id: request.params.id, deleted: true };
    },
  );
}

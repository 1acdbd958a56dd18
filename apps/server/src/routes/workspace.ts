/**
 * Workspace management over REST (for the dashboard and scripts): the workspace and its settings,
 * invites, joining, members, tokens, scope permissions and the audit log.
 */
import {
  addScopePermission,
  clientSetup,
  createInviteFor,
  CreateInviteInput,
  createTokenFor,
  CreateTokenInput,
  describeWorkspace,
  joinWorkspace,
  listInvites,
  listMembers,
  listScopePermissions,
  listTokens,
  readAuditLog,
  removeMember,
  renameMember,
  RenameMemberInput,
  removeScopePermission,
  revokeInvite,
  revokeToken,
  ScopePermissionInput,
  TOKEN_CACHE_TTL_MS,
  updateWorkspace,
  WorkspaceUpdate,
} from '@engram/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { publicBaseUrl, requireMember, resolvePrincipal } from '../plugins/auth.ts';

const IdParams = (name: string) => z.object({ id: z.uuid({ error: `must be a ${name} id (UUID)` }) });
const member = { security: [{ memberToken: [] }] };

export async function workspaceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const auth = (request: FastifyRequest, reply: FastifyReply) => requireMember(ctx, request, reply);
  const mcpUrl = (request: FastifyRequest) => `${publicBaseUrl(ctx.config, request)}/mcp`;

  typed.get('/api/v1/workspace', { schema: { summary: 'The caller\'s workspace and its settings', tags: ['workspace'], ...member } }, async (request, reply) =>
    describeWorkspace(ctx.db.db, await auth(request, reply)),
  );

  typed.patch(
    '/api/v1/workspace',
    { schema: { summary: 'Rename the workspace or change its settings (owners)', tags: ['workspace'], ...member, body: WorkspaceUpdate } },
    async (request, reply) => {
      const updated = await updateWorkspace(ctx.db.db, await auth(request, reply), request.body);
      // Cached principals carry the settings (privacy, limits): drop them so the change applies now.
      ctx.tokens.clear();
      return updated;
    },
  );

  // --- invites
  typed.get('/api/v1/invites', { schema: { summary: 'Invites of the workspace (owners)', tags: ['invites'], ...member } }, async (request, reply) => ({
    invites: await listInvites(ctx.db.db, await auth(request, reply)),
  }));

  const createInvite = (rotate: boolean) => async (request: FastifyRequest<{ Body: z.output<typeof CreateInviteInput> }>, reply: FastifyReply) => {
    const created = await createInviteFor(ctx.db.db, ctx.secret, await auth(request, reply), request.body, { rotate });
    return reply.code(201).send({
      ...created,
      join_instructions: `Add Engram (${mcpUrl(request)}) to your agent. If it opens a sign-in page, choose "Join with an invite" and paste this invite key; otherwise use the key as its bearer token and ask it to join Engram: ${created.invite_key}`,
    });
  };
  const InviteBody = z.preprocess((b) => b ?? {}, CreateInviteInput);
  typed.post('/api/v1/invites', { schema: { summary: 'Create an invite key (owners)', tags: ['invites'], ...member, body: InviteBody } }, createInvite(false));
  typed.post(
    '/api/v1/invites/rotate',
    { schema: { summary: 'Revoke every active invite and create a new one (owners)', tags: ['invites'], ...member, body: InviteBody } },
    createInvite(true),
  );
  typed.delete(
    '/api/v1/invites/:id',
    { schema: { summary: 'Revoke an invite (owners); idempotent', tags: ['invites'], ...member, params: IdParams('invite') } },
    async (request, reply) => revokeInvite(ctx.db.db, await auth(request, reply), request.params.id),
  );

  typed.post(
    '/api/v1/join',
    {
      schema: {
        summary: 'Redeem an invite key for a new member token',
        tags: ['invites'],
        body: z.object({ invite_key: z.string().trim().min(1, { error: 'is required' }), display_name: z.string().trim().min(1).max(100).optional() }).strict(),
      },
    },
    async (request, reply) => {
      await resolvePrincipal(ctx, request, reply);
      const joined = await joinWorkspace(ctx.db.db, ctx.secret, request.body, mcpUrl(request));
      request.auditWorkspaceId = joined.workspace_id;
      return reply.code(201).send({ ...joined, client_setup: clientSetup(joined.mcp_url, joined.token) });
    },
  );

  // --- members and tokens
  typed.get('/api/v1/members', { schema: { summary: 'Members of the workspace', tags: ['members'], ...member } }, async (request, reply) => ({
    members: await listMembers(ctx.db.db, await auth(request, reply)),
  }));
  typed.delete(
    // Named `member_id` rather than `id` so the audit entry keeps which member was removed (the audit
    // summary records identifiers by their field name).
    '/api/v1/members/:member_id',
    {
      schema: {
        summary: 'Remove a member (owners; anyone may remove themselves); idempotent',
        description:
          'Ends the membership in one transaction: the member is marked removed, all their tokens are revoked and their dashboard sessions end, ' +
          'so their next MCP call, API call or dashboard request gets a 401 saying the membership ended. Their facts stay, attributed as before. ' +
          `This instance stops accepting their tokens at once; other instances within ${TOKEN_CACHE_TTL_MS / 1000} s (their token cache). ` +
          'The last owner cannot be removed (409). Removing a removed member changes nothing and reports the first removal.',
        tags: ['members'],
        ...member,
        params: z.object({ member_id: z.uuid({ error: 'must be a member id (UUID)' }) }),
      },
    },
    async (request, reply) => {
      const removed = await removeMember(ctx.db.db, await auth(request, reply), request.params.member_id);
      ctx.tokens.clear();
      return removed;
    },
  );

  typed.patch(
    // `member_id`, as for removal, so the audit entry keeps which member was renamed.
    '/api/v1/members/:member_id',
    {
      schema: {
        summary: 'Rename a member (yourself; owners: anyone)',
        description:
          'Sets the display name people see beside the member\'s facts in engram_query, engram_conflicts and the dashboard. ' +
          'Names are unique among the workspace\'s members, ignoring case and surrounding spaces: a name someone else holds is refused (409) with what to change.',
        tags: ['members'],
        ...member,
        params: z.object({ member_id: z.uuid({ error: 'must be a member id (UUID)' }) }),
        body: RenameMemberInput,
      },
    },
    async (request, reply) => {
      const renamed = await renameMember(ctx.db.db, await auth(request, reply), request.params.member_id, request.body.display_name);
      // Cached principals carry the name (engram_status shows it): drop them so the new one shows now.
      ctx.tokens.clear();
      return renamed;
    },
  );

  typed.get('/api/v1/tokens', { schema: { summary: 'Your tokens (owners: every token)', tags: ['tokens'], ...member } }, async (request, reply) => ({
    tokens: await listTokens(ctx.db.db, await auth(request, reply)),
  }));
  typed.post(
    '/api/v1/tokens',
    { schema: { summary: 'Create a token for yourself (owners: for any member)', tags: ['tokens'], ...member, body: z.preprocess((b) => b ?? {}, CreateTokenInput) } },
    async (request, reply) => reply.code(201).send(await createTokenFor(ctx.db.db, await auth(request, reply), request.body)),
  );
  typed.delete(
    '/api/v1/tokens/:id',
    { schema: { summary: 'Revoke a token (yours, or any as an owner); idempotent', tags: ['tokens'], ...member, params: IdParams('token') } },
    async (request, reply) => {
      const revoked = await revokeToken(ctx.db.db, await auth(request, reply), request.params.id);
      ctx.tokens.clear();
      return revoked;
    },
  );

  // --- scope permissions
  typed.get('/api/v1/scope-permissions', { schema: { summary: 'Scope permissions (owners: all; others: their own)', tags: ['members'], ...member } }, async (request, reply) => ({
    scope_permissions: await listScopePermissions(ctx.db.db, await auth(request, reply)),
  }));
  typed.post(
    '/api/v1/scope-permissions',
    { schema: { summary: 'Grant or restrict a member on a scope subtree (owners)', tags: ['members'], ...member, body: ScopePermissionInput } },
    async (request, reply) => {
      const added = await addScopePermission(ctx.db.db, await auth(request, reply), request.body);
      ctx.tokens.clear();
      return reply.code(201).send(added);
    },
  );
  typed.delete(
    '/api/v1/scope-permissions/:id',
    { schema: { summary: 'Remove a scope permission (owners)', tags: ['members'], ...member, params: IdParams('scope permission') } },
    async (request, reply) => {
      const removed = await removeScopePermission(ctx.db.db, await auth(request, reply), request.params.id);
      ctx.tokens.clear();
      return removed;
    },
  );

  // --- audit log
  typed.get(
    '/api/v1/audit',
    {
      schema: {
        summary: 'The audit log, newest first (owners)',
        tags: ['audit'],
        ...member,
        querystring: z
          .object({
            limit: z.coerce.number().int().min(1, { error: 'must be at least 1' }).max(500, { error: 'must be at most 500' }).default(100),
            before: z.coerce.number().int().positive({ error: 'must be an entry id' }).optional(),
          })
          .strict(),
      },
    },
    async (request, reply) => {
      const principal = await auth(request, reply);
      await ctx.audit.flush();
      return { entries: await readAuditLog(ctx.db.db, principal, request.query) };
    },
  );
}

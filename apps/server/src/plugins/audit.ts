import { auditIdentity, summarizeArguments } from '@engram/core';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every write to the REST API lands in the audit log: who (as resolved by the route), which
 * route, a summary of the body (shapes, never content or keys), outcome and duration. MCP tool
 * calls are audited per tool by the MCP layer.
 */
export function registerAuditHook(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (!WRITES.has(request.method) || !route?.startsWith('/api/')) return;
    const identity = auditIdentity(request.principal ?? null);
    const status = reply.statusCode;
    ctx.audit.record({
      ...identity,
      actor: route.startsWith('/api/v1/admin/') ? 'operator' : identity.actor,
      workspaceId: request.auditWorkspaceId ?? identity.workspaceId,
      action: `${request.method} ${route}`,
      summary: {
        ...(request.params && Object.keys(request.params).length ? { params: request.params } : {}),
        ...(request.body !== undefined ? { body: summarizeArguments(request.body) } : {}),
      },
      outcome: status < 400 ? 'ok' : status === 401 || status === 403 || status === 429 ? 'denied' : 'error',
      errorCode: status < 400 ? null : String(status),
      durationMs: reply.elapsedTime,
    });
  });
}

import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import { ENGRAM_VERSION } from '@engram/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppContext } from './context.ts';
import { registerAnsweringCount } from './plugins/answering.ts';
import { registerAuditHook } from './plugins/audit.ts';
import { frameworkError, MAX_PATH_PARAM_LENGTH, registerErrorHandling, registerRequestDeadline } from './plugins/errors.ts';
import { registerInputGuard, registerRequestGuard } from './plugins/request-guard.ts';
import { registerCors } from './plugins/cors.ts';
import { adminRoutes } from './routes/admin.ts';
import { citationRoutes } from './routes/citations.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { detectionRoutes } from './routes/detection.ts';
import { factRoutes } from './routes/facts.ts';
import { healthRoutes } from './routes/health.ts';
import { homeRoutes } from './routes/home.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { sessionRoutes } from './routes/session.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { wellKnownRoutes } from './routes/well-known.ts';
import { workspaceRoutes } from './routes/workspace.ts';

export interface BuildAppOptions {
  /** The process logger; tests pass a silent or capturing one. */
  logger: FastifyBaseLogger;
  /** The built dashboard to serve at `/` (default: apps/dashboard/dist). */
  dashboardDir?: string;
}

/**
 * Builds the Engram HTTP app (not listening): MCP at `/mcp`, REST under `/api/v1`, health checks,
 * one error handler, Host/Origin validation. `server.ts` listens; tests call `inject()`.
 */
export async function buildApp(ctx: AppContext, options: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: () => randomUUID(),
    bodyLimit: 1_048_576,
    return503OnClosing: true,
    // Behind a proxy (Fly, a load balancer), client addresses come from X-Forwarded-For.
    trustProxy: ctx.config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    // A malformed path gets the same error body as every other 4xx.
    frameworkErrors: (error, request, reply) => void frameworkError(error, request, reply),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });

  registerAnsweringCount(app);
  registerErrorHandling(app, ctx.db.health);
  registerRequestDeadline(app, ctx.config.databaseLimits.requestDeadlineMs);
  registerRequestGuard(app, ctx.config);
  registerCors(app, ctx.config);
  registerInputGuard(app);
  registerAuditHook(app, ctx);
  // Dashboard sessions ride in a cookie (see plugins/auth.ts); nothing else reads cookies.
  await app.register(fastifyCookie);

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Engram API', version: ENGRAM_VERSION },
      components: {
        securitySchemes: {
          memberToken: { type: 'http', scheme: 'bearer', description: 'A member token (egm_...)' },
          operatorToken: { type: 'http', scheme: 'bearer', description: 'ENGRAM_ADMIN_TOKEN' },
          dashboardSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'engram_session',
            description: 'Session from POST /api/v1/session; writes also need the x-csrf-token header',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
  });

  await app.register(async (scope) => healthRoutes(scope, ctx));
  await app.register(async (scope) => wellKnownRoutes(scope, ctx));
  await app.register(async (scope) => mcpRoutes(scope, ctx));
  await app.register(async (scope) => adminRoutes(scope, ctx));
  await app.register(async (scope) => factRoutes(scope, ctx));
  await app.register(async (scope) => citationRoutes(scope, ctx));
  await app.register(async (scope) => workspaceRoutes(scope, ctx));
  await app.register(async (scope) => detectionRoutes(scope, ctx));
  await app.register(async (scope) => sessionRoutes(scope, ctx));
  await app.register(async (scope) => oauthRoutes(scope, ctx));
  await app.register(async (scope) => dashboardRoutes(scope, ctx));
  await app.register(async (scope) => homeRoutes(scope, ctx, { dashboardDir: options.dashboardDir }));

  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

import { ENGRAM_VERSION } from '@engram/core';
import { pendingMigrations, ping } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';

/** `/healthz` (the process is up) and `/readyz` (database reachable, migrations applied). */
export async function healthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok', version: ENGRAM_VERSION }));

  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    const database = await ping(ctx.db.db);
    const pending = database ? await pendingMigrations(ctx.db.db) : null;
    const ready = database && pending === 0;
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'not_ready',
      checks: {
        database: database ? 'ok' : 'unreachable',
        migrations: pending === null ? 'unknown' : pending === 0 ? 'ok' : `${pending} pending`,
      },
    });
  });
}

import { ENGRAM_VERSION } from '@engram/core';
import { CONNECTIONS_QUIET_MS, databaseFault, pendingMigrations, probe, withinDeadline } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';

/** The probes' paths: answered for load balancers and orchestrators, not work anyone waits on. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
/** Is this request URL (its path, with or without a query) a health probe's? */
export const isProbe = (url: string): boolean => PROBE_PATHS.has(url.split('?')[0] ?? '');

/** /readyz answers within this long whatever the database does. */
export const READINESS_BUDGET_MS = 900;

/**
 * `/healthz` is liveness: the process and its event loop answer (it touches nothing else, so an
 * orchestrator never restarts a process because its database is away). `/readyz` is readiness: the
 * database answers, accepts writes, and has every migration; it answers within a second, 503 when
 * any of that is not so, and says which check failed.
 */
export async function healthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok', version: ENGRAM_VERSION }));

  let migrationsApplied = false;
  const check = async (): Promise<Record<string, string>> => {
    try {
      await probe(ctx.db.control);
    } catch (error) {
      const fault = ctx.db.health.report(error) ?? databaseFault(error);
      return { database: `unreachable: ${fault?.detail ?? (error as Error).message}`, writes: 'unknown', migrations: 'unknown' };
    }
    const writeProblem = (await ctx.db.writeProblem()) ?? connectionProblem(ctx);
    if (!writeProblem) ctx.db.health.recovered();
    let migrations = 'ok';
    if (!migrationsApplied) {
      const pending = await pendingMigrations(ctx.db.control);
      migrationsApplied = pending === 0;
      if (pending > 0) migrations = `${pending} pending`;
    }
    return { database: 'ok', writes: writeProblem ? `refused: ${writeProblem}` : 'ok', migrations };
  };

  /**
   * The embedded database has one connection: a check waits for the statement in progress. When
   * that one is making progress within its deadline, the database is there and ready (a busy
   * instance taken out of rotation only sends its load elsewhere, then comes back: flapping); what
   * needs no turn (free disk, known migrations) is still checked.
   */
  const busyChecks = async (): Promise<{ checks: Record<string, string>; busy: string } | undefined> => {
    const busy = ctx.db.busy?.();
    if (!busy) return undefined;
    const writeProblem = (await ctx.db.writeProblem()) ?? connectionProblem(ctx);
    return { checks: { database: 'ok', writes: writeProblem ? `refused: ${writeProblem}` : 'ok', migrations: migrationsApplied ? 'ok' : 'unknown' }, busy };
  };

  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    const answer: { checks: Record<string, string>; busy?: string } = await withinDeadline(check(), READINESS_BUDGET_MS, 'the readiness check')
      .then((checks) => ({ checks }))
      .catch(async () => (await busyChecks()) ?? {
        checks: { database: `not answering within ${READINESS_BUDGET_MS} ms`, writes: 'unknown', migrations: 'unknown' },
      });
    const ready = Object.values(answer.checks).every((value) => value === 'ok');
    if (!ready) void reply.header('retry-after', '5');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', ...answer });
  });
}

/** Requests of this process cannot get a database connection (the server has no slots left). */
function connectionProblem(ctx: AppContext): string | undefined {
  const outage = ctx.db.health.outage();
  if (outage?.fault.kind !== 'too_many_connections' || Date.now() - outage.last.getTime() >= CONNECTIONS_QUIET_MS) return undefined;
  return `requests cannot get a database connection (${outage.fault.detail}); the server has no free connection slots`;
}

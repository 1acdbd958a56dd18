import { Readable } from 'node:stream';
import { EngramError, IdempotencyKey, ImportInput, Instant, ImportOutput, importFacts, InvalidInputError, MAX_IMPORT_BYTES, readJournal, Scope } from '@engram/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { refreshStatistics } from '@engram/db';
import { factServicesOf, type AppContext } from '../context.ts';
import { requireMember } from '../plugins/auth.ts';

const SinceQuery = z
  .object({
    after: Instant.optional()
      .describe('Watermark: only facts committed after this instant (exclusive).'),
    scope: Scope.optional().describe('Only this scope and below.'),
  })
  .strict();

/** Most milliseconds an import of up to 1,000 facts may take before its caller is told to retry. */
const IMPORT_DEADLINE_MS = 180_000;

/** The `Idempotency-Key` header's key, checked like engram_commit's `idempotency_key`. */
function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parsed = IdempotencyKey.safeParse(Array.isArray(header) ? header.join(',') : header);
  if (!parsed.success) throw new InvalidInputError([{ field: 'Idempotency-Key header', message: parsed.error.issues[0]?.message ?? 'is invalid' }]);
  return parsed.data;
}

/** The facts journal (SPEC §8): import with original timestamps, export as NDJSON after a watermark. */
export async function factRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/api/v1/facts/import',
    {
      bodyLimit: MAX_IMPORT_BYTES,
      // Embedding and checking 1,000 facts is long work, not a stuck wait (it is idempotent if retried).
      config: { requestDeadlineMs: IMPORT_DEADLINE_MS },
      schema: {
        summary: 'Import facts with their original committed_at, agent_id and scope (idempotent); refused facts are named, the others stored',
        description: 'With an `Idempotency-Key` header (any unique string of 8-200 printable characters, e.g. a UUID), a retry of the same request gets the first answer word for word; the same key with another body is refused (422 idempotency_key_reused).',
        tags: ['facts'],
        security: [{ memberToken: [] }],
        body: ImportInput,
        response: { 200: ImportOutput },
      },
    },
    async (request, reply) => {
      const principal = await requireMember(ctx, request, reply);
      if (principal.role === 'reader') {
        throw new EngramError('forbidden', 'Your token is read-only (reader role): it cannot import facts.');
      }
      const imported = await importFacts(factServicesOf(ctx, request.log), principal, request.body, undefined, { idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']) });
      // A large import can outgrow the planner's statistics before the next upkeep sweep.
      void refreshStatistics(ctx.db.background).catch((error: unknown) => request.log.warn({ err: error }, 'planner statistics refresh failed'));
      return imported;
    },
  );

  typed.get(
    '/api/v1/facts/since',
    {
      schema: {
        summary: 'Every fact version committed after a watermark, as NDJSON, oldest first',
        tags: ['facts'],
        security: [{ memberToken: [] }],
        querystring: SinceQuery,
      },
    },
    async (request, reply) => {
      const principal = await requireMember(ctx, request, reply);
      const entries = readJournal(ctx.db.db, principal, {
        after: request.query.after ? new Date(request.query.after) : undefined,
        scope: request.query.scope,
      });
      const lines = Readable.from(
        (async function* () {
          for await (const entry of entries) yield `${JSON.stringify(entry)}\n`;
        })(),
      );
      return reply.type('application/x-ndjson; charset=utf-8').send(lines);
    },
  );
}

import { callerErrorOf, EngramError, InvalidInputError, problemsFromZod, type FieldProblem } from '@engram/core';
import { DatabaseUnavailableError, type DatabaseHealth } from '@engram/db';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

/** The body of every error response. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown>; request_id: string };
}

/** Fastify's own 4xx errors, mapped to Engram codes and messages that say what to change. */
function fastifyClientError(error: FastifyError, request: FastifyRequest): EngramError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new InvalidInputError([{ field: '', message: 'the request body is empty; send a JSON object' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new InvalidInputError([{ field: '', message: 'the request body is not valid JSON' }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new EngramError(
        'payload_too_large',
        `The request body is larger than the ${request.routeOptions.bodyLimit ?? 'allowed'} bytes this route accepts; split it into smaller requests.`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new EngramError('unsupported_media_type', 'Send the body as application/json.');
    default:
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
        return new EngramError('invalid_input', error.message);
      }
      return undefined;
  }
}

/**
 * Errors the router raises before any route or hook runs (Fastify's `frameworkErrors`): a path
 * that is not valid percent-encoded UTF-8, or a path parameter over the router's length limit.
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0] ?? '';
  const shown = path.length > 80 ? `${path.slice(0, 80)}…` : path;
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return sendError(reply, request, new EngramError('uri_too_long', `A path segment of ${shown} is too long: ids and names in a path are at most ${MAX_PATH_PARAM_LENGTH} characters.`));
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return sendError(reply, request, new InvalidInputError([{ field: 'path', message: `${shown} is not valid percent-encoded UTF-8; encode the path as UTF-8` }]));
  }
  return sendError(reply, request, new EngramError('invalid_input', error.message));
}

/** The router's limit on one path parameter (Fastify's default). */
export const MAX_PATH_PARAM_LENGTH = 100;

/** Sends an Engram error with its status and the headers its code implies. */
export function sendError(reply: FastifyReply, request: FastifyRequest, error: EngramError): FastifyReply {
  const retryAfter = error.details?.retry_after_seconds;
  if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
  const body: ErrorBody = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      request_id: request.id,
    },
  };
  return reply.code(error.status).send(body);
}

/**
 * One error handler for the whole app: domain errors keep their code and message, validation
 * failures name each field, and any 5xx is logged and answered without internals.
 */
export function registerErrorHandling(app: FastifyInstance, health?: DatabaseHealth): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A database fault is the caller's to retry (503), and logged once per outage, not per request.
    health?.report(error);
    const callerError = callerErrorOf(error);
    if (callerError) return sendError(reply, request, callerError);
    if (hasZodFastifySchemaValidationErrors(error)) {
      const problems: FieldProblem[] = problemsFromZod(
        error.validation.map((v) => ({
          path: v.instancePath.split('/').filter(Boolean),
          message: v.message ?? 'is invalid',
        })),
      );
      return sendError(reply, request, new InvalidInputError(problems));
    }
    const client = fastifyClientError(error, request);
    if (client) return sendError(reply, request, client);

    request.log.error({ err: error }, 'request failed');
    const body: ErrorBody = {
      error: { code: 'internal', message: 'Internal server error.', request_id: request.id },
    };
    return reply.code(500).send(body);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, request, new EngramError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`)),
  );
}

/** Methods that change nothing: their deadline answer is a plain "retry". */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A deadline answer to a request that may change something, which goes on after it. */
function unknownOutcome(error: EngramError): EngramError {
  return new EngramError(
    'unavailable',
    `${error.message.replace(/\s*Try again in \d+ s\.$/, '')} The request is still running and may yet take effect (outcome: unknown). ` +
      'Retrying is safe with an idempotency key: send the same request with the same Idempotency-Key header (imports) or idempotency_key (engram_commit) and you get its answer, never a second copy.',
    { ...error.details, done: 'unknown' },
  );
}

/**
 * Every REST request is answered within `deadlineMs`: past it, the caller gets the retryable 503
 * (`unavailable`, reason `timeout`) even if the work is still waiting somewhere (a pool, a stalled
 * network); the late result is dropped. An MCP tool call gets what is left of it, less a margin,
 * inside the tool wrapper, where running out becomes a tool error (see routes/mcp.ts).
 */
export function registerRequestDeadline(app: FastifyInstance, deadlineMs: number): void {
  app.decorateRequest('deadlineAt', 0);
  app.addHook('onRequest', (request, reply, done) => {
    // A route doing long work by design (imports) sets its own in `config.requestDeadlineMs`.
    const { requestDeadlineMs } = request.routeOptions.config as { requestDeadlineMs?: number };
    const ms = requestDeadlineMs ?? deadlineMs;
    request.deadlineAt = Date.now() + ms;
    const timer = setTimeout(() => {
      if (reply.sent) return;
      request.log.warn({ deadline_ms: ms }, 'request deadline passed: answered 503');
      const fault = new DatabaseUnavailableError('timeout', `no answer within the request deadline of ${ms} ms`);
      void sendError(reply, request, SAFE_METHODS.has(request.method) ? callerErrorOf(fault)! : unknownOutcome(callerErrorOf(fault)!));
    }, ms);
    timer.unref();
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
  // A handler that finishes after its deadline was answered has nothing left to send. Its result
  // is dropped (Fastify would send it again and log FST_ERR_REP_ALREADY_SENT); what it did (an
  // import committed, say) stays done, and a late failure is logged once.
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const result: unknown = handler.call(this, request, reply);
      if (!(result instanceof Promise)) return result;
      return result.then(
        (value: unknown) => (reply.sent ? undefined : value),
        (error: unknown) => {
          if (!reply.sent) throw error;
          request.log.warn({ err: error }, 'request failed after its deadline had been answered');
          return undefined;
        },
      );
    };
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** When this request must be answered by (epoch ms; see registerRequestDeadline). */
    deadlineAt: number;
  }
}

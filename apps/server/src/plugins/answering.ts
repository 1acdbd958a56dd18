import { requestBegan } from '@engram/core';
import type { FastifyInstance } from 'fastify';
import { isProbe } from '../routes/health.ts';

/**
 * Counts the requests being answered, from arrival until the connection is done with the answer,
 * so background work in this process (the detector) keeps to its share while there are any
 * (BACKGROUND_SHARE in core/src/turns.ts). Health probes are not counted: a poller checking the
 * process every few milliseconds would hold the detector to its share with no work waiting.
 */
export function registerAnsweringCount(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!isProbe(request.url)) reply.raw.once('close', requestBegan());
    done();
  });
}

import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerRequestDeadline } from '../../apps/server/src/plugins/errors.ts';

/** A Fastify app with the request deadline, whose route finishes only when released, and its log lines. */
function appWithLateRoute(outcome: 'result' | 'failure') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream } });
  registerRequestDeadline(app, 20);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let finished!: () => void;
  const handlerDone = new Promise<void>((resolve) => (finished = resolve));
  app.post('/slow', async () => {
    await released;
    setImmediate(finished);
    if (outcome === 'failure') throw new Error('late failure');
    return { imported: 1 };
  });
  return { app, lines, release, handlerDone };
}

describe('request deadline', () => {
  for (const outcome of ['result', 'failure'] as const) {
    it(`answers 503 at the deadline and drops the handler's late ${outcome} without sending twice`, async () => {
      const { app, lines, release, handlerDone } = appWithLateRoute(outcome);
      const answered = await app.inject({ method: 'POST', url: '/slow', payload: {} });
      expect(answered.statusCode).toBe(503);
      expect(answered.json()).toMatchObject({ error: { code: 'unavailable', details: { reason: 'timeout' } } });
      // The handler finishes only after the 503 went out.
      release();
      await handlerDone;
      await new Promise((resolve) => setImmediate(resolve));
      const messages = lines.map((l) => `${String(l.msg)} ${JSON.stringify(l.err ?? '')}`);
      expect(messages.filter((m) => /FST_ERR_REP_ALREADY_SENT|already sent/i.test(m))).toEqual([]);
      if (outcome === 'failure') expect(messages.some((m) => m.includes('request failed after its deadline had been answered'))).toBe(true);
      await app.close();
    });
  }
});

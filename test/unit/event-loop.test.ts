/** The server's event-loop watch (apps/server/src/event-loop.ts) reports a stall in its log. */
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { watchEventLoop } from '../../apps/server/src/event-loop.ts';
import { holdEventLoop } from '../support/hold-loop.ts';

describe('event-loop watch', () => {
  it('logs a stall of the event loop with its length', async () => {
    const warnings: { fields: { max_ms: number; p99_ms: number }; msg: string }[] = [];
    const log = { warn: (fields: { max_ms: number; p99_ms: number }, msg: string) => warnings.push({ fields, msg }) } as unknown as Logger;
    const watch = watchEventLoop(log, 100);
    try {
      // Let the watch sample an idle loop first, then hold the loop for 250 ms.
      await new Promise((resolve) => setTimeout(resolve, 30));
      holdEventLoop(250);
      // Waits for the watch's next reading, however long a busy machine takes to get there.
      while (warnings.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      watch.stop();
    }
    expect(warnings[0]!.msg).toBe('event loop stalled');
    expect(warnings[0]!.fields.max_ms).toBeGreaterThanOrEqual(200);
  });
});

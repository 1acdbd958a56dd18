import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';

/** A stall at least this long is logged: every other request waited that long. */
export const EVENT_LOOP_STALL_MS = 100;
/** How often the delay is read (and its histogram started afresh). */
const READ_EVERY_MS = 1_000;

/**
 * Watches the event loop's delay and logs a warning for each period in which it was held up for
 * EVENT_LOOP_STALL_MS or more at once (`event loop stalled`, with the longest delay and the p99), so
 * an operator sees it without a profiler. The histogram samples every 10 ms; watching costs
 * nothing measurable.
 */
export function watchEventLoop(log: Logger, thresholdMs = EVENT_LOOP_STALL_MS): { stop(): void } {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const timer = setInterval(() => {
    // The histogram is in nanoseconds, and each sample includes the 10 ms resolution itself.
    const maxMs = delay.max / 1e6 - 10;
    if (maxMs >= thresholdMs) log.warn({ max_ms: Math.round(maxMs), p99_ms: Math.round(delay.percentile(99) / 1e6 - 10) }, 'event loop stalled');
    delay.reset();
  }, READ_EVERY_MS);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      delay.disable();
    },
  };
}

import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { Logger } from 'pino';

/** A stall at least this long is logged: every other request waited that long. */
export const EVENT_LOOP_STALL_MS = 100;
/** How often the delay is read (and its histogram started afresh). */
const READ_EVERY_MS = 1_000;

/**
 * Watches the event loop's delay and logs a warning for each period in which it was held up for
 * EVENT_LOOP_STALL_MS or more at once (`event loop stalled`, with the longest delay and the p99, and
 * the garbage collector's longest and total pause in that period), so an operator sees it without a
 * profiler, and whether the collector or code held the loop. The histogram samples every 10 ms; watching costs
 * nothing measurable.
 */
export function watchEventLoop(log: Logger, thresholdMs = EVENT_LOOP_STALL_MS): { stop(): void } {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // The garbage collector's pauses in the same second, to tell a collection from code that ran long.
  let gc = { longestMs: 0, totalMs: 0 };
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc = { longestMs: Math.max(gc.longestMs, entry.duration), totalMs: gc.totalMs + entry.duration };
    }
  });
  collections.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    // The histogram is in nanoseconds, and each sample includes the 10 ms resolution itself.
    const maxMs = delay.max / 1e6 - 10;
    if (maxMs >= thresholdMs) {
      log.warn(
        { max_ms: Math.round(maxMs), p99_ms: Math.round(delay.percentile(99) / 1e6 - 10), gc_longest_ms: Math.round(gc.longestMs), gc_total_ms: Math.round(gc.totalMs) },
        'event loop stalled',
      );
    }
    delay.reset();
    gc = { longestMs: 0, totalMs: 0 };
  }, READ_EVERY_MS);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      collections.disconnect();
      delay.disable();
    },
  };
}

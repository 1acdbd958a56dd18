import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Percentile of a sample (nearest rank), in the sample's unit. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export const median = (values: number[]) => percentile(values, 50);
export const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;

/**
 * This thread's event-loop delay from now until `stop()`, in ms. Node's histogram records each
 * whole timer interval, so the resolution is taken off.
 */
export function watchEventLoopDelay(resolutionMs = 10): { stop(): { p99: number; max: number } } {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  return {
    stop: () => {
      histogram.disable();
      const delay = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
      return { p99: delay(histogram.percentile(99)), max: delay(histogram.max) };
    },
  };
}

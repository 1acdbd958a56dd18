/**
 * Preloaded into a benchmarked server (`NODE_OPTIONS=--import=<this file>`, with
 * ENGRAM_BENCH_GC_FILE set; see layers.ts): V8's GC profiler runs from the start, and each
 * SIGUSR2 writes what it recorded since the previous one to that file, as JSON, then starts
 * afresh. `seq` counts the reports, so the bench waits for the one it asked for.
 */
import fs from 'node:fs';
import { GCProfiler } from 'node:v8';

export interface GcReport {
  seq: number;
  scavenges: number;
  scavengeMs: number;
  /** Bytes the scavenges moved to the old generation (its growth across each). */
  promoted: number;
  fullGcs: number;
  fullGcMs: number;
}

const file = process.env.ENGRAM_BENCH_GC_FILE;
if (file) {
  type Stats = { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] };
  const oldGeneration = (stats: Stats) =>
    stats.heapSpaceStatistics.filter((s) => s.spaceName === 'old_space' || s.spaceName === 'large_object_space').reduce((sum, s) => sum + s.spaceUsedSize, 0);
  let profiler = new GCProfiler();
  profiler.start();
  let seq = 0;
  process.on('SIGUSR2', () => {
    const { statistics } = profiler.stop();
    profiler = new GCProfiler();
    profiler.start();
    const scavenges = statistics.filter((s) => s.gcType === 'Scavenge');
    const full = statistics.filter((s) => s.gcType === 'MarkSweepCompact');
    const report: GcReport = {
      seq: ++seq,
      scavenges: scavenges.length,
      scavengeMs: scavenges.reduce((sum, s) => sum + s.cost / 1000, 0),
      promoted: scavenges.reduce((sum, s) => sum + Math.max(0, oldGeneration(s.afterGC) - oldGeneration(s.beforeGC)), 0),
      fullGcs: full.length,
      fullGcMs: full.reduce((sum, s) => sum + s.cost / 1000, 0),
    };
    fs.writeFileSync(file, JSON.stringify(report));
  });
}

/**
 * Preloaded into a benchmarked server (`NODE_OPTIONS=--import=<this file>`, with
 * ENGRAM_BENCH_GC_FILE set; see layers.ts): V8's GC profiler runs from the start, and each
 * SIGUSR2 writes what it recorded since the previous one to that file, as JSON, then starts
 * afresh. `seq` counts the reports, so the bench waits for the one it asked for. Without the
 * variable it does nothing.
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

type Statistics = ReturnType<GCProfiler['stop']>['statistics'];

/** What a GC profile recorded: scavenges and full GCs, their pauses, and the bytes scavenges promoted. */
function gcSummary(statistics: Statistics): Omit<GcReport, 'seq'> {
  const oldGeneration = (stats: Statistics[number]['afterGC']) =>
    stats.heapSpaceStatistics.filter((s) => s.spaceName === 'old_space' || s.spaceName === 'large_object_space').reduce((sum, s) => sum + s.spaceUsedSize, 0);
  const scavenges = statistics.filter((s) => s.gcType === 'Scavenge');
  const full = statistics.filter((s) => s.gcType === 'MarkSweepCompact');
  return {
    scavenges: scavenges.length,
    scavengeMs: scavenges.reduce((sum, s) => sum + s.cost / 1000, 0),
    promoted: scavenges.reduce((sum, s) => sum + Math.max(0, oldGeneration(s.afterGC) - oldGeneration(s.beforeGC)), 0),
    fullGcs: full.length,
    fullGcMs: full.reduce((sum, s) => sum + s.cost / 1000, 0),
  };
}

const file = process.env.ENGRAM_BENCH_GC_FILE;
if (file) {
  let profiler = new GCProfiler();
  profiler.start();
  let seq = 0;
  process.on('SIGUSR2', () => {
    const { statistics } = profiler.stop();
    profiler = new GCProfiler();
    profiler.start();
    // Written aside and renamed into place, so the bench never reads a report half written.
    fs.writeFileSync(`${file}.part`, JSON.stringify({ seq: ++seq, ...gcSummary(statistics) } satisfies GcReport));
    fs.renameSync(`${file}.part`, file);
  });
}

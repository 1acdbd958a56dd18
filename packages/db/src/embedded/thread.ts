/**
 * The embedded database's thread, with a young generation of its own size.
 *
 * The thread allocates little JavaScript (messages in, rows out), so a few MiB of young generation
 * serve it. The server's heap is tuned with V8's `--max-semi-space-size` (the Dockerfile sets 16
 * MiB, for throughput), and V8 applies that flag to every isolate the process creates, over a
 * Worker's `resourceLimits.maxYoungGenerationSizeMb`: the database thread would hold 32 MiB of new
 * space it does not use. So the flag is lifted before the thread starts. The server's heap was sized
 * when the process started and keeps the flag's setting; the flag is meant for that heap alone.
 */
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';

/** A Worker for `url` whose young generation is `youngGenerationMb`, whatever `--max-semi-space-size` the process has. */
export function startThread(url: URL, youngGenerationMb: number): Worker {
  v8.setFlagsFromString('--max-semi-space-size=0');
  return new Worker(url, { resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } });
}

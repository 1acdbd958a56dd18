/**
 * A detection worker process that claims one run and then hangs inside it, for the test that
 * kills a worker mid-run. Prints `claimed <runId> <jobIds>` once it holds the run.
 *
 *   node test/support/hanging-worker.ts DATABASE_URL LEASE_MS [own-id]
 *
 * With `own-id` it names itself as workers do by default (host, pid, PID namespace), so a worker
 * on this host can tell it is gone; otherwise `doomed-<pid>`, which only its lease gives away.
 */
import { DetectionWorker, silentLogger } from '@engram/core';
import { createDb } from '@engram/db';

const [url, leaseMs, naming] = process.argv.slice(2);
const handle = await createDb({ kind: 'postgres', url: url! }, { maxConnections: 2 });
const worker = new DetectionWorker({
  db: handle.db,
  log: silentLogger,
  ...(naming === 'own-id' ? {} : { workerId: `doomed-${process.pid}` }),
  leaseMs: Number(leaseMs),
  debounceMs: 0,
  run: async (claimed) => {
    process.stdout.write(`claimed ${claimed.runId} ${claimed.jobIds.join(',')}\n`);
    return new Promise(() => {}); // never finishes: the test kills this process here
  },
});
worker.start();

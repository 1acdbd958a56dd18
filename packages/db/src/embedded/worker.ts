/**
 * The embedded database's own thread. PGlite is Postgres compiled to WebAssembly and runs each
 * statement synchronously; here a statement that blocks (a full disk while the WAL needs a new
 * segment froze the whole server when PGlite ran on the main thread) blocks only this thread.
 *
 * Requests (protocol.ts) are handled one at a time, in the order they arrive, and each is answered.
 * A transaction is one `pg.transaction()` (PGlite's own), held open between its `begin` and its
 * `commit` or `rollback`; only statements of that transaction run while it is open.
 *
 * Checkpoints are this thread's job too: Postgres in single-user mode (PGlite) never starts one by
 * itself (only at start and shutdown), so without them the WAL grows without end, never recycled
 * (docs/performance/2026-12-02-constants.md), filling the disk and lengthening recovery.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { DURABLE_START_PARAMS, DurableNodeFS, flushTree } from './durable-fs.ts';
import { toWire, type Opened, type Reply, type Request } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('the embedded database worker runs in a worker thread');

let pg: PGlite | undefined;
/** The transaction in progress: its id, PGlite's handle, and how to finish it. */
let open: { id: number; tx: Transaction; finish: (outcome: 'commit' | 'rollback') => void; done: Promise<void> } | undefined;
/** A transaction whose BEGIN failed: its statements answer with that failure. */
let failedBegin: { id: number; error: unknown } | undefined;

/** A checkpoint is due once this much WAL was written since the last one (Postgres' own trigger is max_wal_size). */
const CHECKPOINT_WAL_BYTES = 64 * 1_048_576;
/** How often, at most, the WAL written since the last checkpoint is looked at (after work, when idle). */
const CHECKPOINT_CHECK_MS = 10_000;

/** The main thread's requests, and this thread's own checkpoint checks, in order. */
const queue: (Request | { op: 'checkpoint' })[] = [];
let draining = false;
let checkpointCheck: NodeJS.Timeout | undefined;
/** Requests were handled since the WAL was last looked at. */
let workedSinceCheck = false;

port.on('message', (request: Request) => {
  queue.push(request);
  if (!draining) void drain();
});

async function drain(): Promise<void> {
  draining = true;
  for (let request = queue.shift(); request; request = queue.shift()) {
    if (request.op === 'checkpoint') {
      // Not now inside a transaction; a failed checkpoint is tried again at the next check.
      if (!open) workedSinceCheck = false;
      await checkpointIfDue().catch(() => (workedSinceCheck = true));
      continue;
    }
    workedSinceCheck = true;
    let reply: Reply;
    try {
      reply = { id: request.id, ok: true, result: await handle(request) };
    } catch (error) {
      reply = { id: request.id, ok: false, error: toWire(error) };
    }
    try {
      port!.postMessage(reply);
    } catch (error) {
      port!.postMessage({ id: request.id, ok: false, error: toWire(error) } satisfies Reply);
    }
    if (request.op === 'close') process.exit(0);
  }
  draining = false;
  // Work was done: look at the WAL once things are quiet (never inside a transaction, never
  // between a request and the next in the queue).
  if (!workedSinceCheck || !pg) return;
  checkpointCheck ??= setTimeout(() => {
    checkpointCheck = undefined;
    queue.push({ op: 'checkpoint' });
    if (!draining) void drain();
  }, CHECKPOINT_CHECK_MS);
}

/** Runs a checkpoint when enough WAL was written since the last one and no transaction is open. */
async function checkpointIfDue(): Promise<void> {
  if (!pg || open) return;
  const { rows } = await pg.query<{ bytes: number }>(
    'select pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::float8 as bytes from pg_control_checkpoint()',
  );
  if ((rows[0]?.bytes ?? 0) >= CHECKPOINT_WAL_BYTES) await pg.exec('checkpoint');
}

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'open':
      return openDatabase(request);
    case 'query':
      return (await target(request.tx)).query(request.sql, request.params, {
        rowMode: request.rowMode,
        paramTypes: request.paramTypes,
        parsers: rawParsers(request.rawTypes),
      });
    case 'exec':
      return (await target(request.tx)).exec(request.sql, { parsers: rawParsers(request.rawTypes) });
    case 'begin':
      return begin(request.tx);
    case 'commit':
    case 'rollback':
      return finish(request.tx, request.op);
    case 'close':
      if (open) await finish(open.id, 'rollback').catch(() => {});
      await pg?.close();
      pg = undefined;
      return null;
  }
}

async function openDatabase(request: Extract<Request, { op: 'open' }>): Promise<Opened> {
  const inMemory = request.dataDir.startsWith('memory://');
  const created = !inMemory && !fs.existsSync(path.join(request.dataDir, 'PG_VERSION'));
  const durable = request.durable && !inMemory;
  pg = await PGlite.create(request.dataDir, {
    extensions: { vector },
    pgliteWasmModule: request.pgliteWasmModule,
    initdbWasmModule: request.initdbWasmModule,
    ...(durable ? { fs: new DurableNodeFS(request.dataDir), startParams: [...DURABLE_START_PARAMS] } : {}),
  });
  // Filtered vector searches (one workspace, one scope) keep scanning the HNSW index until they
  // have enough rows, instead of returning too few (pgvector >= 0.8).
  await pg.exec(`set hnsw.iterative_scan = 'relaxed_order'`);
  if (created && durable) flushTree(request.dataDir);
  return { created };
}

function database(): PGlite {
  if (!pg) throw new Error('the embedded database is not open');
  return pg;
}

/** Where a statement runs: the database, or the open transaction it belongs to. */
async function target(tx: number): Promise<PGlite | Transaction> {
  if (tx === 0) {
    // The main thread holds back other statements while a transaction is open; this is the guard.
    if (open) throw new Error(`a statement outside transaction ${open.id} arrived while it was open`);
    return database();
  }
  if (open?.id === tx) return open.tx;
  if (failedBegin?.id === tx) throw failedBegin.error;
  throw new Error('Transaction is closed');
}

async function begin(id: number): Promise<null> {
  if (open) throw new Error(`transaction ${id} began while transaction ${open.id} was open`);
  const db = database();
  let finish!: (outcome: 'commit' | 'rollback') => void;
  const decided = new Promise<'commit' | 'rollback'>((resolve) => (finish = resolve));
  const started = Promise.withResolvers<Transaction>();
  const done = db.transaction(async (tx) => {
    started.resolve(tx);
    if ((await decided) === 'rollback') await tx.rollback();
  });
  done.catch((error: unknown) => started.reject(error));
  try {
    open = { id, tx: await started.promise, finish, done };
    failedBegin = undefined;
  } catch (error) {
    failedBegin = { id, error };
    throw error;
  }
  return null;
}

async function finish(id: number, outcome: 'commit' | 'rollback'): Promise<null> {
  if (open?.id !== id) {
    if (failedBegin?.id === id) {
      if (outcome === 'rollback') return null;
      throw failedBegin.error;
    }
    throw new Error('Transaction is closed');
  }
  const { finish: decide, done } = open;
  open = undefined;
  decide(outcome);
  await done;
  return null;
}

const identity = (value: string) => value;
const rawParserSets = new Map<string, Record<number, (value: string) => string>>();

/** PGlite parsers that leave these types as Postgres' text (the main thread applies the caller's). */
function rawParsers(types: number[]): Record<number, (value: string) => string> | undefined {
  if (types.length === 0) return undefined;
  const key = types.join(',');
  let parsers = rawParserSets.get(key);
  if (!parsers) {
    parsers = Object.fromEntries(types.map((type) => [type, identity]));
    rawParserSets.set(key, parsers);
  }
  return parsers;
}

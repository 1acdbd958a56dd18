/**
 * Durability for PGlite on Node. Out of the box (0.4.6) nothing the embedded database writes is
 * ever flushed to stable storage: PGlite starts Postgres with `-F` (fsync off), and even with
 * fsync on, Emscripten's file system turns `fdatasync()` into a no-op and `fsync()` into one too
 * (its Node file system has no `fsync` operation). Every write does reach the kernel at once
 * (`fs.writeSync`), so a killed process loses nothing; a power cut or a kernel crash may lose
 * acknowledged commits, or worse, leave data files older than the WAL that says they were written.
 *
 * This file system gives Emscripten's Node file system the `fsync` it lacks (an `fdatasync` of the
 * real file, or an `fsync` of the real directory), and {@link DURABLE_START_PARAMS} start Postgres
 * with fsync on and `wal_sync_method = fsync` (the one method that reaches that operation). Postgres
 * then does what it does on any disk: flushes the WAL before a commit is acknowledged, flushes data
 * files at checkpoints before the WAL that covers them is recycled, and flushes directories after
 * creating or renaming files in them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/**
 * PGlite's own start parameters without `-F` (fsync off), with a WAL sync method that reaches
 * fsync, and at most 256 MB of WAL kept for reuse after a checkpoint (Postgres' default is 1 GB;
 * the worker runs the checkpoints, see worker.ts). The buffer pool is 16 MB instead of 128: it
 * lives in the WebAssembly memory, which never shrinks, and a page it does not hold is read from
 * the operating system's cache, which costs the single-threaded database little: the server's
 * memory went down with no loss of throughput (docs/performance/2026-12-02-constants.md).
 */
export const DURABLE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams.filter((param) => param !== '-F'),
  '-c',
  'wal_sync_method=fsync',
  '-c',
  'max_wal_size=256MB',
  '-c',
  'shared_buffers=16MB',
];

type EmscriptenOptions = Parameters<NodeFS['init']>[1];
type Module = Parameters<NonNullable<EmscriptenOptions['preRun']>[number]>[0];

/** Emscripten's Node file system, as much of it as the patch needs. */
interface NodeFsOps {
  realPath(node: unknown): string;
  tryFSOperation<T>(fn: () => T): T;
  stream_ops: Record<string, unknown>;
}

interface Stream {
  node: { mode: number };
  nfd?: number;
}

/** PGlite's Node file system, with `fsync` reaching the disk. */
export class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, options: EmscriptenOptions) {
    const { emscriptenOpts } = await super.init(pg, options);
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), giveNodeFsAnFsync] } };
  }
}

function giveNodeFsAnFsync(mod: Module): void {
  const FS = mod.FS as unknown as { filesystems: { NODEFS: NodeFsOps }; isDir(mode: number): boolean };
  const nodefs = FS.filesystems.NODEFS;
  // Emscripten calls this for fsync() (and returns what it returns as the errno: 0 is success); a
  // failure is thrown as Emscripten's own errno error, which Postgres sees as the failed fsync().
  nodefs.stream_ops.fsync = (stream: Stream) =>
    nodefs.tryFSOperation(() => {
      if (stream.nfd !== undefined) {
        // fdatasync: the data and what is needed to read it back (the size), not the times.
        fs.fdatasyncSync(stream.nfd);
      } else if (FS.isDir(stream.node.mode)) {
        // New and renamed entries of a directory are durable once the directory is.
        const fd = fs.openSync(nodefs.realPath(stream.node), 'r');
        try {
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
      }
      return 0;
    });
}

/**
 * Flushes every file and directory under `dir` to stable storage. A new database is written by
 * PGlite from a template without a flush; doing this once after creating it makes its start
 * durable too.
 */
export function flushTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) flushTree(full);
    else if (entry.isFile()) flush(full);
  }
  flush(dir);
}

function flush(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * What the main thread and the embedded database's thread (worker.ts) say to each other. Requests
 * are answered one at a time, in the order they were sent; every answer names its request.
 */

/** `tx` 0 is outside any transaction; otherwise the id the main thread gave a transaction at `begin`. */
export type Request =
  | { op: 'open'; id: number; dataDir: string; durable: boolean; pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module }
  | {
      op: 'query';
      id: number;
      tx: number;
      sql: string;
      params: unknown[];
      rowMode: 'object' | 'array' | undefined;
      paramTypes: number[] | undefined;
      /** Type oids whose values come back as Postgres' text, for the caller's own parsers. */
      rawTypes: number[];
    }
  | { op: 'exec'; id: number; tx: number; sql: string; rawTypes: number[] }
  | { op: 'begin'; id: number; tx: number }
  | { op: 'commit'; id: number; tx: number }
  | { op: 'rollback'; id: number; tx: number }
  | { op: 'close'; id: number };

export type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: WireError };

/** What `open` answers. */
export interface Opened {
  /** The data directory had no database: this open created it. */
  created: boolean;
}

/** An error, as far as it can cross threads: its name, message and the fields callers read. */
export interface WireError {
  name: string;
  message: string;
  fields: Record<string, string | number>;
}

/**
 * Fields of a Postgres error (pg-protocol's DatabaseError) and of a Node system error that code
 * reads: the SQLSTATE or errno in `code` above all (see faults.ts).
 */
const ERROR_FIELDS = [
  'code',
  'severity',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
  'errno',
  'syscall',
  'path',
] as const;

export function toWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, string | number> = {};
  for (const key of ERROR_FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

/**
 * The error the worker saw, rebuilt on the main thread with the fields PGlite puts on it (its
 * SQLSTATE in `code`, `detail`, `constraint`, ...; `query` and `params` as PGlite attaches them).
 */
export function fromWire(wire: WireError, query?: string, params?: unknown[]): Error {
  const error = new Error(wire.message) as Error & Record<string, unknown>;
  error.name = wire.name;
  Object.assign(error, wire.fields);
  if (query !== undefined) {
    error.query = query;
    error.params = params;
  }
  return error;
}

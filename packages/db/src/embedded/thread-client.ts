/**
 * The main thread's side of the embedded database: a client with the part of PGlite's interface
 * that drizzle's pglite driver calls (`query`, `exec`, `transaction`), whose statements run on the
 * database's own thread (worker.ts). The server's event loop never runs Postgres, so a statement
 * that blocks (a full disk) cannot freeze it, and every wait is bounded:
 *
 * - One statement or transaction at a time, first come first served, as PGlite itself does: while
 *   a transaction is open, other callers wait their turn, so nothing of theirs runs inside it.
 *   Control work (`control`: authentication, rate limits, health, leases) takes the next turn;
 *   a request's statements take their place in line by when the request arrived (callers.ts).
 *   A turn ends only when the thread has answered everything sent during it, so statements never
 *   pile up behind one that does not return; they wait here, unsent, and give up unsent.
 * - A statement not answered within the deadline (waiting for its turn included) fails with a
 *   retryable `unavailable` fault; the server goes on answering.
 * - Once a statement is overdue, the thread is busy or blocked: callers fail at once, unsent,
 *   until it answers again.
 * - Statements that write are refused while `writeProblem()` says so (the disk is nearly full),
 *   before they are sent; reads go on.
 * - A thread that blocked on a full disk (PGlite cannot get out of that by itself), that stopped,
 *   or that has not answered for far longer than anything may take, is stopped and started again
 *   (Postgres recovers from its WAL, as after a crash) once there is space; meanwhile callers get a
 *   retryable fault saying why.
 *
 * Values: parameters and rows cross threads by structured clone (strings, numbers, bigints, Dates,
 * arrays, objects, Uint8Arrays keep their types). Parsers are functions and cannot cross: the thread
 * leaves the types they are for as Postgres' text, and they are applied here, by each field's type
 * oid, exactly as PGlite would have applied them.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import type { QueryOptions, Results, Transaction } from '@electric-sql/pglite';
import { placeInLine } from '../callers.ts';
import { DatabaseUnavailableError } from '../faults.ts';
import { fromWire, type Opened, type Reply, type Request } from './protocol.ts';
import { isSchemaWork, isWrite } from './statements.ts';
import { startThread } from './thread.ts';

type Parsers = NonNullable<QueryOptions['parsers']>;
/** When a call gives up (`performance.now()` time), and the budget that was, for its message. */
interface Deadline {
  at: number;
  ms: number;
}
const deadlineIn = (ms: number): Deadline => ({ at: performance.now() + ms, ms });
type Outgoing = Request extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

export interface EmbeddedClientOptions {
  /** Most milliseconds a statement may take, waiting for its turn included. */
  deadlineMs: number;
  /** Most milliseconds opening the database and schema work (migrations, index builds) may take. */
  slowWorkDeadlineMs: number;
  /** Flush to stable storage as Postgres asks (see durable-fs.ts); ignored in memory. */
  durable: boolean;
  /** Sees every fault (a deadline passed, the thread stopped, a write refused): outages are logged once. */
  report(error: unknown): void;
  /** Why writes are refused now (the disk is nearly full), or undefined; called before each write, so cheap. */
  writeProblem(): Promise<string | undefined>;
  /** Whether the disk is too full for PGlite to go on at all (it blocks, for good, when it runs out mid-write). */
  diskExhausted(): Promise<boolean>;
  /**
   * A thread stuck this long past a deadline is stopped and started again (a database on disk
   * only: one in memory would come back empty, so it is left as it is).
   */
  watchdogMs: number;
}

/** How long `close()` waits for the statement in progress and a clean shutdown before it stops the thread. */
const CLOSE_WAIT_MS = 5_000;
/** While a restart waits for disk space, free space is looked at this often. */
const DISK_RECHECK_MS = 1_000;

/**
 * The database thread's young generation (V8's new space is two thirds of it): the thread's
 * JavaScript is messages and rows, short-lived and small, so a few MiB serve it, where the
 * server's own (48 MiB, from its 16 MiB semi-spaces) would add to the process's peak memory under
 * load for nothing (docs/performance/2026-12-02-constants.md).
 */
const THREAD_YOUNG_GENERATION_MB = 6;

/** The embedded database, run on a thread of its own. */
export class EmbeddedClient {
  readonly #dataDir: string;
  readonly #options: EmbeddedClientOptions;
  readonly #turns = new Turnstile();
  readonly #pending = new Map<number, (reply: Reply | DatabaseUnavailableError) => void>();
  #worker: Worker | undefined;
  #threadsStarted = 0;
  /** The current thread has opened the database. */
  #ready = false;
  #nextId = 1;
  #nextTx = 1;
  /** Settles once the thread has answered the last request sent (it answers in order). */
  #lastAnswer: Promise<void> = Promise.resolve();
  /** When the request the thread is stuck on was sent, once it is past its deadline. */
  #overdueSince: number | undefined;
  /** When the thread last answered a request (`performance.now()` time). */
  #lastAnsweredAt = performance.now();
  #watchdog: NodeJS.Timeout | undefined;
  /** Why calls fail at once while the thread is started again. */
  #down: DatabaseUnavailableError | undefined;
  #restarting: Promise<void> | undefined;
  #closed: DatabaseUnavailableError | undefined;
  #closing: Promise<void> | undefined;
  /** Aborted on close: a restart waiting for disk space or backing off stops waiting. */
  readonly #closeSignal = new AbortController();

  private constructor(dataDir: string, options: EmbeddedClientOptions) {
    this.#dataDir = dataDir;
    this.#options = options;
  }

  /**
   * What the database is doing when a caller cannot get a turn at once: working through what it was
   * sent, every statement within its deadline and the last answer recent (busy, and there), or
   * undefined when it is idle, overdue on a statement, being started again or closed.
   */
  busy(): { inFlight: number; waiting: number; lastAnswerMsAgo: number } | undefined {
    if (this.#closed || this.#down || this.#overdueSince !== undefined || !this.#turns.held) return undefined;
    const lastAnswerMsAgo = Math.round(performance.now() - this.#lastAnsweredAt);
    if (lastAnswerMsAgo > this.#options.deadlineMs) return undefined;
    return { inFlight: this.#pending.size, waiting: this.#turns.waiting, lastAnswerMsAgo };
  }

  /** Threads started so far: one per open, one more after creating the database, one per restart. */
  get threadsStarted(): number {
    return this.#threadsStarted;
  }

  /** Starts the thread and opens the database in `dataDir` (`memory://` for one in memory). */
  static async open(dataDir: string, options: EmbeddedClientOptions): Promise<EmbeddedClient> {
    const client = new EmbeddedClient(dataDir, options);
    await client.#start();
    return client;
  }

  /** A thread of its own, with the database open in it. */
  async #start(): Promise<void> {
    const [pgliteWasmModule, initdbWasmModule] = await wasmModules();
    const closedMeanwhile = () => {
      if (this.#closed) throw new DatabaseUnavailableError('unavailable', 'the embedded database was closed while it was opened');
    };
    closedMeanwhile();
    const worker = startThread(new URL('./worker.ts', import.meta.url), THREAD_YOUNG_GENERATION_MB);
    this.#threadsStarted++;
    this.#worker = worker;
    worker.unref();
    worker.on('message', (reply: Reply) => this.#answer(reply.id, reply));
    worker.on('error', (error: Error) => worker === this.#worker && this.#lost(`its thread failed: ${error.message}`));
    worker.on('exit', (code) => worker === this.#worker && this.#lost(`its thread exited with code ${code}`));
    try {
      const durable = this.#options.durable;
      const deadline = deadlineIn(this.#options.slowWorkDeadlineMs);
      const opened = (await this.#send({ op: 'open', dataDir: this.#dataDir, durable, pgliteWasmModule, initdbWasmModule }, deadline)) as Opened;
      closedMeanwhile();
      if (opened.created) {
        // Creating the database (initdb, its own WebAssembly instance) leaves about 250 MB that
        // only a garbage collection frees, and this thread allocates too little JavaScript for V8
        // to run one: a first start settled at 660 MiB instead of 490. A fresh thread opens it instead.
        await this.#send({ op: 'close' }, deadline);
        this.#worker = undefined;
        await worker.terminate();
        return this.#start();
      }
      this.#ready = true;
    } catch (error) {
      await worker.terminate();
      throw error;
    }
  }

  /** One statement (PGlite's `query`), in a turn of its own. */
  query<T>(sql: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    return this.#queryInTurn<T>(false, sql, params, options);
  }

  /** Statements without parameters (PGlite's `exec`), in a turn of their own. */
  exec(sql: string, options?: QueryOptions): Promise<Results[]> {
    return this.#execInTurn(false, sql, options);
  }

  /** PGlite's `transaction` (see #transactionInTurn). */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.#transactionInTurn(false, fn);
  }

  /**
   * The same database for control work (authentication, rate limits, health and readiness checks,
   * detection leases): each of its calls takes the next turn, ahead of the requests and background
   * work waiting for theirs, as on Postgres its own pool never waits behind them. Under 200 clients,
   * with every call in one line, `/readyz` took 0.4-0.9 s and failed its 900 ms budget now and
   * then, and a detection run lost its lease.
   */
  readonly control = {
    query: <T>(sql: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> => this.#queryInTurn<T>(true, sql, params, options),
    exec: (sql: string, options?: QueryOptions): Promise<Results[]> => this.#execInTurn(true, sql, options),
    transaction: <T>(fn: (tx: Transaction) => Promise<T>): Promise<T> => this.#transactionInTurn(true, fn),
  };

  async #queryInTurn<T>(control: boolean, sql: string, params: unknown[], options: QueryOptions | undefined): Promise<Results<T>> {
    const deadline = this.#deadlineFor(sql);
    if (isWrite(sql)) await this.#refuseWritesIfDiskLow();
    await this.#enter(deadline, control);
    try {
      return await this.#query<T>(0, sql, params, options, deadline);
    } finally {
      this.#leaveWhenAnswered();
    }
  }

  async #execInTurn(control: boolean, sql: string, options: QueryOptions | undefined): Promise<Results[]> {
    const deadline = this.#deadlineFor(sql);
    if (isWrite(sql)) await this.#refuseWritesIfDiskLow();
    await this.#enter(deadline, control);
    try {
      return await this.#exec(0, sql, options, deadline);
    } finally {
      this.#leaveWhenAnswered();
    }
  }

  /**
   * PGlite's `transaction`: `fn` gets a transaction whose statements run in it, alone; COMMIT when
   * `fn` resolves, ROLLBACK when it throws. BEGIN is sent without waiting for its answer (the thread
   * runs it before the first statement, and fails that statement if it failed).
   */
  async #transactionInTurn<T>(control: boolean, fn: (tx: Transaction) => Promise<T>): Promise<T> {
    await this.#enter(deadlineIn(this.#options.deadlineMs), control);
    const id = this.#nextTx++;
    let closed = false;
    let writesAllowed = false;
    const began = this.#send({ op: 'begin', tx: id }, deadlineIn(this.#options.deadlineMs));
    began.catch(() => {}); // seen by the statements that follow, and by the commit
    const ready = async (sql: string) => {
      if (closed) throw new Error('Transaction is closed');
      if (!writesAllowed && isWrite(sql)) {
        await this.#refuseWritesIfDiskLow();
        writesAllowed = true;
      }
      if (closed) throw new Error('Transaction is closed');
      return this.#deadlineFor(sql);
    };
    const unsupported = (what: string) => () => Promise.reject(new Error(`the embedded database's client does not support ${what}`));
    const tx: Transaction = {
      query: async <R>(sql: string, params?: unknown[], options?: QueryOptions) => this.#query<R>(id, sql, params ?? [], options, await ready(sql)),
      exec: async (sql: string, options?: QueryOptions) => this.#exec(id, sql, options, await ready(sql)),
      sql: unsupported('tx.sql (use tx.query)'),
      listen: unsupported('LISTEN'),
      rollback: async () => {
        if (closed) throw new Error('Transaction is closed');
        closed = true;
        await this.#send({ op: 'rollback', tx: id }, deadlineIn(this.#options.deadlineMs));
      },
      get closed() {
        return closed;
      },
    };
    try {
      const result = await fn(tx);
      if (!closed) {
        closed = true;
        await began;
        await this.#send({ op: 'commit', tx: id }, deadlineIn(this.#options.deadlineMs));
      }
      return result;
    } catch (error) {
      if (!closed) {
        closed = true;
        // Queued behind whatever the thread is doing; the turn ends when it has been answered.
        this.#send({ op: 'rollback', tx: id }, deadlineIn(this.#options.deadlineMs)).catch(() => {});
      }
      throw error;
    } finally {
      this.#leaveWhenAnswered();
    }
  }

  /**
   * Closes the database: waits (at most a few seconds) for the statement in progress and a clean
   * shutdown, then stops the thread whatever it is doing; at once when it is known to be stuck. A
   * thread stopped mid-write is a crash to Postgres: the next start recovers from the WAL.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const closed = new DatabaseUnavailableError('unavailable', 'the embedded database is closed');
      if (this.#ready && !this.#down && this.#overdueSince === undefined) {
        const deadline = deadlineIn(CLOSE_WAIT_MS);
        try {
          await this.#enter(deadline);
          this.#closed = closed;
          await this.#send({ op: 'close' }, deadline);
        } catch {
          // Blocked or gone: stopped below.
        }
      }
      this.#closed = closed;
      this.#ready = false;
      clearTimeout(this.#watchdog);
      this.#closeSignal.abort();
      this.#settleAll(closed);
      await this.#worker?.terminate();
      // A restart in progress stops (and stops the thread it may have started).
      await this.#restarting;
    })();
    return this.#closing;
  }

  async #query<T>(tx: number, sql: string, params: unknown[], options: QueryOptions | undefined, deadline: Deadline): Promise<Results<T>> {
    const parsers = checkedParsers(options);
    const result = (await this.#send(
      { op: 'query', tx, sql, params, rowMode: options?.rowMode, paramTypes: options?.paramTypes, rawTypes: typesOf(parsers) },
      deadline,
      params,
    )) as Results<T>;
    return parsers ? applyParsers(result, parsers, options?.rowMode) : result;
  }

  async #exec(tx: number, sql: string, options: QueryOptions | undefined, deadline: Deadline): Promise<Results[]> {
    const parsers = checkedParsers(options);
    const results = (await this.#send({ op: 'exec', tx, sql, rawTypes: typesOf(parsers) }, deadline)) as Results[];
    return parsers ? results.map((result) => applyParsers(result, parsers, options?.rowMode)) : results;
  }

  #deadlineFor(sql: string): Deadline {
    return deadlineIn(isSchemaWork(sql) ? Math.max(this.#options.slowWorkDeadlineMs, this.#options.deadlineMs) : this.#options.deadlineMs);
  }

  async #refuseWritesIfDiskLow(): Promise<void> {
    const problem = await this.#options.writeProblem();
    if (!problem) return;
    const fault = new DatabaseUnavailableError('disk_full', problem);
    this.#options.report(fault);
    throw fault;
  }

  /** Waits for a turn: control work first, everything else by its place in line (callers.ts). */
  async #enter(deadline: Deadline, control = false): Promise<void> {
    const unavailable = this.#unavailable();
    if (unavailable) throw unavailable;
    await this.#turns.enter(deadline.at, () => this.#late(deadline), control ? CONTROL : placeInLine());
  }

  /** Why a call fails at once, unsent: closed, being started again, or stuck on a statement. */
  #unavailable(): DatabaseUnavailableError | undefined {
    if (this.#closed) return this.#closed;
    const fault =
      this.#down ??
      (this.#overdueSince === undefined
        ? undefined
        : new DatabaseUnavailableError(
            'unavailable',
            `the embedded database has not answered for ${Math.round(performance.now() - this.#overdueSince)} ms; it is busy or blocked, for instance by a full disk`,
          ));
    if (fault) this.#options.report(fault);
    return fault;
  }

  /** Ends the turn once the thread has answered everything sent during it. */
  #leaveWhenAnswered(): void {
    void this.#lastAnswer.then(() => this.#turns.leave());
  }

  #late(deadline: Deadline): DatabaseUnavailableError {
    const fault = new DatabaseUnavailableError(
      'unavailable',
      `the embedded database did not answer within ${deadline.ms} ms; it is busy or blocked, for instance by a full disk`,
    );
    this.#options.report(fault);
    return fault;
  }

  /** Sends a request; resolves with its result, or rejects with its error or at the deadline. */
  #send(request: Outgoing, deadline: Deadline, params?: unknown[]): Promise<unknown> {
    const worker = this.#worker;
    // What starts work fails at once while the thread cannot take it; what ends a transaction is
    // always sent (a transaction left open would shut everyone else out).
    const starts = request.op === 'query' || request.op === 'exec' || request.op === 'begin';
    const unavailable = starts ? this.#unavailable() : request.op === 'open' ? undefined : this.#closed;
    if (unavailable || !worker) return Promise.reject(unavailable ?? new Error('the embedded database is not open'));
    const id = this.#nextId++;
    const sentAt = performance.now();
    const answered = Promise.withResolvers<void>();
    this.#lastAnswer = answered.promise;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(this.#late(deadline));
        if (this.#pending.has(id)) this.#overdue(sentAt);
      }, Math.max(0, deadline.at - sentAt));
      this.#pending.set(id, (reply) => {
        clearTimeout(timer);
        answered.resolve();
        if (reply instanceof DatabaseUnavailableError) reject(reply);
        else if (reply.ok) resolve(reply.result);
        else reject(fromWire(reply.error, 'sql' in request ? request.sql : undefined, params));
      });
      if (this.#pending.size === 1) worker.ref();
      try {
        worker.postMessage({ ...request, id });
      } catch (error) {
        // Not sendable (a parameter that cannot be cloned): nothing was sent, nothing will answer.
        this.#pending.delete(id);
        if (this.#pending.size === 0) worker.unref();
        clearTimeout(timer);
        answered.resolve();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  #answer(id: number, reply: Reply | DatabaseUnavailableError): void {
    const settle = this.#pending.get(id);
    if (!settle) return;
    this.#pending.delete(id);
    if (!(reply instanceof DatabaseUnavailableError)) this.#lastAnsweredAt = performance.now();
    // Only a thread with requests in flight keeps the process alive, as PGlite on the main thread did.
    if (this.#pending.size === 0) this.#worker?.unref();
    if (!(reply instanceof DatabaseUnavailableError) && this.#overdueSince !== undefined) {
      // It answered: it was busy, not stuck.
      this.#overdueSince = undefined;
      clearTimeout(this.#watchdog);
    }
    settle(reply);
  }

  #settleAll(fault: DatabaseUnavailableError): void {
    for (const id of [...this.#pending.keys()]) this.#answer(id, fault);
  }

  /**
   * A request sent at `sentAt` is past its deadline and unanswered: the thread is busy or stuck.
   * Callers waiting for a turn fail now rather than at their deadlines. Stuck on a disk with no
   * room left, it never gets out (PGlite loops on the write it cannot finish): start it again.
   */
  #overdue(sentAt: number): void {
    if (this.#overdueSince !== undefined || !this.#ready) return;
    this.#overdueSince = sentAt;
    this.#turns.turnAwayWaiting(() => this.#unavailable() ?? this.#late(deadlineIn(0)));
    void this.#options.diskExhausted().then((exhausted) => {
      if (exhausted && this.#overdueSince === sentAt) this.#restart('it blocked writing to a full disk');
    });
    // Far longer than anything may take (schema work included): stuck for good, whatever the cause.
    this.#watchdog = setTimeout(() => {
      if (this.#overdueSince === sentAt) this.#restart(`it did not answer for ${Math.round(performance.now() - sentAt)} ms`);
    }, this.#options.watchdogMs);
    this.#watchdog.unref();
  }

  /** The thread stopped by itself. */
  #lost(reason: string): void {
    const fault = new DatabaseUnavailableError('unavailable', `the embedded database stopped: ${reason}`);
    this.#settleAll(fault);
    if (!this.#ready || this.#closed) return;
    this.#options.report(fault);
    this.#restart(reason);
  }

  /**
   * Stops the thread and starts a new one, once the disk has room: Postgres recovers from its WAL
   * as after a crash. A transaction that was open fails (its statements and COMMIT answer that it
   * is closed); nothing of it is committed.
   */
  #restart(reason: string): void {
    if (this.#restarting || this.#closed) return;
    if (this.#dataDir.startsWith('memory://')) {
      // Started again, it would be empty: it stays down, and says why.
      this.#closed = new DatabaseUnavailableError('unavailable', `the embedded database (in memory) stopped: ${reason}`);
      this.#settleAll(this.#closed);
      this.#turns.turnAwayWaiting(() => this.#closed!);
      void this.#worker?.terminate();
      return;
    }
    this.#ready = false;
    this.#down = new DatabaseUnavailableError('unavailable', `the embedded database is restarting: ${reason}`);
    this.#options.report(this.#down);
    this.#restarting = (async () => {
      clearTimeout(this.#watchdog);
      this.#settleAll(this.#down!);
      this.#turns.turnAwayWaiting(() => this.#unavailable()!);
      await this.#worker?.terminate();
      this.#overdueSince = undefined;
      for (let backoffMs = 1_000; !this.#closed; ) {
        const problem = await this.#options.writeProblem();
        if (this.#closed) return;
        if (problem) {
          this.#down = new DatabaseUnavailableError('disk_full', `${problem}; the embedded database starts again once there is room`);
        } else {
          try {
            await this.#start();
            this.#down = undefined;
            return;
          } catch (error) {
            if (this.#closed) return;
            this.#options.report(error);
            backoffMs = Math.min(backoffMs * 2, 30_000);
          }
        }
        await sleep(problem ? DISK_RECHECK_MS : backoffMs, undefined, { ref: false, signal: this.#closeSignal.signal }).catch(() => {});
      }
    })().finally(() => (this.#restarting = undefined));
  }
}

interface Waiter {
  /** Its place in line (callers.ts); lower goes first. */
  place: number;
  admit(): void;
  refuse(error: Error): void;
  gone: boolean;
}

/** The place in line of control work: ahead of every other. */
const CONTROL = -Infinity;

/**
 * One holder at a time; waiters are admitted by their place in line (lowest first, first come
 * first served among equal places: control work's, or a caller's statements). A waiter gives up
 * at its deadline.
 */
class Turnstile {
  #held = false;
  /** Waiters, ordered by place. */
  readonly #waiting: Waiter[] = [];

  enter(deadlineAt: number, late: () => Error, place: number): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        place,
        gone: false,
        admit: () => {
          clearTimeout(timer);
          resolve();
        },
        refuse: (error: Error) => {
          waiter.gone = true;
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        waiter.gone = true;
        reject(late());
      }, Math.max(0, deadlineAt - performance.now()));
      // After every waiter whose place is not later (most arrive last: searched from the end).
      let at = this.#waiting.length;
      while (at > 0 && this.#waiting[at - 1]!.place > place) at--;
      this.#waiting.splice(at, 0, waiter);
    });
  }

  /** Whether someone has the turn now. */
  get held(): boolean {
    return this.#held;
  }

  /** Callers waiting for a turn. */
  get waiting(): number {
    return this.#waiting.filter((w) => !w.gone).length;
  }

  leave(): void {
    for (let next = this.#waiting.shift(); next; next = this.#waiting.shift()) {
      if (!next.gone) return next.admit();
    }
    this.#held = false;
  }

  /** Every waiter gives up now, with `why()`. */
  turnAwayWaiting(why: () => Error): void {
    for (const waiter of this.#waiting.splice(0)) {
      if (!waiter.gone) waiter.refuse(why());
    }
  }
}

function checkedParsers(options: QueryOptions | undefined): Parsers | undefined {
  if (options) {
    for (const unsupported of ['serializers', 'blob', 'onNotice'] as const) {
      if (options[unsupported] !== undefined) throw new TypeError(`the embedded database's client does not take ${unsupported} (they cannot cross threads)`);
    }
  }
  const parsers = options?.parsers;
  return parsers && Object.keys(parsers).length > 0 ? parsers : undefined;
}

const typesOf = (parsers: Parsers | undefined): number[] => (parsers ? Object.keys(parsers).map(Number) : []);

/** Applies the caller's parsers to the fields of their types, as PGlite does (last field wins a name). */
function applyParsers<T>(result: Results<T>, parsers: Parsers, rowMode: QueryOptions['rowMode']): Results<T> {
  if (result.rows.length === 0) return result;
  // PGlite calls a parser with the value and its type oid.
  const columns = new Map<number | string, { parse: (value: string, type: number) => unknown; type: number }>();
  result.fields.forEach((field, index) => {
    const parse = parsers[field.dataTypeID];
    const key = rowMode === 'array' ? index : field.name;
    if (parse) columns.set(key, { parse, type: field.dataTypeID });
    else columns.delete(key);
  });
  if (columns.size === 0) return result;
  for (const row of result.rows as Record<number | string, unknown>[]) {
    for (const [key, { parse, type }] of columns) {
      const value = row[key];
      if (typeof value === 'string') row[key] = parse(value, type);
    }
  }
  return result;
}

// The WebAssembly global is not in the ES library this project compiles against (no DOM); it is in Node.
const wasm = (globalThis as unknown as { WebAssembly: { compile(this: void, bytes: Uint8Array): Promise<WebAssembly.Module> } }).WebAssembly;
let modules: Promise<[WebAssembly.Module, WebAssembly.Module]> | undefined;

/** PGlite's WebAssembly (the server's and initdb's), compiled once per process and shared by every database thread. */
function wasmModules(): Promise<[WebAssembly.Module, WebAssembly.Module]> {
  modules ??= (async () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const load = async (file: string) => wasm.compile(await fs.promises.readFile(path.join(dist, file)));
    return Promise.all([load('pglite.wasm'), load('initdb.wasm')]);
  })();
  return modules;
}


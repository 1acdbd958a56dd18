/**
 * Group commit for new facts. A fact that arrives while its workspace's previous batch is being
 * written waits, and goes with the others that arrived meanwhile in the next batch: one statement
 * and one transaction (one WAL flush) for all of them. At most `maxInFlight` batches are written
 * at a time, so concurrent commits do not take turns on the same index pages: ten connections each
 * inserting one fact cost Postgres about twice the CPU per fact of one connection inserting them
 * (the HNSW index's graph above all).
 *
 * Nothing is acknowledged early: each fact's promise settles after its batch's COMMIT. If a batch
 * fails, its facts are inserted one by one, as they would have been without grouping; the unique
 * key on current content keeps a fact whose batch did commit (a connection lost after COMMIT was
 * sent) from being stored twice, and such a fact is then reported as already current.
 */
import type { Database } from './client.ts';
import { databaseFault } from './faults.ts';
import { insertFacts, type InsertedFact, type InsertOptions, type NewFact } from './facts.ts';
import { forWorkspace } from './tenant.ts';

interface Pending {
  fact: NewFact;
  options: InsertOptions;
  resolve(inserted: InsertedFact): void;
  reject(error: unknown): void;
}

export interface FactWriterOptions {
  /** Most facts in one statement (their JSON travels as one parameter). */
  maxBatch?: number;
  /** Most batches being written at a time (each a transaction on its own connection). */
  maxInFlight?: number;
}

/** Most facts per batch: a few hundred kilobytes of JSON at most, and a statement of a few tens of ms. */
export const FACT_BATCH_LIMIT = 32;
/**
 * Batches written at once. Two: one connection writes while another's batch travels or commits,
 * and a busy workspace does not hold up the others; more would bring back the contention that
 * grouping avoids.
 */
export const FACT_WRITERS = 2;

/** Group commit of new facts for one database (see the module comment). */
export class FactWriter {
  readonly #db: Database;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  /** Facts waiting, by workspace, in the order their workspaces first had one waiting. */
  readonly #waiting = new Map<string, Pending[]>();
  /** Workspaces with a batch being written (one at a time each, so a workspace's facts keep their order). */
  readonly #writing = new Set<string>();
  #inFlight = 0;
  #batches = 0;

  constructor(db: Database, options: FactWriterOptions = {}) {
    this.#db = db;
    this.#maxBatch = Math.max(1, options.maxBatch ?? FACT_BATCH_LIMIT);
    this.#maxInFlight = Math.max(1, options.maxInFlight ?? FACT_WRITERS);
  }

  /** Inserts a fact of a workspace (see insertFacts), with whatever else is waiting for that workspace. */
  insert(workspaceId: string, fact: NewFact, options: InsertOptions): Promise<InsertedFact> {
    if (options.closeLineageId) return insertFacts(forWorkspace(this.#db, workspaceId), [{ fact, options }], { last: true }).then((r) => r[0]!);
    return new Promise<InsertedFact>((resolve, reject) => {
      const queue = this.#waiting.get(workspaceId);
      const pending = { fact, options, resolve, reject };
      if (queue) queue.push(pending);
      else this.#waiting.set(workspaceId, [pending]);
      this.#pump();
    });
  }

  /** Batches written so far, each one transaction (for tests and diagnostics). */
  get batches(): number {
    return this.#batches;
  }

  /** Facts waiting to be written (for tests and diagnostics). */
  get waiting(): number {
    let n = 0;
    for (const queue of this.#waiting.values()) n += queue.length;
    return n;
  }

  #pump(): void {
    while (this.#inFlight < this.#maxInFlight) {
      const next = [...this.#waiting.keys()].find((w) => !this.#writing.has(w));
      if (next === undefined) return;
      const queue = this.#waiting.get(next)!;
      const batch = queue.splice(0, this.#maxBatch);
      if (queue.length === 0) this.#waiting.delete(next);
      this.#inFlight++;
      this.#writing.add(next);
      void this.#write(next, batch).finally(() => {
        this.#inFlight--;
        this.#writing.delete(next);
        this.#pump();
      });
    }
  }

  async #write(workspaceId: string, batch: Pending[]): Promise<void> {
    this.#batches++;
    try {
      const results = await insertFacts(forWorkspace(this.#db, workspaceId), batch, { last: true });
      batch.forEach((p, k) => p.resolve(results[k]!));
      return;
    } catch (error) {
      // Alone, or with the database out of reach, there is nothing a retry one by one would change.
      if (batch.length === 1 || databaseFault(error)?.kind === 'unavailable') {
        for (const p of batch) p.reject(error);
        return;
      }
    }
    // A fact of the batch made it fail (or it met a deadlock or a timeout): each on its own.
    for (const p of batch) {
      this.#batches++;
      try {
        const [result] = await insertFacts(forWorkspace(this.#db, workspaceId), [p], { last: true });
        p.resolve(result!);
      } catch (error) {
        p.reject(error);
      }
    }
  }
}

const writers = new WeakMap<Database, FactWriter>();

/** The group-commit writer of a database handle (one per handle, made on first use). */
export function factWriterOf(db: Database): FactWriter {
  let writer = writers.get(db);
  if (!writer) {
    writer = new FactWriter(db);
    writers.set(db, writer);
  }
  return writer;
}

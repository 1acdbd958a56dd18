/**
 * Group commit for new facts. A fact that arrives while its workspace's previous batch is being
 * written waits, and goes with the others that arrived meanwhile in the next batch: one statement
 * and one transaction (one WAL flush) for all of them. At most FACT_WRITERS batches are written at
 * a time, so fewer commits take turns on the same index pages: ten connections each inserting one
 * fact cost Postgres about twice the CPU per fact of one connection inserting them (the HNSW
 * index's graph above all).
 *
 * Nothing is acknowledged early: each fact's promise settles after its batch's COMMIT. If a batch
 * fails, its facts are inserted one by one (see Batcher); the unique key on current content keeps a
 * fact whose batch did commit (a connection lost after COMMIT was sent) from being stored twice,
 * and such a fact is then reported as already current.
 */
import { Batcher } from './batcher.ts';
import { perDatabase, type Database } from './database.ts';
import { insertFacts, type InsertedFact, type InsertOptions, type NewFact } from './commit-statement.ts';
import { forWorkspace } from './tenant.ts';

/** Most facts per batch: a few hundred kilobytes of JSON at most, and a statement of a few tens of ms. */
export const FACT_BATCH_LIMIT = 32;
/**
 * Batches written at once (each of one workspace): enough that writers of other workspaces, and a
 * workspace's next batch, do not wait behind one statement, few enough to leave most of the pool
 * to reads and to keep the index contention down. 4 gave the most commits per second at 50
 * clients, in one workspace and across many (docs/performance/2026-12-02-constants.md).
 */
export const FACT_WRITERS = 4;
/**
 * Batches of one workspace written at once. Two: with one, a busy workspace's commits all wait for
 * one statement after another, and commit latency grows well past query latency
 * (docs/performance/2026-12-02-constants.md). Two batches of a workspace cannot deadlock: both
 * take the unique key's entries and the agents' rows in one order (scope and content hash; agent
 * id).
 */
export const FACT_WRITERS_PER_WORKSPACE = 2;

interface Pending {
  workspaceId: string;
  fact: NewFact;
  options: InsertOptions;
}

/** Group commit of new facts for one database (see the module comment). */
export class FactWriter {
  readonly #db: Database;
  readonly #batcher: Batcher<Pending, InsertedFact>;

  constructor(db: Database, options: { maxBatch?: number; maxInFlight?: number; perKey?: number } = {}) {
    this.#db = db;
    this.#batcher = new Batcher(
      (batch) => insertFacts(forWorkspace(db, batch[0]!.workspaceId), batch, { last: true }),
      { maxBatch: options.maxBatch ?? FACT_BATCH_LIMIT, maxInFlight: options.maxInFlight ?? FACT_WRITERS, perKey: options.perKey ?? FACT_WRITERS_PER_WORKSPACE },
    );
  }

  /** Inserts a fact of a workspace (see insertFacts), with whatever else is waiting for that workspace. */
  insert(workspaceId: string, fact: NewFact, options: InsertOptions): Promise<InsertedFact> {
    // An update closes another fact's window: it goes alone (insertFacts takes one such fact).
    if (options.closeLineageId) return insertFacts(forWorkspace(this.#db, workspaceId), [{ fact, options }], { last: true }).then((r) => r[0]!);
    return this.#batcher.submit(workspaceId, { workspaceId, fact, options });
  }

  /** Statements run so far (for tests and diagnostics). */
  get batches(): number {
    return this.#batcher.batches;
  }

  /** Facts waiting to be written (for tests and diagnostics). */
  get waiting(): number {
    return this.#batcher.waiting;
  }
}

/** The group-commit writer of a database handle (one per handle, made on first use). */
export const factWriterOf = perDatabase((db) => new FactWriter(db));

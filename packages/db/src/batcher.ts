/**
 * Requests that arrive while an equal request is being served wait, and are served together by the
 * next one: one statement and one transaction for all of them, instead of one each. Group commit
 * (fact-writer.ts) and grouped retrieval (candidate-reader.ts) are this, for facts to insert and for
 * topics to retrieve.
 *
 * Items are grouped by a key (what makes them servable together: their workspace, their filters).
 * A key has at most `perKey` batches in flight (one by default, so its items keep their order); at
 * most `maxInFlight` batches run at all. An item is settled only by its batch: nothing is answered before the
 * database has done it. A batch that fails is served again item by item (unless it was one item,
 * or `retryAlone` says a retry cannot help), so one item that makes a statement fail costs no
 * other item its result.
 */
import { forCaller, placeInLine } from './callers.ts';
import { databaseFault } from './faults.ts';

interface Waiting<T, R> {
  item: T;
  /** Its place in line on the embedded database (callers.ts). */
  place: number;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface BatcherOptions {
  /** Most items served by one batch. */
  maxBatch: number;
  /** Most batches in flight at once. */
  maxInFlight: number;
  /** Most batches of one key in flight at once (default 1: a key's items keep their order). */
  perKey?: number;
}

export class Batcher<T, R> {
  readonly #serve: (items: T[]) => Promise<R[]>;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  /** Items waiting, by key, in the order their keys first had one waiting. */
  readonly #waiting = new Map<string, Waiting<T, R>[]>();
  /** Batches in flight, by key. */
  readonly #serving = new Map<string, number>();
  readonly #perKey: number;
  #inFlight = 0;
  #batches = 0;

  /** `serve` answers a batch of items of one key, one result per item, in their order. */
  constructor(serve: (items: T[]) => Promise<R[]>, options: BatcherOptions) {
    this.#serve = serve;
    this.#maxBatch = Math.max(1, options.maxBatch);
    this.#maxInFlight = Math.max(1, options.maxInFlight);
    this.#perKey = Math.max(1, options.perKey ?? 1);
  }

  /** Serves `item` with whatever else of `key` is waiting when its turn comes. */
  submit(key: string, item: T): Promise<R> {
    const place = placeInLine();
    return new Promise<R>((resolve, reject) => {
      const queue = this.#waiting.get(key);
      const waiting = { item, place, resolve, reject };
      if (queue) queue.push(waiting);
      else this.#waiting.set(key, [waiting]);
      this.#pump();
    });
  }

  /** Statements run so far: batches, and items served alone after their batch failed (for tests and diagnostics). */
  get batches(): number {
    return this.#batches;
  }

  /** Items waiting for their turn (for tests and diagnostics). */
  get waiting(): number {
    let n = 0;
    for (const queue of this.#waiting.values()) n += queue.length;
    return n;
  }

  #pump(): void {
    while (this.#inFlight < this.#maxInFlight) {
      let key: string | undefined;
      for (const candidate of this.#waiting.keys()) {
        if ((this.#serving.get(candidate) ?? 0) < this.#perKey) {
          key = candidate;
          break;
        }
      }
      if (key === undefined) return;
      const queue = this.#waiting.get(key)!;
      const batch = queue.splice(0, this.#maxBatch);
      if (queue.length === 0) this.#waiting.delete(key);
      this.#inFlight++;
      this.#serving.set(key, (this.#serving.get(key) ?? 0) + 1);
      const served = key;
      // A batch is work for all of its callers, not for whichever one started it: on the embedded
      // database it takes the place in line of the earliest of them (callers.ts).
      const place = Math.min(...batch.map((w) => w.place));
      void forCaller({ since: place, turns: 0 }, () => this.#run(batch)).finally(() => {
        this.#inFlight--;
        const left = this.#serving.get(served)! - 1;
        if (left === 0) this.#serving.delete(served);
        else this.#serving.set(served, left);
        this.#pump();
      });
    }
  }

  async #run(batch: Waiting<T, R>[]): Promise<void> {
    this.#batches++;
    try {
      const results = await this.#serve(batch.map((w) => w.item));
      // Its callers all go on now: bounding the request work of one turn of the event loop is
      // core's turns.ts's job, not the batcher's.
      for (const [k, w] of batch.entries()) w.resolve(results[k]!);
      return;
    } catch (error) {
      // Alone, or with the database out of reach, there is nothing a retry one by one would change.
      if (batch.length === 1 || databaseFault(error)?.kind === 'unavailable') {
        for (const w of batch) w.reject(error);
        return;
      }
    }
    for (const w of batch) {
      this.#batches++;
      try {
        const [result] = await this.#serve([w.item]);
        w.resolve(result!);
      } catch (error) {
        w.reject(error);
      }
    }
  }
}

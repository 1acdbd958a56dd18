/**
 * The batcher behind group commit and grouped retrieval (packages/db/src/batcher.ts), without a
 * database: what goes together, what goes alone, and how its callers are let go on.
 */
import { asOneCaller, Batcher, PLACED_TURNS } from '@engram/db';
import { describe, expect, it } from 'vitest';
import { currentCaller, forCaller, placeInLine } from '../../packages/db/src/callers.ts';

/** A batcher that records each batch it serves and answers every item with its double. */
function doubling(options: { maxBatch?: number; maxInFlight?: number; perKey?: number } = {}, fail?: (items: number[]) => Error | undefined) {
  const served: number[][] = [];
  const batcher = new Batcher<number, number>(
    async (items) => {
      served.push(items);
      await new Promise((resolve) => setImmediate(resolve));
      const error = fail?.(items);
      if (error) throw error;
      return items.map((n) => n * 2);
    },
    { maxBatch: options.maxBatch ?? 8, maxInFlight: options.maxInFlight ?? 4, perKey: options.perKey },
  );
  return { batcher, served };
}

describe('batcher', () => {
  it('serves what arrives while a key is being served together, in order, and other keys beside it', async () => {
    const { batcher, served } = doubling({ maxBatch: 3 });
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => batcher.submit(n < 6 ? 'a' : 'b', n)));
    expect(results).toEqual([2, 4, 6, 8, 10, 12]);
    // a: the first alone, then at most three at a time; b: alone, beside a's first.
    expect(served).toEqual([[1], [6], [2, 3, 4], [5]]);
    expect(batcher.batches).toBe(4);
    expect(batcher.waiting).toBe(0);
  });

  it('keeps at most perKey batches of a key in flight', async () => {
    const { batcher, served } = doubling({ perKey: 2 });
    await Promise.all([1, 2, 3, 4].map((n) => batcher.submit('a', n)));
    expect(served).toEqual([[1], [2], [3, 4]]);
  });

  it('serves a failed batch again item by item, so only the item at fault fails', async () => {
    const { batcher, served } = doubling({}, (items) => (items.includes(3) ? new Error('item 3 is at fault') : undefined));
    const settled = await Promise.allSettled([1, 2, 3, 4].map((n) => batcher.submit('a', n)));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([2, 4, 'item 3 is at fault', 8]);
    expect(served).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('does not retry item by item when the database is out of reach', async () => {
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { batcher, served } = doubling({}, (items) => (items.length > 1 ? unreachable : undefined));
    const settled = await Promise.allSettled([1, 2, 3].map((n) => batcher.submit('a', n)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(served).toEqual([[1], [2, 3]]);
  });
});

describe('callers (the order of turns on the embedded database)', () => {
  it('places the first PLACED_TURNS turns of a caller by when it arrived, later ones and work of no caller by when they ask', async () => {
    const before = performance.now();
    const places = await asOneCaller(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return Array.from({ length: PLACED_TURNS + 1 }, () => placeInLine());
    });
    const arrived = places[0]!;
    expect(arrived).toBeGreaterThanOrEqual(before);
    expect(places.slice(0, PLACED_TURNS)).toEqual(Array(PLACED_TURNS).fill(arrived));
    expect(places[PLACED_TURNS]).toBeGreaterThan(arrived);
    expect(currentCaller()).toBeUndefined();
    expect(placeInLine()).toBeGreaterThanOrEqual(places[PLACED_TURNS]!);
  });

  it('serves a batch for the earliest of its callers, and one without callers as work of none', async () => {
    const servedFor: (number | undefined)[] = [];
    const batcher = new Batcher<string, string>(
      async (items) => {
        servedFor.push(currentCaller()?.since);
        await new Promise((resolve) => setImmediate(resolve));
        return items;
      },
      { maxBatch: 8, maxInFlight: 1 },
    );
    // While one batch is served, a later caller and then an earlier one submit to the same key.
    const first = batcher.submit('k', 'in flight');
    const earlier = asOneCaller(() => currentCaller()!);
    const later = asOneCaller(() => currentCaller()!);
    const results = await Promise.all([
      first,
      forCaller(later, () => batcher.submit('k', 'later')),
      forCaller(earlier, () => batcher.submit('k', 'earlier')),
    ]);
    expect(results).toEqual(['in flight', 'later', 'earlier']);
    expect(servedFor).toHaveLength(2);
    expect(servedFor[1]).toBe(earlier.since);
    // The first batch had no caller: it is placed by when it was asked for, not by any caller.
    expect(servedFor[0]).toBeLessThanOrEqual(earlier.since);
  });
});

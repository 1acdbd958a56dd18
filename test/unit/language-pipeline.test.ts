/**
 * The language pipeline learns each unknown word it reads, and is rebuilt (a synchronous piece of
 * 60-200 ms) once it has learned too many: by new words, not by the tokens read, so a stream of
 * facts in known words never waits for a rebuild.
 */
import { languagePipelineStats, readText } from '@engram/core';
import { describe, expect, it } from 'vitest';

/** A made-up word of letters only, different for each n (one token, unknown to the model). */
function madeUp(n: number): string {
  let letters = '';
  for (let rest = n; rest > 0 || letters === ''; rest = Math.floor(rest / 26)) letters = String.fromCharCode(97 + (rest % 26)) + letters;
  return `zq${letters}x`;
}

describe('the language pipeline', () => {
  it('learns a new word once, and known words not at all', () => {
    readText('The billing service retries failed charges 4 times in region eu-west-1.');
    const before = languagePipelineStats();
    const text = `The ${madeUp(1)} worker pool has 37 threads in ${madeUp(2)}, and the cache TTL is 30 seconds.`;
    for (let i = 0; i < 2_000; i++) readText(text);
    const after = languagePipelineStats();
    expect(after.built).toBe(before.built);
    // Two made-up words (and at most their lowercase forms), however many times the text is read.
    expect(after.learnedWords - before.learnedWords).toBeGreaterThanOrEqual(2);
    expect(after.learnedWords - before.learnedWords).toBeLessThanOrEqual(4);
  });

  it('is rebuilt once it has learned 100,000 words, and reads the same afterwards', () => {
    const sample = 'Checkout calls the payments API with a 5 second timeout.';
    const first = readText(sample);
    const before = languagePipelineStats();
    let n = 1_000;
    while (languagePipelineStats().built === before.built) {
      readText(Array.from({ length: 50 }, () => madeUp(n++)).join(' ') + '.');
      // Bounded: one rebuild is due within the limit's worth of new words (and one doc more).
      expect(n - 1_000).toBeLessThanOrEqual(100_050 + 50);
    }
    expect(n - 1_000).toBeGreaterThanOrEqual(100_000 - before.learnedWords - 50);
    expect(languagePipelineStats().learnedWords).toBeLessThan(100);
    expect(readText(sample)).toEqual(first);
  });
});

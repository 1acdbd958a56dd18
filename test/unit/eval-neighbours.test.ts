import { LocalEmbedder, MIN_NEIGHBOUR_SIMILARITY } from '@engram/core';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatNeighbourSimilarity, neighbourSimilarity } from '../eval/evidence.ts';
import { loadStories } from '../eval/stories.ts';

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

describe('eval --neighbours', () => {
  const file = loadStories(path.join(import.meta.dirname, '../data/detection/beam-dev-stories.json'));

  it('measures every pair of facts an expected confusion names, against facts of other stories', async () => {
    const measured = await neighbourSimilarity(new LocalEmbedder(), [file], 500);
    const expectedPairs = file.stories
      .flatMap((story) => story.expect.flag ?? [])
      .reduce((n, group) => n + (group.length * (group.length - 1)) / 2, 0);
    expect(measured.pairs).toHaveLength(expectedPairs);
    expect(measured.unrelated.length).toBeGreaterThan(400);
    expect(measured.unrelated.length).toBeLessThanOrEqual(500);
    // Facts of one confusion are about one thing; facts of two stories mostly are not.
    expect(median(measured.pairs)).toBeGreaterThan(median(measured.unrelated) + 0.1);
  });

  it('prints the threshold in use beside its neighbours', () => {
    const text = formatNeighbourSimilarity('m', { pairs: [0.1, 0.3, 0.5], unrelated: [0, 0.05, 0.4] }, [0.1, MIN_NEIGHBOUR_SIMILARITY]);
    expect(text).toContain(`| ${MIN_NEIGHBOUR_SIMILARITY.toFixed(2)} (used) | 67% | 33% |`);
    expect(text).toContain('| 0.10 | 100% | 33% |');
  });
});

/**
 * engram_query's ranking: how well a fact matches the topic (its ranks in full text and in the
 * embedder's list, fused) decides before the seed's other signals (recency, trust, fact type,
 * provenance, corroboration), and the embedder's list counts by the embedder's own weight.
 */
import { LocalEmbedder, relevanceOf, scoreCandidate } from '@engram/core';
import type { Candidate } from '@engram/db';
import { describe, expect, it } from 'vitest';
import { candidateOf } from '../support/candidate.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

const candidate = (overrides: Partial<Candidate>) => candidateOf({ committed_at: daysAgo(0), ...overrides });

describe('query scoring', () => {
  it('scores relevance 0–1: first in both lists is 1, absent from both is 0, lower ranks less', () => {
    expect(relevanceOf({ text_rank: 1, vector_rank: 1 })).toBeCloseTo(1);
    expect(relevanceOf({ text_rank: null, vector_rank: null })).toBe(0);
    const byRank = [1, 2, 5, 10, 30].map((r) => relevanceOf({ text_rank: r, vector_rank: null }));
    expect([...byRank].sort((a, b) => b - a)).toEqual(byRank);
    // Rank 1 weighs more than twice rank 10: the match, not the other signals, orders the matches.
    expect(byRank[0]! / byRank[3]!).toBeGreaterThan(2);
  });

  it('ranks a much better match above a fresher one with nothing else for it', () => {
    const best = candidate({ text_rank: 1, vector_rank: 3, committed_at: daysAgo(30) });
    const fresher = candidate({ text_rank: 10, vector_rank: 12, committed_at: daysAgo(0) });
    expect(scoreCandidate(best, NOW)).toBeGreaterThan(scoreCandidate(fresher, NOW));
  });

  it("weighs the embedder's list by the embedder's fusion weight", () => {
    const weight = new LocalEmbedder().fusionWeight;
    expect(weight).toBeLessThan(1);
    const textOnly = candidate({ text_rank: 1, vector_rank: null });
    const vectorOnly = candidate({ text_rank: null, vector_rank: 1 });
    // At equal weight the two lists count alike; at the local embedder's, full text counts more.
    expect(relevanceOf(textOnly, 1)).toBeCloseTo(relevanceOf(vectorOnly, 1));
    expect(relevanceOf(textOnly, weight)).toBeGreaterThan(relevanceOf(vectorOnly, weight) * 2);
  });
});

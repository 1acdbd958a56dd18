/**
 * The commit decision as a table: which earlier fact a new one may corroborate (the rule of
 * CORROBORATION, each condition and its boundary), and what a commit does with what is in its way.
 * test/integration/corroboration-rule.test.ts holds the commit statement's guard to the same rule.
 */
import { corroborationTarget, decideCommit, decidingFact, readFact, type InTheWay } from '@engram/core';
import { CORROBORATION, CORROBORATION_GUARD_DISTANCE, type CurrentFact, type SimilarFact } from '@engram/db';
import { describe, expect, it } from 'vitest';

const NOW = new Date('2026-12-01T12:00:00Z');
const RATE = readFact('The auth service rate limit is 1000 req/s per IP');
const REWORDED = readFact('Auth service rate limit: 1000 req/s per IP');
const OTHER_VALUE = readFact('The auth service rate limit is 2000 req/s per IP');
const draft = { agentId: 'agent-b', entities: REWORDED, committedAt: NOW };

/** Another agent's durable, current fact stating the draft's values, exactly at the threshold, changed by `change`. */
function neighbour(change: Partial<SimilarFact> = {}): SimilarFact {
  return {
    id: 'earlier',
    lineage_id: 'earlier',
    agent_id: 'agent-a',
    durability: 'durable',
    entities: RATE,
    committed_at: new Date('2026-12-01T11:00:00Z'),
    provenance: null,
    expires_at: null,
    similarity: CORROBORATION.minSimilarity,
    ...change,
  };
}

describe('which earlier fact a new one may corroborate', () => {
  it.each<[string, Partial<SimilarFact>, boolean]>([
    ['another agent\'s durable fact of the same values, exactly as similar as the rule needs', {}, true],
    ['one more similar', { similarity: 0.99 }, true],
    ['one just below the threshold', { similarity: CORROBORATION.minSimilarity - 1e-9 }, false],
    ['one of the same agent', { agent_id: 'agent-b' }, false],
    ['an ephemeral fact', { durability: 'ephemeral' }, false],
    ['a fact stating another value', { entities: OTHER_VALUE }, false],
    ['a fact that expires after the new fact\'s instant', { expires_at: new Date(NOW.getTime() + 1) }, true],
    ['a fact that expires at the new fact\'s instant', { expires_at: NOW }, false],
    ['a fact expired before it', { expires_at: new Date(NOW.getTime() - 1) }, false],
  ])('%s: %s', (_name, change, corroborates) => {
    const n = neighbour(change);
    expect(corroborationTarget([n], draft)).toBe(corroborates ? n : undefined);
  });

  it('takes the first neighbour that qualifies (they come most similar first), and none of none', () => {
    const own = neighbour({ id: 'own', agent_id: 'agent-b', similarity: 0.99 });
    const first = neighbour({ id: 'first', similarity: 0.95 });
    const second = neighbour({ id: 'second', similarity: 0.93 });
    expect(corroborationTarget([own, first, second], draft)).toBe(first);
    expect(corroborationTarget([], draft)).toBeUndefined();
  });

  it('has the statement\'s guard hold for every fact the rule takes (a little further, never less far)', () => {
    expect(CORROBORATION_GUARD_DISTANCE).toBeGreaterThanOrEqual(1 - CORROBORATION.minSimilarity);
    expect(CORROBORATION_GUARD_DISTANCE - (1 - CORROBORATION.minSimilarity)).toBeLessThan(1e-4);
  });
});

describe('what a commit does with what is in its way', () => {
  const identical: CurrentFact = { id: 'same', lineage_id: 'same', committed_at: NOW, provenance: null, durability: 'durable', expires_at: null };
  const target = neighbour();

  it.each<[string, InTheWay, ReturnType<typeof decideCommit>]>([
    ['nothing: a new fact', { identical: null, target: undefined, claimMovedOn: false }, { kind: 'store' }],
    ['an identical fact: a duplicate', { identical, target: undefined, claimMovedOn: false }, { kind: 'duplicate', fact: identical }],
    ['an identical fact whose claim moved on since: a restatement', { identical, target: undefined, claimMovedOn: true }, { kind: 'restate', fact: identical }],
    ['an identical fact and one to corroborate: the identical one decides', { identical, target, claimMovedOn: false }, { kind: 'duplicate', fact: identical }],
    ['a fact to corroborate: corroborated', { identical: null, target, claimMovedOn: false }, { kind: 'corroborate', fact: target }],
    ['a fact to corroborate whose claim moved on since: a new fact', { identical: null, target, claimMovedOn: true }, { kind: 'store' }],
  ])('%s', (_name, inTheWay, decision) => {
    expect(decideCommit(inTheWay)).toEqual(decision);
  });

  it('checks the claim\'s history against the fact that decides: the identical one first', () => {
    expect(decidingFact({ identical, target })).toBe(identical);
    expect(decidingFact({ identical: null, target })).toBe(target);
    expect(decidingFact({ identical: null, target: undefined })).toBeNull();
  });
});

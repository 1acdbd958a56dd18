import type { Candidate } from '@engram/db';

/** A retrieval candidate for scoring tests: a current durable observation, committed at `committed_at`, with the overrides. */
export function candidateOf(overrides: Partial<Candidate> = {}): Candidate {
  const at = overrides.committed_at ?? new Date('2026-05-01T00:00:00Z');
  return {
    id: 'f', lineage_id: 'f', content: 'x', scope: 's', confidence: 1, fact_type: 'observation', agent_id: 'a',
    member_id: null, provenance: null, committed_at: at, valid_from: at, valid_until: null, expires_at: null,
    ttl_days: null, memory_op: 'add', supersedes_fact_id: null, durability: 'durable', query_hits: 0,
    corroborating_agents: 0, source: 'commit', embedding_model: null, retired_for_fact_id: null, citations: null,
    verified_at: null, member: null, entity_count: 0, rrf: 0, vector_rank: null, text_rank: null, has_open_conflict: false,
    probably_outdated: false, agent_total_commits: null, agent_flagged_commits: null,
    ...overrides,
  };
}

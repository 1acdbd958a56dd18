/**
 * `engram_query` (SPEC §5): hybrid retrieval (vectors + full text, fused by reciprocal rank), the
 * seed's scoring formula, time travel through validity windows, and a response budget.
 */
import { candidateReaderOf, forWorkspace, recordEphemeralHits, type Candidate, type RetrievalParams } from '@engram/db';
import { canRead } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';
import { embedOrNull, type FactServices } from './commit.ts';
import { HISTORY_PHRASES, type QueryInput, type QueryOutput, type QueryResultFact } from './schemas.ts';

/** Ephemeral facts promote themselves after this many query hits. */
export const PROMOTION_HITS = 2;
/** Ephemeral facts rank at this fraction of their score. */
export const EPHEMERAL_WEIGHT = 0.6;
/** About 4,000 tokens, at ~4 characters per token, of serialized results. */
export const RESPONSE_BUDGET_CHARS = 16_000;
/** A single fact's content is cut beyond this many characters. */
export const MAX_RESULT_CONTENT = 2_000;

const RRF_K = 60;
/** Best possible fused score (rank 1 in both lists), to normalize relevance to 0–1. */
const MAX_RRF = 2 / (RRF_K + 1);
const FACT_TYPE_WEIGHT = { decision: 1, inference: 0.5, observation: 0 } as const;

/** The score kept by the earlier side of an open probable update: below the later fact when both match about as well. */
const PROBABLY_OUTDATED_WEIGHT = 0.5;

/**
 * The seed's scoring formula: relevance (normalized RRF) plus recency, agent trust, fact type,
 * provenance, corroboration and entity density; ephemeral facts at 0.6×, and the earlier side
 * of an open probable update at half.
 */
export function scoreCandidate(c: Candidate, reference: Date): number {
  const relevance = Math.min(1, c.rrf / MAX_RRF);
  const days = Math.max(0, (reference.getTime() - new Date(c.committed_at).getTime()) / 86_400_000);
  const recency = Math.exp(-0.05 * days);
  const total = c.agent_total_commits ?? 0;
  const agentTrust = total > 0 ? 1 - (c.agent_flagged_commits ?? 0) / total : 1;
  const score =
    relevance +
    0.2 * recency +
    0.15 * agentTrust +
    0.1 * FACT_TYPE_WEIGHT[c.fact_type] +
    0.1 * (c.provenance ? 1 : 0) +
    0.1 * Math.log(1 + c.corroborating_agents) +
    0.05 * Math.min(1, c.entity_count / 5);
  // A fact a later one probably updated waits below it until someone answers the question.
  const weighted = c.probably_outdated ? score * PROBABLY_OUTDATED_WEIGHT : score;
  return c.durability === 'ephemeral' ? weighted * EPHEMERAL_WEIGHT : weighted;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function present(c: Candidate, score: number): QueryResultFact {
  const long = c.content.length > MAX_RESULT_CONTENT;
  return {
    fact_id: c.id,
    lineage_id: c.lineage_id,
    content: long
      ? `${c.content.slice(0, MAX_RESULT_CONTENT)}… [truncated: ${c.content.length - MAX_RESULT_CONTENT} more characters]`
      : c.content,
    scope: c.scope,
    score: Math.round(score * 10_000) / 10_000,
    confidence: c.confidence,
    fact_type: c.fact_type,
    agent_id: c.agent_id,
    member: c.member,
    committed_at: iso(c.committed_at)!,
    valid_from: iso(c.valid_from)!,
    valid_until: iso(c.valid_until),
    has_open_conflict: c.has_open_conflict,
    verified: c.provenance !== null,
    provenance: c.provenance,
    durability: c.durability,
    corroborating_agents: c.corroborating_agents,
    ...(long ? { truncated: true } : {}),
  };
}

/** Answers a topic with the team's facts, best first. */
export async function queryFacts(
  services: FactServices,
  principal: MemberPrincipal,
  input: QueryInput,
  now = new Date(),
): Promise<QueryOutput> {
  const tenant = forWorkspace(services.db, principal.workspaceId);
  const asOf = input.as_of ? new Date(input.as_of) : undefined;
  const history = input.include_history ?? HISTORY_PHRASES.test(input.topic);
  const window: RetrievalParams['window'] = asOf
    ? { kind: 'as_of', at: asOf }
    : history
      ? { kind: 'history' }
      : { kind: 'current' };

  const [embedding] = await embedOrNull(services, [input.topic]);
  // Grouped: with the other queries of the moment that share this one's workspace and filters, in
  // one statement.
  const candidates = await candidateReaderOf(services.db).read(
    principal.workspaceId,
    {
      model: services.embedder.model,
      scope: input.scope,
      factType: input.fact_type,
      includeEphemeral: input.include_ephemeral,
      window,
      depth: Math.max(30, input.limit * 3),
    },
    { topic: input.topic, embedding: embedding ?? null },
  );

  const reference = asOf ?? now;
  const ranked = candidates
    .filter((c) => canRead(principal, c.scope, now))
    .map((c) => ({ c, score: scoreCandidate(c, reference) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, input.limit);

  const results: QueryResultFact[] = [];
  let used = 0;
  for (const { c, score } of ranked) {
    const fact = present(c, score);
    const size = JSON.stringify(fact).length;
    if (results.length > 0 && used + size > RESPONSE_BUDGET_CHARS) break;
    results.push(fact);
    used += size;
  }
  const omitted = ranked.length - results.length;

  const ephemeral = results.filter((r) => r.durability === 'ephemeral').map((r) => r.fact_id);
  const promoted = new Set(await recordEphemeralHits(tenant, ephemeral, PROMOTION_HITS));
  for (const r of results) if (promoted.has(r.fact_id)) r.durability = 'durable';

  const notes: string[] = [];
  if (window.kind === 'history') {
    notes.push('Includes superseded versions: a fact with valid_until set was true until then, not now.');
  }
  if (omitted > 0) notes.push(`${omitted} more result(s) left out to stay within ~4,000 tokens; narrow the topic or scope.`);
  if (results.length === 0) notes.push('No facts matched. Try other words, a broader scope, or include_history.');
  if (promoted.size > 0) notes.push(`${promoted.size} ephemeral fact(s) proved useful and became durable.`);
  return {
    mode: window.kind,
    ...(asOf ? { as_of: asOf.toISOString() } : {}),
    results,
    omitted,
    ...(notes.length ? { note: notes.join(' ') } : {}),
  };
}

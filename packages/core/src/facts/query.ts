/**
 * `engram_query` (SPEC §5): hybrid retrieval (vectors + full text, fused by reciprocal rank), the
 * seed's scoring formula, time travel through validity windows, and a response budget.
 */
import { candidateReaderOf, closingsOf, forWorkspace, recordEphemeralHits, type Candidate, type Closing, type RetrievalParams, type TenantDb } from '@engram/db';
import { canRead } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';
import { showCitations } from './citations.ts';
import { embedOrNull, type FactServices } from './services.ts';
import { HISTORY_PHRASES, type QueryInput, type QueryOutput, type QueryResultFact } from './schemas.ts';

/** Ephemeral facts promote themselves after this many query hits. */
export const PROMOTION_HITS = 2;
/** Ephemeral facts rank at this fraction of their score. */
export const EPHEMERAL_WEIGHT = 0.6;
/** About 4,000 tokens, at ~4 characters per token, of serialized results. */
export const RESPONSE_BUDGET_CHARS = 16_000;
/** A single fact's content is cut beyond this many characters. */
export const MAX_RESULT_CONTENT = 2_000;

/**
 * Reciprocal rank fusion's constant: how fast a rank's weight falls. At the textbook 60, rank 1 and
 * rank 10 differ by 14%, less than the formula's other signals, so they decided the order among
 * matches; at 5 they differ by a factor of 2.5 (docs/retrieval.md has the dev-set figures).
 */
const RRF_K = 5;
const FACT_TYPE_WEIGHT = { decision: 1, inference: 0.5, observation: 0 } as const;

/**
 * The most a verification adds to a fact's score: a fact someone re-read in the code and found
 * still true ranks above an unverified one that matches about as well, never above a clearly
 * better match (relevance spans 0-1). It fades like recency (about two weeks to half).
 */
export const VERIFIED_WEIGHT = 0.1;

/** What a verification adds at `reference`: VERIFIED_WEIGHT fading with its age; nothing for one made later. */
function verification(verifiedAt: Date | null, reference: Date): number {
  if (!verifiedAt) return 0;
  const days = (reference.getTime() - new Date(verifiedAt).getTime()) / 86_400_000;
  return days < 0 ? 0 : VERIFIED_WEIGHT * Math.exp(-0.05 * days);
}

/** The score kept by the earlier side of an open probable update: below the later fact when both match about as well. */
const PROBABLY_OUTDATED_WEIGHT = 0.5;

/**
 * How well a candidate matches the topic, 0–1: its ranks in full text and in the embedder's list,
 * fused by weighted reciprocal rank (1 = first in both).
 */
export function relevanceOf(c: Pick<Candidate, 'text_rank' | 'vector_rank'>, vectorWeight = 1): number {
  const fused = (c.text_rank ? 1 / (RRF_K + c.text_rank) : 0) + (c.vector_rank ? vectorWeight / (RRF_K + c.vector_rank) : 0);
  return fused / ((1 + vectorWeight) / (RRF_K + 1));
}

/**
 * The seed's scoring formula: relevance (normalized RRF) plus recency, agent trust, fact type,
 * provenance, corroboration and entity density, and a recent verification (VERIFIED_WEIGHT); ephemeral facts at 0.6×, and the earlier side
 * of an open probable update at half.
 */
export function scoreCandidate(c: Candidate, reference: Date, vectorWeight = 1): number {
  const relevance = relevanceOf(c, vectorWeight);
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
    0.05 * Math.min(1, c.entity_count / 5) +
    verification(c.verified_at, reference);
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
    ...(c.citations?.length ? { citations: showCitations(c.citations) } : {}),
    ...(c.verified_at ? { verified_at: iso(c.verified_at)! } : {}),
    ...(long ? { truncated: true } : {}),
  };
}

const isCurrent = (c: Candidate, now: Date) => c.valid_until === null && (c.expires_at === null || new Date(c.expires_at) > now);

interface PastMatch extends Closing {
  fact: Candidate;
}

/**
 * The closed fact that matches the topic better (by fused relevance) than every current one, with
 * how its window ended. None when a current fact matches at least as well, or when what replaced
 * it (a later version of its lineage, or the fact it was retired for) is in the answer already.
 */
async function pastMatch(
  tenant: TenantDb,
  readable: readonly Candidate[],
  current: readonly Candidate[],
  answer: readonly Candidate[],
  now: Date,
  vectorWeight: number,
): Promise<PastMatch | undefined> {
  const relevance = (c: Candidate) => relevanceOf(c, vectorWeight);
  const bestCurrent = current.reduce((best, c) => Math.max(best, relevance(c)), 0);
  const lineages = new Set(answer.map((c) => c.lineage_id));
  const ids = new Set(answer.map((c) => c.id));
  let best: Candidate | undefined;
  for (const c of readable) {
    if (isCurrent(c, now) || relevance(c) <= bestCurrent || (best && relevance(c) <= relevance(best))) continue;
    if (lineages.has(c.lineage_id) || (c.retired_for_fact_id && ids.has(c.retired_for_fact_id))) continue;
    best = c;
  }
  if (!best) return undefined;
  const [closing] = await closingsOf(tenant, [best.id], now);
  return closing ? { ...closing, fact: best } : undefined;
}

const CLOSED_BY_TEXT: Record<Closing['closed_by'], string> = {
  superseded: 'superseded by a later version',
  deleted: 'retired by a delete',
  expired: 'expired (its ttl ran out)',
  detector: 'retired by the detector for a later fact',
  resolution: 'closed when a person settled a conflict',
};

const describeClosing = (p: PastMatch) =>
  `${CLOSED_BY_TEXT[p.closed_by]} on ${p.closed_at.toISOString()}${p.replaced_by ? `, replaced by ${p.replaced_by}` : ''}`;

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

  // The default answer reads every version, so that a closed fact matching the topic better than
  // any current one is not invisible: it is shown once, marked (see pastMatch).
  const showPast = window.kind === 'current';
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
      window: showPast ? { kind: 'history' } : window,
      depth: Math.max(30, input.limit * 3),
    },
    { topic: input.topic, embedding: embedding ?? null },
  );

  const reference = asOf ?? now;
  const vectorWeight = services.embedder.fusionWeight ?? 1;
  const readable = candidates.filter((c) => canRead(principal, c.scope, now));
  const current = showPast ? readable.filter((c) => isCurrent(c, now)) : readable;
  const ranked = current
    .map((c) => ({ c, score: scoreCandidate(c, reference, vectorWeight), past: undefined as PastMatch | undefined }))
    .sort((a, b) => b.score - a.score)
    .slice(0, input.limit);
  const past = showPast ? await pastMatch(tenant, readable, current, ranked.map((r) => r.c), now, vectorWeight) : undefined;
  if (past) {
    // Shown whatever its score: in the place its score earns, the last current fact making room.
    const score = scoreCandidate(past.fact, reference, vectorWeight);
    if (ranked.length >= input.limit) ranked.pop();
    const at = ranked.findIndex((r) => r.score < score);
    ranked.splice(at === -1 ? ranked.length : at, 0, { c: past.fact, score, past });
  }

  const results: QueryResultFact[] = [];
  let used = 0;
  for (const { c, score, past: closing } of ranked) {
    const fact = present(c, score);
    if (closing) {
      fact.valid_until = closing.closed_at.toISOString();
      fact.closed = { closed_by: closing.closed_by, replaced_by: closing.replaced_by };
    }
    const size = JSON.stringify(fact).length;
    if (results.length > 0 && used + size > RESPONSE_BUDGET_CHARS) break;
    results.push(fact);
    used += size;
  }
  const omitted = ranked.length - results.length;

  const ephemeral = results.filter((r) => r.durability === 'ephemeral' && !r.closed).map((r) => r.fact_id);
  const promoted = new Set(await recordEphemeralHits(tenant, ephemeral, PROMOTION_HITS));
  for (const r of results) if (promoted.has(r.fact_id)) r.durability = 'durable';

  const notes: string[] = [];
  if (window.kind === 'history') {
    notes.push('Includes superseded versions: a fact with valid_until set was true until then, not now.');
  }
  const shownPast = ranked.find((r) => r.past && results.some((f) => f.fact_id === r.c.id))?.past;
  if (shownPast) {
    notes.push(
      `A closed fact matches this topic better than any current one: ${shownPast.fact.id} (${describeClosing(shownPast)}). ` +
        'It is listed, with valid_until set, as history, not as what holds now.',
    );
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

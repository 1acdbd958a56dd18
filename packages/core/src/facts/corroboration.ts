/**
 * What a commit does about the facts already in its way: the rule for which earlier fact a new one
 * may corroborate (its parameters are `CORROBORATION`, shared with the commit statement's guard),
 * and the decision between a duplicate, a corroboration, a restatement and a new fact. Pure: the
 * commit pipeline reads what the decision needs and hands it in.
 */
import { createHash } from 'node:crypto';
import { CORROBORATION, type CurrentFact, type FactEntity, type SimilarFact } from '@engram/db';
import { familyOf } from '../language/index.ts';

/**
 * The values a fact states, however it words them: each claim's kind, measure and canonical
 * values, what it names as replaced, and whether the fact denies something. Two facts agree only
 * when these are the same set: "retries 7 times" never agrees with "retries 3 times", "sends no
 * telemetry" never with "sends telemetry".
 */
export function statedValues(entities: readonly FactEntity[]): Set<string> {
  const values = new Set<string>();
  for (const e of entities) {
    if (e.type === 'statement' && !e.positive) values.add('denies');
    if (e.type !== 'claim') continue;
    const where = [e.env, e.stat, e.bound, e.mode].filter(Boolean).join('+');
    for (const v of e.values) values.add(`${familyOf(e.kind)}:${e.measure}:${v}${where ? `@${where}` : ''}`);
    for (const v of e.previous ?? []) values.add(`${familyOf(e.kind)}:${e.measure}:${v}<`);
  }
  return values;
}

/**
 * True when two facts state the same values (see statedValues). Near-duplicate texts that differ
 * in a value ("1000 req/s" vs "2000 req/s", "7 times" vs "3 times") do not agree, so they never
 * corroborate each other.
 */
export function entitiesAgree(a: readonly FactEntity[], b: readonly FactEntity[]): boolean {
  const left = statedValues(a);
  const right = statedValues(b);
  return left.size === right.size && [...left].every((v) => right.has(v));
}

/**
 * A digest of the values a fact states (statedValues, sorted). Facts that can corroborate each
 * other share it, which keeps the near-duplicate search (and the commit's guard) to a handful of
 * rows.
 */
export function entitySignature(entities: readonly FactEntity[]): string {
  return createHash('sha256').update([...statedValues(entities)].sort().join('\n')).digest('hex').slice(0, 32);
}

/** What the corroboration rule needs to know of the new fact. */
export interface CorroboratingDraft {
  agentId: string;
  entities: readonly FactEntity[];
  /** The new fact's instant: a fact expired by then is not current. */
  committedAt: Date;
}

/**
 * May the new fact corroborate this neighbour? The rule of `CORROBORATION` for what a neighbour
 * carries; that it is of the same scope, current and embedded by the same model is the reads'
 * (`nearestCurrentInScope`, the commit statement's guard), which only ever offer such facts.
 */
export function mayCorroborate(neighbour: SimilarFact, draft: CorroboratingDraft): boolean {
  return (
    neighbour.similarity >= CORROBORATION.minSimilarity &&
    neighbour.durability === CORROBORATION.durability &&
    neighbour.agent_id !== draft.agentId &&
    (neighbour.expires_at === null || new Date(neighbour.expires_at).getTime() > draft.committedAt.getTime()) &&
    entitiesAgree(neighbour.entities, draft.entities)
  );
}

/** The near-duplicate from another agent that a new fact corroborates instead of being stored (neighbours most similar first). */
export function corroborationTarget(neighbours: readonly SimilarFact[], draft: CorroboratingDraft): SimilarFact | undefined {
  return neighbours.find((n) => mayCorroborate(n, draft));
}

/** What a commit does once it knows what is in its way. */
export type CommitDecision =
  /** An identical fact is current and nothing moved its claim on: answer with it, store nothing. */
  | { kind: 'duplicate'; fact: CurrentFact }
  /** An identical fact is current but its claim changed since: a new commit continuing its lineage (the arc A → B → A stays visible). */
  | { kind: 'restate'; fact: CurrentFact }
  /** Another agent's fact says the same: count one more agent agreeing, store nothing. */
  | { kind: 'corroborate'; fact: SimilarFact }
  /** Nothing in the way: store the fact. */
  | { kind: 'store' };

/** What the decision is made of (see decideCommit). */
export interface InTheWay {
  /** The current fact of the scope with the same content. */
  identical: CurrentFact | null;
  /** The fact the commit may corroborate (corroborationTarget; plain adds only). */
  target: SimilarFact | undefined;
  /** A later current fact states another value for one of the draft's claims, since the fact that decides (`decidingFact`). */
  claimMovedOn: boolean;
}

/** The fact the decision turns on, whose claim is checked for a later change: the identical fact first. */
export function decidingFact(inTheWay: Pick<InTheWay, 'identical' | 'target'>): CurrentFact | SimilarFact | null {
  return inTheWay.identical ?? inTheWay.target ?? null;
}

/**
 * Duplicate, restatement, corroboration or a new fact. An identical fact decides first: the same
 * content again is a duplicate unless the claim moved on since (then a restatement). Without one,
 * a fact it may corroborate is corroborated unless the claim moved on since that fact (then the
 * new fact is news, and stored).
 */
export function decideCommit({ identical, target, claimMovedOn }: InTheWay): CommitDecision {
  if (identical) return claimMovedOn ? { kind: 'restate', fact: identical } : { kind: 'duplicate', fact: identical };
  if (target && !claimMovedOn) return { kind: 'corroborate', fact: target };
  return { kind: 'store' };
}

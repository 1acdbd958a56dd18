/**
 * The deterministic tiers (SPEC §6), over subject-qualified slots. For every slot a run's trigger
 * facts touch, the slot's facts are read as a timeline:
 *
 * 1. Settling: a later fact that corrects the lineage, comes from the same agent within a working
 *    session, or announces the change ("switched to", "actually", "from X to Y", ...) makes the
 *    earlier disagreeing fact history — its window is closed, no conflict is raised.
 * 2. Whatever still disagrees among current facts is a conflict: a reversal when the latest value
 *    is one the story had already moved away from (A → B → A), a stale claim when an old version
 *    claim outlives newer ones, a cross-scope conflict when the facts live in different scopes
 *    (Tier 2b), else a value mismatch (Tier 0 entity values, Tier 2 numbers with units) or an
 *    ambiguity (technologies, booleans, "does not use").
 *
 * Qualifiers (prod vs staging) and different subjects or attributes are different slots, so they
 * never meet here. Pure functions: the run gives them facts and applies what they return.
 */
import type { ConflictRecord, DetectorFact, RetirementRecord } from '@engram/db';
import { claimsOf, disagree, isNumericType, sameSlot, settles, supersedesPlan, type SlotClaim } from './claims.ts';
import { conflictQuestion, explanationDate, STATEMENT_QUESTION_PREFIX } from './questions.ts';

/** A version claim this much older than the newest disagreeing one is stale rather than merely different. */
export const STALE_AFTER_MS = 7 * 86_400_000;

/** A slot's timeline is read from its newest claims only: a crowded slot cannot stall a run. */
export const MAX_CLAIMS_PER_SLOT = 100;

export interface DeterministicOutcome {
  retirements: RetirementRecord[];
  conflicts: ConflictRecord[];
  /** Why each retirement happened (fact id → reason), for logs and tests. */
  reasons: Map<string, string>;
}

const byTime = (a: SlotClaim, b: SlotClaim) =>
  a.fact.committed_at.getTime() - b.fact.committed_at.getTime() || a.fact.id.localeCompare(b.fact.id);

/** The same claims in the same order (a claim is its fact and its key). */
function sameClaims(a: readonly SlotClaim[], b: readonly SlotClaim[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.fact.id !== b[i]!.fact.id || a[i]!.key !== b[i]!.key) return false;
  return true;
}

/**
 * Analyses the slots the trigger facts touch. `facts` must include the triggers and the other
 * facts (current, and recent history) that share a match key with them. `claims` may be a cache
 * of claimsOf (the claims keep a reference to their fact, so a cache is keyed by the fact object).
 */
export function analyzeSlots(
  facts: readonly DetectorFact[],
  triggerIds: ReadonlySet<string>,
  claims: (fact: DetectorFact) => SlotClaim[] = claimsOf,
  index: SlotIndex = indexSlots(facts, claims),
): DeterministicOutcome {
  return inOnePiece(analysisSteps(facts, triggerIds, claims, index));
}

/** What a computation in steps (analysisSteps, indexingSteps) returns, its steps run without pausing. */
function inOnePiece<T>(steps: Generator<void, T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** Comparisons (a candidate met, a pair judged) analysisSteps makes between two of its pauses (a run step, ANALYSIS_STEP_CLAIMS in run.ts, holds many). */
const COMPARISONS_PER_PAUSE = 1_000;

/**
 * analyzeSlots in steps, pausing every COMPARISONS_PER_PAUSE comparisons, so a run can let
 * the requests it serves in between: one trigger of a crowded slot meets ten thousand claims or
 * more, and its analysis held the process for 10-33 ms in one piece on an idle machine (up to 46
 * under a 50-client load). Nothing the analysis reads changes while it pauses (the run applies a
 * step's outcome after it), so the outcome is the same either way.
 */
export function* analysisSteps(
  facts: readonly DetectorFact[],
  triggerIds: ReadonlySet<string>,
  claims: (fact: DetectorFact) => SlotClaim[],
  index: SlotIndex,
): Generator<void, DeterministicOutcome> {
  let comparisons = 0;
  /** Counts comparisons made; true once a pause is due (never inside a hot loop: it would slow it). */
  const pauseDue = (made: number) => {
    comparisons += made;
    if (comparisons < COMPARISONS_PER_PAUSE) return false;
    comparisons = 0;
    return true;
  };
  const triggerClaims = facts.filter((f) => triggerIds.has(f.id) && f.valid_until === null).flatMap(claims);
  // One timeline per trigger claim: every claim about the same slot, oldest first.
  // Triggers of one slot find the same timeline: each is kept once. Timelines are told apart by
  // their ends and length first, then claim by claim (a string of every claim's id, up to a hundred
  // per trigger claim, was most of what a run allocated here).
  const timelines = new Map<string, SlotClaim[][]>();
  const touched: SlotClaim[][] = [];
  for (const trigger of triggerClaims) {
    const met = [...candidatesOf(trigger, index)];
    const peers: SlotClaim[] = [];
    for (let at = 0; at < met.length; at += COMPARISONS_PER_PAUSE) {
      const end = Math.min(met.length, at + COMPARISONS_PER_PAUSE);
      for (let k = at; k < end; k++) if (sameSlot(trigger, met[k]!)) peers.push(met[k]!);
      if (pauseDue(end - at)) yield;
    }
    if (peers.length < 2) continue;
    peers.sort(byTime);
    const timeline = peers.length > MAX_CLAIMS_PER_SLOT ? peers.slice(-MAX_CLAIMS_PER_SLOT) : peers;
    const first = timeline[0]!;
    const last = timeline.at(-1)!;
    const ends = `${timeline.length}|${first.fact.id}/${first.key}|${last.fact.id}/${last.key}`;
    const alike = timelines.get(ends);
    if (alike?.some((other) => sameClaims(other, timeline))) continue;
    if (alike) alike.push(timeline);
    else timelines.set(ends, [timeline]);
    touched.push(timeline);
  }

  // 1. Settle, timeline by timeline, until nothing changes (a settlement in one can matter in another).
  // A pair of facts that came before every trigger was judged when the newer of them was a
  // trigger, on the same evidence (a goal that matters to a pair is stated before its newer fact),
  // so only pairs with a trigger, or after one, are judged again: a run's cost follows what it
  // brings, not how crowded the slot is.
  const retiredBy = new Map<string, SlotClaim>();
  const reasons = new Map<string, string>();
  const isCurrent = (c: SlotClaim) => c.fact.valid_until === null && !retiredBy.has(c.fact.id);
  const firstTrigger = new Map<SlotClaim[], number>();
  for (const claims of touched) {
    let first = Infinity;
    for (const c of claims) if (triggerIds.has(c.fact.id)) first = Math.min(first, c.fact.committed_at.getTime());
    firstTrigger.set(claims, first);
  }
  // Claims no longer current are passed over where they stand (a timeline of a hundred claims,
  // copied for every pass, was a run's largest allocation).
  for (let pass = 0, changed = true; changed && pass < 4; pass++) {
    changed = false;
    for (const claims of touched) {
      const since = firstTrigger.get(claims)!;
      for (let i = 1; i < claims.length; i++) {
        const newer = claims[i]!;
        // A newer claim from before every trigger has only older ones before it, none of them a
        // trigger: all its pairs were judged.
        if (!isCurrent(newer) || (newer.fact.committed_at.getTime() < since && !triggerIds.has(newer.fact.id))) continue;
        for (let j = 0; j < i; j++) {
          const older = claims[j]!;
          if (!isCurrent(older) || older.fact.id === newer.fact.id || !(disagree(older, newer) || supersedesPlan(older, newer))) continue;
          const reason = settles(older, newer, claims);
          if (reason) {
            retiredBy.set(older.fact.id, newer);
            reasons.set(older.fact.id, reason);
            changed = true;
          }
        }
        if (pauseDue(i)) yield;
      }
    }
  }

  // 2. What still disagrees is a conflict.
  const drafts: ConflictRecord[] = [];
  for (const claims of touched) {
    const current = claims.filter(isCurrent);
    // Each pair must be about one slot itself: two peers of one trigger can be two things ("Memory limit is 4Gi"
    // meets both "tax-worker ... 4Gi memory limit" and "sso-poller ... limits.memory=1Gi"). A claim is
    // in once one pair holds it, so each looks only until it finds one (a crowded slot where every
    // value differs costs a pass, not every pair); each pair is judged oldest first.
    const inPair = new Set<SlotClaim>();
    const opposed = (i: number, j: number) => {
      const c = current[Math.min(i, j)]!;
      const other = current[Math.max(i, j)]!;
      return other.fact.id !== c.fact.id && disagree(c, other) && (sameSlot(c, other) || sameSlot(other, c));
    };
    for (let i = 0; i < current.length; i++) {
      if (inPair.has(current[i]!)) continue;
      for (let j = 0; j < current.length; j++) {
        // An earlier claim still without a pair already looked at this one, and found nothing.
        if (j === i || (j < i && !inPair.has(current[j]!))) continue;
        if (opposed(i, j)) {
          inPair.add(current[i]!).add(current[j]!);
          break;
        }
      }
      if (pauseDue(current.length)) yield;
    }
    const involved = current.filter((c) => inPair.has(c));
    if (new Set(involved.map((c) => c.fact.id)).size < 2) continue;
    drafts.push(classify(involved, claims));
  }

  return {
    retirements: [...retiredBy.entries()].map(([factId, by]) => ({ factId, byFactId: by.fact.id, at: by.fact.committed_at })),
    conflicts: mergeDrafts(drafts),
    reasons,
  };
}

/**
 * The claims of a run's facts, indexed so each trigger claim meets only plausible peers. A run
 * analysing its triggers in steps over the same facts builds it once.
 */
export interface SlotIndex {
  /** By kind and attribute word (`count:thread`; `count:*`, no attribute word) and by kind and frame anchor (`count~region`). */
  readonly byKey: ReadonlyMap<string, readonly SlotClaim[]>;
  /** Each claim's keys in byKey. */
  readonly keysOf: ReadonlyMap<SlotClaim, readonly string[]>;
  /**
   * What sameSlot's rule on named subjects lets meet a claim named in its text: by kind and
   * subject (`s:count:pool`), by kind and a word of the fact that is some claim's subject
   * (`w:count:pool`), and by kind, the claims whose subject is their scope's (`i:count`).
   */
  readonly bySubject: ReadonlyMap<string, readonly SlotClaim[]>;
}

export function indexSlots(facts: readonly DetectorFact[], claims: (fact: DetectorFact) => SlotClaim[] = claimsOf): SlotIndex {
  return inOnePiece(indexingSteps(facts, claims));
}

/** Claims indexed between two of indexingSteps' pauses. */
const INDEXING_STEP_CLAIMS = 500;

/**
 * indexSlots in steps, pausing every INDEXING_STEP_CLAIMS claims, so a run can let the requests it
 * serves in between: in one piece, a group's index (tens of thousands of claims under a 50-client
 * load) held the process for 70-110 ms. The index is the same either way.
 */
export function* indexingSteps(facts: readonly DetectorFact[], claims: (fact: DetectorFact) => SlotClaim[] = claimsOf): Generator<void, SlotIndex> {
  const byKey = new Map<string, SlotClaim[]>();
  const keysOf = new Map<SlotClaim, string[]>();
  const bySubject = new Map<string, SlotClaim[]>();
  const add = (index: Map<string, SlotClaim[]>, key: string, claim: SlotClaim) => {
    const list = index.get(key);
    if (list) list.push(claim);
    else index.set(key, [claim]);
  };
  const all: SlotClaim[] = [];
  const subjects = new Set<string>();
  for (const fact of facts) {
    for (const claim of claims(fact)) {
      all.push(claim);
      subjects.add(`w:${claim.kind}:${claim.subject}`);
      if (all.length % INDEXING_STEP_CLAIMS === 0) yield;
    }
  }
  for (let i = 0; i < all.length; i++) {
    const claim = all[i]!;
    const keys = indexKeys(claim);
    keysOf.set(claim, keys);
    for (const key of keys) add(byKey, key, claim);
    if (claim.implicit) add(bySubject, `i:${claim.kind}`, claim);
    else add(bySubject, `s:${claim.kind}:${claim.subject}`, claim);
    for (const word of claim.words) {
      const key = `w:${claim.kind}:${word}`;
      if (subjects.has(key)) add(bySubject, key, claim);
    }
    if ((i + 1) % INDEXING_STEP_CLAIMS === 0) yield;
  }
  return { byKey, keysOf, bySubject };
}

/**
 * The claims a trigger claim is checked against (each once): those sharing one of its keys. For
 * a claim that names its subject, when fewer claims can pass sameSlot's rule on named subjects
 * (two claims naming different subjects, neither fact mentioning the other's, are two things)
 * than share its keys, those that can, sharing a key: the same claims as the keys give that
 * sameSlot does not turn away at once. In a crowded slot ("worker pool threads" of hundreds of
 * services) that was three quarters of the claims met.
 */
export function candidatesOf(trigger: SlotClaim, index: SlotIndex): Set<SlotClaim> {
  const keys = keysMet(trigger);
  const byKey = keys.map((k) => index.byKey.get(k) ?? []);
  const size = (lists: readonly (readonly SlotClaim[])[]) => lists.reduce((n, list) => n + list.length, 0);
  if (!trigger.implicit) {
    const kind = trigger.kind;
    const bySubject = [`i:${kind}`, `s:${kind}:${trigger.subject}`, `w:${kind}:${trigger.subject}`, ...[...trigger.words].map((w) => `s:${kind}:${w}`)].map(
      (k) => index.bySubject.get(k) ?? [],
    );
    if (size(bySubject) < size(byKey)) {
      const wanted = new Set(keys);
      const out = new Set<SlotClaim>();
      for (const list of bySubject) for (const c of list) if (index.keysOf.get(c)!.some((k) => wanted.has(k))) out.add(c);
      return out;
    }
  }
  const out = new Set<SlotClaim>();
  for (const list of byKey) for (const c of list) out.add(c);
  return out;
}

/**
 * What analysing a trigger costs, in claims met: for each of its claims, the claims its index keys
 * hold (each is checked for being the same slot). A proxy that depends on the facts alone, so a
 * run splits its work the same way on any machine.
 */
export function analysisCost(trigger: DetectorFact, claims: (fact: DetectorFact) => SlotClaim[], index: SlotIndex): number {
  let met = 0;
  for (const claim of claims(trigger)) {
    for (const key of keysMet(claim)) met += index.byKey.get(key)?.length ?? 0;
  }
  return met;
}

/** Keys whose claims a claim is checked against: its own, and its kind's claims with no attribute word. */
const keysMet = (claim: SlotClaim) => [`${claim.kind}:*`, ...indexKeys(claim)];

/** Keys a claim is indexed under in a run: its kind with each attribute word, and with each anchor of its frame. */
function indexKeys(claim: SlotClaim): string[] {
  const core = claim.attribute.filter((w) => w !== claim.subject);
  return [...(core.length ? core : ['*']).map((w) => `${claim.kind}:${w}`), ...[...claim.frame].map((w) => `${claim.kind}~${w}`)];
}

/** Most facts one conflict names: the newest disagreeing ones (a human reads them all). */
export const MAX_CONFLICT_FACTS = 20;

/** Kind, tier, severity, facts and question of one slot's disagreement. */
function classify(allInvolved: SlotClaim[], timeline: SlotClaim[]): ConflictRecord {
  const involved = allInvolved.slice(-MAX_CONFLICT_FACTS);
  const latest = involved.at(-1)!;
  const scopes = new Set(involved.map((c) => c.fact.scope));
  // A → B → A: the latest value was held before, then left for another.
  const earlierSame = timeline.find(
    (c) =>
      c.fact.committed_at < latest.fact.committed_at &&
      c.fact.id !== latest.fact.id &&
      !disagree(c, latest) &&
      c.values.size > 0 &&
      timeline.some((m) => m.fact.committed_at > c.fact.committed_at && m.fact.committed_at < latest.fact.committed_at && disagree(m, latest)),
  );
  const oldest = involved[0]!;
  const factIds = [...new Set([...(earlierSame ? [earlierSame.fact.id] : []), ...involved.map((c) => c.fact.id)])];
  let record: Omit<ConflictRecord, 'question' | 'factIds'>;
  if (earlierSame) {
    record = { kind: 'reversal', detectedBy: 'narrative_rules', severity: 'high', explanation: null };
  } else if (latest.type === 'version' && latest.fact.committed_at.getTime() - oldest.fact.committed_at.getTime() >= STALE_AFTER_MS) {
    record = { kind: 'stale', detectedBy: 'narrative_rules', severity: 'medium', explanation: null };
  } else if (scopes.size > 1) {
    record = { kind: 'cross_scope', detectedBy: 'tier2b_cross_scope', severity: 'high', explanation: null };
  } else if (isNumericType(latest.type)) {
    record = { kind: 'value_mismatch', detectedBy: 'tier2_numeric', severity: 'high', explanation: null };
  } else if (latest.type === 'technology' || latest.type === 'usage' || latest.type === 'boolean' || latest.type === 'assertion') {
    record = { kind: 'ambiguity', detectedBy: 'tier0_entity', severity: 'high', explanation: null };
  } else {
    record = { kind: 'value_mismatch', detectedBy: 'tier0_entity', severity: 'high', explanation: null };
  }
  return {
    ...record,
    factIds,
    question: conflictQuestion(record.kind, involved, earlierSame),
    explanation: explain(record.kind, involved, earlierSame),
  };
}

function explain(kind: ConflictRecord['kind'], involved: SlotClaim[], earlierSame: SlotClaim | undefined): string {
  const shown = involved.slice(-6);
  const list = shown.map((c) => `"${c.display.join(', ')}" (${c.fact.scope}, ${explanationDate(c.fact.committed_at)})`);
  if (involved.length > shown.length) list.unshift(`${involved.length - shown.length} earlier`);
  switch (kind) {
    case 'reversal':
      return `The story moved away from "${earlierSame?.display.join(', ')}" and came back to it; current facts say ${list.join(' and ')}.`;
    case 'stale':
      return `An old version claim is still current next to newer ones: ${list.join(' vs ')}.`;
    case 'cross_scope':
      return `Facts in different scopes state different values: ${list.join(' vs ')}.`;
    default:
      return `Current facts state different values: ${list.join(' vs ')}.`;
  }
}

/** One conflict per confusion: a draft whose facts all belong to a larger draft is dropped. */
function mergeDrafts(drafts: ConflictRecord[]): ConflictRecord[] {
  const kept: ConflictRecord[] = [];
  // Larger sets first; of equal ones, a value's question before a whole statement's.
  const statement = (d: ConflictRecord) => (d.question.startsWith(STATEMENT_QUESTION_PREFIX) ? 1 : 0);
  for (const d of [...drafts].sort((a, b) => b.factIds.length - a.factIds.length || statement(a) - statement(b))) {
    if (kept.some((k) => d.factIds.every((id) => k.factIds.includes(id)))) continue;
    kept.push(d);
  }
  return kept;
}

/**
 * Evidence first (SPEC §6, narrative detective step 1): the facts a run's triggers relate to
 * always enter the story, like the triggers — a model can only flag what it is shown, so both
 * sides of a confusion must share a prompt. Related means, strongest first:
 *
 * 1. the same claim, by the deterministic tiers' alignment (frames, slots), with its recent
 *    history: superseded versions included, so an arc X → Y → X reads as one;
 * 2. a statement's other side (a denial of what the trigger asserts, an assertion of what it
 *    denies), the facts a deletion request names, the facts that depend on what the trigger
 *    names (and what a dependent fact depends on), and facts naming the same person, product,
 *    address or channel;
 * 3. the middle step of an arc; the nearest facts by embedding, above a similarity measured on
 *    the story sets (and, in the trigger's own scope, the nearest two above a lower one, and the
 *    next six, and the scope's facts sharing its keys, when they bear on it); the facts sharing
 *    the trigger's rarest words; facts sharing a key few facts hold, and ties through a crowded
 *    key (both weak).
 *
 * Equally strong evidence goes in by how many signals point to it (near by meaning, a shared key,
 * the trigger's own scope), then newest first.
 *
 * The evidence is bounded by count and characters, per trigger and per run, so one hot subject
 * cannot flood the prompt; the forgetting curve then samples the background that fills the rest.
 */
import { factsByIds, factsMatching, scopeKeyMates, scopeNeighbours, semanticNeighbours, sharedWordNeighbours, type DetectorFact, type TenantDb } from '@engram/db';
import { announcesChange, identityKeysOf, sameThing, viewOf } from '../../language/index.ts';
import { probesOf } from '../per-fact.ts';

/** A fact the story must show, with what it needs to be placed and costed. */
export interface EvidenceFact {
  id: string;
  committed_at: Date;
  chars: number;
  /** Its window closed: shown as history ("superseded"). */
  superseded: boolean;
  /** How strongly it relates to a trigger (3 same claim, 2 related statement or name, 1.5 an arc's middle step, 1 near by meaning). */
  strength: number;
}

export interface EvidenceLimits {
  /** Most facts per trigger, and per run. */
  perTrigger: number;
  perRun: number;
  /** Most characters of evidence per trigger, and per run. */
  charsPerTrigger: number;
  charsPerRun: number;
}

/** Facts read per shared key (newest first): a crowded key cannot make a run read thousands. */
const FACTS_PER_KEY = 20;
/**
 * A key more facts hold than half a trigger's evidence places would fill them alone ("depends on
 * our generated code" in a workspace of pinned libraries): a tie through it is a weak one.
 */
const CROWDED_KEY_HOLDERS = 6;
/** Superseded versions shown per claim: enough for an arc, not a whole changelog. */
const HISTORY_PER_TRIGGER = 4;
/** Nearest facts by embedding looked at per trigger. */
const NEIGHBOURS_PER_TRIGGER = 6;
/**
 * Embedding neighbours below this cosine are not evidence. Measured with the local embedder over
 * the story sets (`npm run eval:detection -- --neighbours`): it keeps 81% of the fact pairs of
 * expected confusions (median cosine 0.40) and lets in 5% of pairs from unrelated stories
 * (median 0.02); 0.15 would keep 91% for 10%. Neighbours are the weakest evidence, ranked last.
 */
export const MIN_NEIGHBOUR_SIMILARITY = 0.2;
/**
 * Within the trigger's own scope, the nearest few facts count as evidence from a lower
 * similarity: a scope is a hint that two facts are about one thing ("the dashboard is
 * server-rendered" and "moved the dashboard to a client-only SPA" share one word, in `web`).
 * Of the next nearest, those that also share a claim, state the same kind of value (a price, a
 * duration) or take the other side of a statement count too: in a crowded scope the fact a
 * trigger contradicts is often not among the nearest two.
 */
const SCOPE_NEIGHBOURS_PER_TRIGGER = 2;
const SCOPE_CANDIDATES = 8;
/** Facts of the trigger's scope sharing its keys, looked at per trigger (the old side of a stale claim). */
const SCOPE_KEY_MATES = 10;
export const MIN_SCOPE_NEIGHBOUR_SIMILARITY = 0.1;
/**
 * The middle of an arc. A trigger that says X again ("CODEOWNERS lists @mara as owner of
 * invoicing") is most like the fact that first said X ("Mara owns the invoicing service"), and often
 * not like the Y said in between ("ownership of invoicing passed to Omar's squad"), which is like X
 * and announces a change. So of the facts committed after the trigger's nearest scope-mate, in
 * its scope, the nearest announcing a change are evidence, ranked above mere neighbours by meaning.
 */
const ARC_CANDIDATES = 30;
const ARC_STEPS_PER_TRIGGER = 3;
const ARC_STEP = 1.5;
/**
 * Facts sharing a trigger's rare words, per trigger: a word at most MAX_WORD_SHARERS other facts
 * hold, scored ln(32 / holders) summed over the shared words; at least MIN_WORD_SCORE (one word
 * that ten or fewer other facts hold, or two a little more common).
 */
const WORD_NEIGHBOURS_PER_TRIGGER = 3;
const MAX_WORD_SHARERS = 30;
export const MIN_WORD_SCORE = 1;
/** Triggers whose evidence is gathered (a big burst's story is mostly its own facts). */
export const EVIDENCE_TRIGGERS = 100;

/** Kinds of value too common to tie two facts alone (most facts count something). */
const COMMON_KINDS = new Set(['count', 'number']);
const denies = (f: DetectorFact) => viewOf(f).statements.some((s) => !s.positive);

/** Beyond the nearest two in its scope, does a scope-mate still bear on the trigger? */
function bearsOn(trigger: DetectorFact, fact: DetectorFact): boolean {
  if (denies(trigger) !== denies(fact)) return true;
  const kinds = new Set(viewOf(trigger).claims.map((c) => c.kind).filter((k) => !COMMON_KINDS.has(k)));
  return viewOf(fact).claims.some((c) => kinds.has(c.kind));
}

/**
 * Strength of the tie between a trigger and another fact (0: none). A tie through a key many
 * facts hold (`crowded`: "depends on ... events" in a workspace full of event topics) says
 * little, and is a weak one.
 */
function strengthOf(
  trigger: DetectorFact,
  probes: ReadonlySet<string>,
  identities: ReadonlySet<string>,
  fact: DetectorFact,
  crowded: (key: string) => boolean,
): number {
  const mine = viewOf(trigger).claims;
  const theirs = viewOf(fact).claims;
  if (mine.some((a) => theirs.some((b) => sameThing(a, b)))) return 3;
  const related = fact.match_keys.filter((k) => probes.has(k) || identities.has(k));
  if (related.some((k) => !crowded(k))) return 2;
  // What the other fact depends on or denies, named by the trigger ("relies on ... events" meets "usage events").
  const named = probesOf(fact).filter((k) => trigger.match_keys.includes(k));
  if (named.some((k) => !crowded(k))) return 2;
  return related.length > 0 || named.length > 0 ? 1 : 0;
}

/**
 * The evidence of a run: for each trigger, the related facts (current ones, and the recent
 * history of the same claims), strongest and newest first, within the limits.
 */
export async function gatherEvidence(tenant: TenantDb, triggerFactIds: readonly string[], limits: EvidenceLimits): Promise<EvidenceFact[]> {
  const ids = triggerFactIds.slice(0, EVIDENCE_TRIGGERS);
  if (ids.length === 0) return [];
  const triggers = (await factsByIds(tenant, ids)).filter((t) => t.durability === 'durable');
  const triggerSet = new Set(triggerFactIds);
  const keys = new Set<string>();
  for (const t of triggers) for (const k of [...t.match_keys, ...probesOf(t)]) keys.add(k);
  const triggerIds = triggers.map((t) => t.id);
  const [pool, anywhere, inScope, sharingWords, keyMates] = await Promise.all([
    factsMatching(tenant, [...keys], FACTS_PER_KEY),
    semanticNeighbours(tenant, triggerIds, NEIGHBOURS_PER_TRIGGER),
    scopeNeighbours(tenant, triggerIds, SCOPE_CANDIDATES),
    sharedWordNeighbours(tenant, triggerIds, WORD_NEIGHBOURS_PER_TRIGGER, MAX_WORD_SHARERS),
    scopeKeyMates(tenant, triggerIds, SCOPE_KEY_MATES),
  ]);
  // The nearest two in the trigger's scope are evidence as they are; the next ones only if they bear on it (below).
  const scopeNearest: typeof inScope = [];
  const scopeFurther: typeof inScope = [];
  const taken = new Map<string, number>();
  for (const n of [...inScope].sort((a, b) => a.factId.localeCompare(b.factId) || b.similarity - a.similarity || a.id.localeCompare(b.id))) {
    if (n.similarity < MIN_SCOPE_NEIGHBOUR_SIMILARITY) continue;
    const rank = taken.get(n.factId) ?? 0;
    taken.set(n.factId, rank + 1);
    (rank < SCOPE_NEIGHBOURS_PER_TRIGGER ? scopeNearest : scopeFurther).push(n);
  }
  const neighbours = [
    ...anywhere.filter((n) => n.similarity >= MIN_NEIGHBOUR_SIMILARITY),
    ...scopeNearest,
    ...sharingWords.filter((n) => n.score >= MIN_WORD_SCORE),
  ];
  const nearBy = new Map<string, Set<string>>();
  for (const n of neighbours) nearBy.set(n.factId, (nearBy.get(n.factId) ?? new Set()).add(n.id));
  // Further scope-mates by meaning, and scope-mates sharing a key: evidence when they bear on the trigger.
  const furtherBy = new Map<string, Set<string>>();
  for (const n of [...scopeFurther, ...keyMates]) furtherBy.set(n.factId, (furtherBy.get(n.factId) ?? new Set()).add(n.id));
  // The second step of an arc: the scope-mates of each trigger's nearest scope-mate.
  const mateOf = new Map<string, { id: string; similarity: number }>();
  for (const n of inScope) {
    const best = mateOf.get(n.factId);
    if (n.similarity >= MIN_SCOPE_NEIGHBOUR_SIMILARITY && !triggerSet.has(n.id) && (!best || n.similarity > best.similarity)) mateOf.set(n.factId, n);
  }
  const nearestMate = new Map<string, string[]>();
  for (const [trigger, mate] of mateOf) nearestMate.set(mate.id, [...(nearestMate.get(mate.id) ?? []), trigger]);
  const arcCandidates = new Map<string, { id: string; similarity: number }[]>();
  for (const n of await scopeNeighbours(tenant, [...nearestMate.keys()], ARC_CANDIDATES, { later: true })) {
    if (n.similarity < MIN_SCOPE_NEIGHBOUR_SIMILARITY || triggerSet.has(n.id)) continue;
    for (const t of nearestMate.get(n.factId) ?? []) arcCandidates.set(t, [...(arcCandidates.get(t) ?? []), n]);
  }
  const arcIds = [...arcCandidates.values()].flatMap((list) => list.map((n) => n.id));
  const known = new Map(pool.map((f) => [f.id, f]));
  const read = [...new Set([...neighbours.map((n) => n.id), ...scopeFurther.map((n) => n.id), ...keyMates.map((n) => n.id), ...arcIds])].filter((id) => !known.has(id));
  for (const f of await factsByIds(tenant, read)) known.set(f.id, f);

  // Each trigger's ranked evidence (a fact's claims are read once, however many triggers meet it: see viewOf).
  const holders = new Map<string, number>();
  // Holders of a key by what they state and by what they name (a dependency's or a denial's target).
  for (const f of pool) for (const k of new Set([...f.match_keys, ...probesOf(f)])) if (keys.has(k)) holders.set(k, (holders.get(k) ?? 0) + 1);
  const crowded = (key: string) => (holders.get(key) ?? 0) >= CROWDED_KEY_HOLDERS;
  const lists = triggers.map((trigger) => {
    const probes = new Set(probesOf(trigger));
    const identities = new Set(identityKeysOf(trigger.entities));
    const ranked: { fact: DetectorFact; strength: number }[] = [];
    const myKeys = new Set(trigger.match_keys);
    // Sharing a key few facts hold (a crowded one ties everything).
    const sharesKey = (f: DetectorFact) => f.match_keys.some((k) => myKeys.has(k) && !crowded(k));
    for (const fact of pool) {
      if (fact.id === trigger.id || triggerSet.has(fact.id)) continue;
      const strength = strengthOf(trigger, probes, identities, fact, crowded);
      // History only of the same claim or a related statement: the arc, not every old fact that shares a word.
      if (strength > 0 && (fact.valid_until === null || strength >= 2)) ranked.push({ fact, strength });
      // A current fact stating the same kind of value about the same word, or asserting something of the same thing, is a weak tie.
      else if (strength === 0 && fact.valid_until === null && sharesKey(fact)) ranked.push({ fact, strength: 1 });
    }
    const near = nearBy.get(trigger.id) ?? new Set<string>();
    const further = furtherBy.get(trigger.id) ?? new Set<string>();
    for (const id of new Set([...near, ...further])) {
      const fact = known.get(id);
      if (!fact || triggerSet.has(id) || ranked.some((r) => r.fact.id === id)) continue;
      // A neighbour that also shares a claim or a name is as strong as one found by its keys (the keys read only the newest facts).
      const tie = strengthOf(trigger, probes, identities, fact, crowded);
      if (tie > 0 || near.has(id) || sharesKey(fact) || bearsOn(trigger, fact)) ranked.push({ fact, strength: Math.max(tie, 1) });
    }
    // A middle step comes after the fact the trigger restates, and announces a change it made
    // ("moved the dashboard to ...", "passed to"), not one planned.
    const restated = mateOf.get(trigger.id);
    const since = (restated && known.get(restated.id)?.committed_at.getTime()) ?? 0;
    const steps = (arcCandidates.get(trigger.id) ?? [])
      .map((n) => ({ ...n, fact: known.get(n.id) }))
      .filter((n): n is typeof n & { fact: DetectorFact } => n.fact !== undefined)
      .filter((n) => n.fact.committed_at.getTime() > since && announcesChange(n.fact.entities))
      .sort((a, b) => b.similarity - a.similarity);
    // A step already in the evidence is lifted to a step's strength; up to three more are added.
    let added = 0;
    for (const n of steps) {
      const present = ranked.find((r) => r.fact.id === n.id);
      if (present) present.strength = Math.max(present.strength, ARC_STEP);
      else if (added++ < ARC_STEPS_PER_TRIGGER) ranked.push({ fact: n.fact, strength: ARC_STEP });
    }
    // Equally strong: the fact more signals point to first (near by meaning, a shared key, the trigger's own scope:
    // a crowded claim's other scopes are further away), then the newest.
    const signals = (f: DetectorFact) => Number(near.has(f.id)) + Number(further.has(f.id)) + Number(sharesKey(f)) + Number(f.scope === trigger.scope);
    const score = new Map(ranked.map((r) => [r.fact.id, signals(r.fact)]));
    ranked.sort(
      (a, b) =>
        b.strength - a.strength ||
        score.get(b.fact.id)! - score.get(a.fact.id)! ||
        b.fact.committed_at.getTime() - a.fact.committed_at.getTime() ||
        a.fact.id.localeCompare(b.fact.id),
    );
    const kept: { fact: DetectorFact; strength: number }[] = [];
    let chars = 0;
    let history = 0;
    for (const r of ranked) {
      if (kept.length >= limits.perTrigger) break;
      if (r.fact.valid_until !== null && history >= HISTORY_PER_TRIGGER) continue;
      if (chars + r.fact.content.length > limits.charsPerTrigger && kept.length > 0) continue;
      kept.push(r);
      chars += r.fact.content.length;
      if (r.fact.valid_until !== null) history++;
    }
    return kept;
  });

  // Merged across triggers in turns, so every trigger gets its strongest evidence in before any gets its weakest.
  const chosen = new Map<string, EvidenceFact>();
  let chars = 0;
  for (let round = 0; ; round++) {
    let any = false;
    for (const list of lists) {
      const r = list[round];
      if (!r) continue;
      any = true;
      if (chosen.has(r.fact.id) || chosen.size >= limits.perRun || chars + r.fact.content.length > limits.charsPerRun) continue;
      chosen.set(r.fact.id, {
        id: r.fact.id,
        committed_at: r.fact.committed_at,
        chars: r.fact.content.length,
        superseded: r.fact.valid_until !== null,
        strength: r.strength,
      });
      chars += r.fact.content.length;
    }
    if (!any) break;
  }
  return [...chosen.values()];
}

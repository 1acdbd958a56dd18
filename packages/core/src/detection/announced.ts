/**
 * Announced changes that the claim alignment cannot link. A later fact that says something changed
 * ("flags moved off one vendor to another", "CI now uses hosted runners instead of our own pool")
 * often shares no slot with the earlier fact it updates: the measure is unnamed, the product is in
 * no list, the old value is a word of a longer name. Such a fact is asked about against the one
 * earlier fact of its scope it most plausibly updates: a probable-update question, never a
 * settlement, so a wrong guess costs one dismissed question and retires nothing.
 *
 * Precision first: the later fact must announce a change in a clause that is neither a plan nor a
 * condition (and no clause of it may be one), the earlier fact must state something current (no
 * plan of its own; a condition is a rule that holds now) and must not already say what the later
 * fact says now. Every earlier fact of the
 * scope that states a value the change names as replaced, with something more in common, is asked
 * about; failing those, the single best match of its scope by what the two name, with at least
 * MIN_SHARED things in common beyond their scope's own words. A tie asks nothing: the guess would
 * be a coin toss.
 */
import type { ConflictRecord, DetectorFact, RetirementRecord } from '@engram/db';
import { mentions, namesOtherItems, sameEnvironment, thingsOf, viewOf, type Claim, type FactView } from '../language/align.ts';
import { familyOf, MEASURE_VOCABULARY } from '../language/claims.ts';
import { GENERIC } from '../language/lexicon.ts';
import { explanationDate, PROBABLE_UPDATE_PREFIX } from './questions.ts';

/**
 * Things two facts must name in common (a value the later one names as replaced counts twice): one
 * shared word is any two facts of a scope; two is a subject and what is said of it.
 */
export const MIN_SHARED = 2;

/** The claims of a fact that announce a change it made (not a plan, not a denial). */
const changeClaims = (fact: DetectorFact): Claim[] => viewOf(fact).claims.filter((c) => !c.mode && (c.cue === 'change' || c.cue === 'correction' || (c.previous?.length ?? 0) > 0));

/** Does the fact announce a change, with no clause of it a plan or a condition? */
function announces(fact: DetectorFact): boolean {
  const view = viewOf(fact);
  if (view.hedged) return false;
  return changeClaims(fact).length > 0 || view.changed.size > 0;
}

/** A word of the fact's scope, or the component a segment of it names (`admin-api` in scope services/admin-api): every fact of the scope says it. */
const ownScope = (view: FactView, w: string) => view.scopeWords.has(w) || view.scopeSegments.includes(w);

/** What a fact names that can tell its scope's facts apart: not a common word, not its scope's own words. */
function distinctive(fact: DetectorFact): string[] {
  const view = viewOf(fact);
  return [...view.mentions].filter((w) => w.length > 2 && /[a-z]/.test(w) && !GENERIC.has(w) && !ownScope(view, w));
}

/** What a later fact's announced change is, read once and compared with each earlier fact of its scope. */
interface Change {
  view: FactView;
  claims: Claim[];
  /** Values it names as replaced. */
  replaced: Set<string>;
  /** What its changed clauses are about, beyond common and scope words. */
  about: string[];
  /** What else it names that tells facts apart. */
  words: string[];
  components: string[];
  /** What it says is no longer so ("the proxy is no longer deployed"): the old states it names, like replaced values. */
  dropped: string[][];
}

function changeOf(later: DetectorFact): Change {
  const view = viewOf(later);
  const claims = changeClaims(later);
  const replaced = new Set(claims.flatMap((c) => c.previous ?? []));
  return {
    view,
    claims,
    replaced,
    dropped: view.statements.filter((s) => !s.positive && s.cue).map((s) => s.target.filter((w) => !GENERIC.has(w) && !ownScope(view, w))).filter((t) => t.length > 0),
    about: [...view.changed].filter((w) => !GENERIC.has(w) && !ownScope(view, w)),
    words: distinctive(later).filter((w) => !replaced.has(w)),
    components: componentsOf(view),
  };
}

/** Does the fact state the value as holding now, not only in what it tells as history or plans ("changelog: bumped to 9.6.1")? */
const statesNow = (view: FactView, value: string) => mentions(view, value) && !view.claims.some((d) => d.mode && (d.values.includes(value) || d.previous?.includes(value)));

/**
 * Does the earlier fact state a value the change replaced as a value of what changed? Where it reads that value as
 * another measure's ("2 replicas" against "lowered the retry cap from 2 to 1"), it only happens to hold the same figure.
 */
function statesReplaced(view: FactView, change: Change, value: string): boolean {
  if (!statesNow(view, value)) return false;
  const holding = view.claims.filter((d) => d.values.includes(value));
  const replacing = change.claims.filter((c) => c.previous?.includes(value));
  // Only figures: a product named as replaced is the link itself, whatever kind the new one is read as.
  if (holding.length === 0 || !replacing.some((c) => QUANTITIES.has(familyOf(c.kind)))) return true;
  // The change's reading of its measure may miss ("bumped `MAX_INFLIGHT` from 4 to 6"): a measure the later fact
  // names in any words counts too.
  const named = (d: Claim) => [...(MEASURE_VOCABULARY.get(d.measure) ?? [])].some((w) => change.view.mentions.has(w) || change.claims.some((c) => c.anchors.includes(w)));
  // So may what it names as changed: the earlier fact naming it too is about it.
  const about = replacing.some((c) => c.anchors.some((a) => !GENERIC.has(a) && mentions(view, a)));
  return about || holding.some((d) => d.measure === '' || named(d) || replacing.some((c) => familyOf(d.kind) === familyOf(c.kind) && measuresMeet(c, d)));
}

/**
 * How strongly `earlier` reads as what the change updates: things in common, an old value it names
 * counting twice; 0 unless it names what the change is about (an old value, or what a changed
 * clause is about) and every setting a changed claim names (a change of `work_mem` is not one of
 * the table it is set on).
 */
function affinity(earlier: DetectorFact, change: Change): number {
  const view = viewOf(earlier);
  const oldValues = [...change.replaced].filter((v) => statesReplaced(view, change, v)).length;
  if (oldValues === 0 && !change.about.some((w) => mentions(view, w))) return 0;
  if (change.claims.some((c) => c.components.some((x) => x.includes('_') && !mentions(view, x)))) return 0;
  // Each naming tracked items of its own, none in common: two things (a finding AUD-311 against AUD-312, INC-12 against INC-14).
  if (namesOtherItems(change.view, view)) return 0;
  // So does each naming components of its own when the later names none of the earlier's ("kb-sync leaked
  // connections; fixed" is not an update of "bulk-import timed out"), however alike their words.
  // A setting's key (`ttl_seconds`) or a file is shared by many things: it does not make them one; nor does the
  // component its scope names (`leaderboards` in scope services/leaderboards), what every fact of the scope is about.
  const own = (v: FactView, components: readonly string[]) => thingsOf(components).filter((x) => !ownScope(v, x));
  const [later, earlierComponents] = [own(change.view, change.components), own(view, componentsOf(view))];
  if (later.length > 0 && earlierComponents.length > 0 && !later.some((x) => mentions(view, x)) && !earlierComponents.some((x) => mentions(change.view, x))) return 0;
  // Where the earlier fact states the measure that changed only as another setting (a minimum against a changed maximum)
  // and not the value replaced, it is not what changed.
  const measured = change.claims.filter((c) => c.measure !== '' && c.values.length > 0);
  const ofMeasure = (c: Claim) => view.claims.filter((d) => d.measure === c.measure);
  if (oldValues === 0 && measured.length > 0 && measured.every((c) => ofMeasure(c).length > 0 && !ofMeasure(c).some((d) => measuresMeet(c, d)))) return 0;
  // A thing it says is no longer so, named whole by the earlier fact, counts once more, as a value it names as replaced does.
  const shared = change.words.filter((w) => mentions(view, w)).length + change.dropped.filter((t) => t.every((w) => mentions(view, w))).length;
  // An earlier figure of the kind that changed ("500 MB" against "bumped to 2 GB"), or another value of the
  // measure that changed (a queue backend, an owner), is one more thing in common.
  const otherValueOf = (c: Claim) =>
    c.values.length > 0 &&
    view.claims.some((d) => !d.mode && d.values.length > 0 && familyOf(d.kind) === familyOf(c.kind) && measuresMeet(c, d) && !d.values.some((v) => c.values.includes(v)));
  const otherValue = change.claims.some(otherValueOf);
  // A change naming the old value ("from 2.3 to 2.4") updates what states that value, or another value of the measure it
  // names: a share of nothing named ("84%, up from 79%") has no other value.
  if (change.replaced.size > 0 && oldValues === 0 && !change.claims.some((c) => c.measure !== '' && (c.previous?.length ?? 0) > 0 && otherValueOf(c))) return 0;
  return shared + 2 * oldValues + (otherValue ? 1 : 0);
}

/**
 * Can the earlier claim `d` be another value of what the change's claim `c` measures? The same measure, or a quantity
 * whose measure one side leaves unnamed; a plain number the change leaves unnamed is no measure at all (a pool of 10
 * is no other value of an unnamed 2.5), and a minimum is no other value of a maximum.
 */
const measuresMeet = (c: Claim, d: Claim) =>
  !(c.extreme && d.extreme && c.extreme !== d.extreme) &&
  (c.measure !== '' ? d.measure === c.measure || (d.measure === '' && QUANTITIES.has(familyOf(c.kind))) : QUANTITIES.has(familyOf(c.kind)) && familyOf(c.kind) !== 'count');

/** The components a fact names (joined identifiers: `billing-api`, `pool_mode`). */
const componentsOf = (view: FactView) => [...new Set(view.claims.flatMap((c) => c.components))];

/** Kinds of value measured rather than named: two of them about one thing are an old and a new figure, not two things. */
const QUANTITIES = new Set(['duration', 'size', 'rate', 'percentage', 'count', 'money', 'time', 'date', 'version', 'port']);

/** Does `earlier` already say what `later` says holds now (every new value it states)? Then nothing is outdated. */
function alreadySays(earlier: DetectorFact, later: DetectorFact): boolean {
  const now = changeClaims(later).flatMap((c) => c.values);
  const view = viewOf(earlier);
  return now.length > 0 && now.every((v) => mentions(view, v));
}

/**
 * Does `later` name no new value and say one of `earlier`'s values again as unchanged ("the pool is still 40", "the TTL
 * stays 30 s")? Then what it changed is something else, and it confirms the earlier fact.
 */
function confirms(earlier: DetectorFact, later: DetectorFact): boolean {
  if (changeClaims(later).some((c) => c.values.length > 0)) return false;
  const stated = viewOf(earlier).claims.filter((d) => !d.mode && d.measure !== '');
  return viewOf(later).claims.some((c) => c.kept && !c.mode && stated.some((d) => d.measure === c.measure && familyOf(d.kind) === familyOf(c.kind) && c.values.some((v) => d.values.includes(v))));
}

/** Does `later` change something in one environment that `earlier` states of another ("in staging" against "in production")? */
function otherEnvironment(earlier: DetectorFact, later: DetectorFact): boolean {
  const envs = (claims: readonly Claim[]) => new Set(claims.flatMap((c) => (c.env ? [c.env] : [])));
  // Not the date of the change: it says when, and may sit nearer another environment ("on Oct 30 as the rehearsal for prod").
  const changed = envs(changeClaims(later).filter((c) => c.kind !== 'date'));
  const stated = envs(viewOf(earlier).claims);
  return changed.size > 0 && stated.size > 0 && ![...changed].some((e) => [...stated].some((s) => sameEnvironment(e, s)));
}

const clip = (text: string) => (text.length > 120 ? `${text.slice(0, 117)}…` : text);

/**
 * For each trigger that announces a change, the probable-update question about the earlier current
 * fact of its scope it most plausibly updates, unless the alignment already linked it (`linked`: ids of
 * facts a draft or a settlement of this run holds).
 */
export function announcedUpdates(
  facts: readonly DetectorFact[],
  triggerIds: ReadonlySet<string>,
  isCurrent: (fact: DetectorFact) => boolean,
  linked: ReadonlySet<string>,
): ConflictRecord[] {
  const out: ConflictRecord[] = [];
  // A change that already settled what it replaced (in this run or an earlier one) has found what it updates.
  const settled = new Set(facts.flatMap((f) => (f.retired_for_fact_id ? [f.retired_for_fact_id] : [])));
  for (const later of facts) {
    if (!triggerIds.has(later.id) || linked.has(later.id) || settled.has(later.id) || !isCurrent(later) || !announces(later)) continue;
    const change = changeOf(later);
    let best: DetectorFact[] = [];
    let bestScore = MIN_SHARED;
    // Facts stating a value the change replaced, with something more in common: each is asked about.
    const stating: DetectorFact[] = [];
    for (const earlier of facts) {
      if (earlier.id === later.id || earlier.scope !== later.scope || earlier.lineage_id === later.lineage_id) continue;
      if (earlier.committed_at.getTime() >= later.committed_at.getTime() || !isCurrent(earlier) || viewOf(earlier).planned || viewOf(earlier).logEntry) continue;
      const score = affinity(earlier, change);
      if (score > MIN_SHARED && [...change.replaced].some((v) => statesReplaced(viewOf(earlier), change, v))) stating.push(earlier);
      if (score < bestScore) continue;
      if (score > bestScore) [best, bestScore] = [[], score];
      best.push(earlier);
    }
    // Else the one that matches best; a tie is a coin toss.
    if (stating.length > 0) best = stating;
    else if (best.length > 1) continue;
    for (const earlier of best) {
      if (alreadySays(earlier, later) || confirms(earlier, later) || otherEnvironment(earlier, later)) continue;
      out.push({
        kind: 'probable_update',
        detectedBy: 'narrative_rules',
        severity: 'medium',
        factIds: [earlier.id, later.id],
        question: `${PROBABLE_UPDATE_PREFIX}is "${clip(earlier.content)}" still true, now that a later fact says "${clip(later.content)}"?`,
        explanation: `A later fact (${explanationDate(later.committed_at)}) announces a change in scope "${later.scope}"; ${stating.length > 0 ? 'this earlier fact' : "of that scope's earlier facts, the one"} (${explanationDate(earlier.committed_at)}) ${stating.length > 0 ? 'states the value it replaces and' : 'naming most of what it names'} stays current until someone says whether it still holds.`,
      });
    }
  }
  return out;
}

/**
 * A step's outcome (both tiers) with the questions about announced changes neither tier linked: a
 * fact either tier put in a conflict or a settlement is left to that tier.
 */
export function withAnnouncedUpdates(
  outcome: { retirements: RetirementRecord[]; conflicts: ConflictRecord[] },
  facts: readonly DetectorFact[],
  triggerIds: ReadonlySet<string>,
): { retirements: RetirementRecord[]; conflicts: ConflictRecord[] } {
  const retired = new Set(outcome.retirements.map((r) => r.factId));
  // A fact a conflict holds with only later facts has found nothing it updates: not linked.
  const at = new Map(facts.map((f) => [f.id, f.committed_at.getTime()]));
  const later = (c: ConflictRecord) => c.factIds.filter((id) => c.factIds.some((o) => (at.get(o) ?? 0) < (at.get(id) ?? 0)));
  const linked = new Set([...outcome.conflicts.flatMap(later), ...outcome.retirements.flatMap((r) => [r.factId, r.byFactId])]);
  const asked = announcedUpdates(facts, triggerIds, (f) => f.valid_until === null && !retired.has(f.id), linked);
  return asked.length === 0 ? outcome : { retirements: outcome.retirements, conflicts: [...outcome.conflicts, ...asked] };
}

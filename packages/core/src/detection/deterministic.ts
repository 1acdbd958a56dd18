/**
 * The deterministic tiers over claims (SPEC §6). For every claim a run's trigger facts make, the
 * claims about the same thing (see language/align.ts) are read as a timeline, oldest first:
 *
 * 1. **Settling, never wrong.** An earlier fact's window is closed with nothing raised only when
 *    the later fact corrects its lineage, names the earlier value as the one it replaces by an
 *    explicit construction ("from 3 to 5", "replaced X with Y", "Y instead of X", "now Y (was X)"),
 *    or comes from the same agent within a 30-minute session; never a fact that states several
 *    things, and never by a plan or a condition.
 * 2. **Probable updates.** A later fact that announces a change without naming the old value
 *    ("bumped the pool to 40", "switched the queue to SQS", "dropped Sentry"), or one that names it
 *    in a fact stating several things, raises a `probable_update` question for people: is the
 *    earlier fact still true? Queries rank the later fact first meanwhile.
 *    A change announced in words no slot links asks about the one earlier fact of its scope it most
 *    plausibly updates, once both tiers are done (announced.ts).
 * 3. **Conflicts.** What still disagrees among current facts is one conflict: a reversal when the
 *    latest value is one the story had moved away from (A → B → A), stale when an old version
 *    claim outlives newer ones by a week, cross-scope across scopes, else a value mismatch or an
 *    ambiguity.
 *
 * Pure functions: the run gives them facts and applies what they return.
 */
import type { ConflictRecord, DetectorFact, RetirementRecord } from '@engram/db';
import { covers, disagree, mentions, namesReplaced, relatedThing, sameThing, singular, takesOverRole, thingsOf, viewOf, type Claim } from '../language/align.ts';
import { familyOf } from '../language/claims.ts';
import { byValue, explanationDate, probableUpdateQuestion, valueQuestion } from './questions.ts';

/** A version claim this much older than the newest disagreeing one is stale rather than merely different. */
export const STALE_AFTER_MS = 7 * 86_400_000;
/** Same agent, this close together: one working session refining its own notes. */
export const SESSION_WINDOW_MS = 30 * 60_000;
/** A timeline is read from its newest claims only: a crowded thing cannot stall a run. */
export const MAX_CLAIMS_PER_SLOT = 100;
/** Most facts one conflict names: the newest disagreeing ones (a human reads them all). */
export const MAX_CONFLICT_FACTS = 20;

export interface DeterministicOutcome {
  retirements: RetirementRecord[];
  conflicts: ConflictRecord[];
}

const time = (c: Claim) => c.at;
const byTime = (a: Claim, b: Claim) => time(a) - time(b) || a.fact.id.localeCompare(b.fact.id) || a.index - b.index;
const NUMERIC = new Set(['duration', 'size', 'rate', 'percentage', 'count', 'number', 'port', 'money']);

/**
 * Why `newer` settles `older` with nothing raised, or null. Only what cannot be a mistake: the
 * same lineage, an explicit replacement of the older fact's own value, or the same agent refining
 * its own note within a session; never a fact that states several things, never by a plan.
 */
export function settles(older: Claim, newer: Claim): string | null {
  const o = older.fact;
  const n = newer.fact;
  if (time(newer) < time(older) || o.id === n.id) return null;
  // A person restored the older fact after this very settlement: the pair is theirs to settle.
  if (o.retired_by === 'restored' && o.retired_for_fact_id === n.id) return null;
  if (o.lineage_id === n.lineage_id) return 'the later fact corrects its lineage';
  if (newer.mode || older.mode) return null;
  // Whether the later fact speaks to all the earlier one states is asked last: it compares every claim of both.
  const reason = newer.values.length > 0 && namesReplaced(older, newer) ? 'the later fact names this value as the one it replaces'
    : sameSession(older, newer) && disagree(older, newer) ? 'the same agent refined its own note within a working session'
    : null;
  return reason && covers(n, o) ? reason : null;
}

/** Does the earlier claim's fact name what the change is said of (its own words and components beyond its scope's), or is the change said of nothing named? */
function namesWhatChanged(older: Claim, newer: Claim): boolean {
  // Not a file or a key it is set in (a Dockerfile, `go.mod`): many things are.
  const things = thingsOf([...newer.specificAnchors, ...newer.components]).filter((x) => !newer.view.scopeWords.has(x));
  return things.length === 0 || things.some((x) => mentions(older.view, x));
}

/**
 * Does another claim of `own`'s fact, about the thing `other` is about, agree with `other`? Not in a fact announcing a
 * change: what else it names may be what it replaced ("now on Kafka; the old SQS queue was emptied").
 */
const alsoSays = (own: Claim, other: Claim) =>
  !own.view.announces &&
  own.view.claims.every((c) => !c.cue) &&
  own.view.claims.some((c) => c !== own && c.values.length > 0 && !c.mode && !c.negated && !c.additive && sameThing(c, other) && !disagree(c, other));

/**
 * The same agent, within a working session of its notes, and neither note a plan, work in progress or a condition in any
 * clause: "trying to size the pool at 20" and then "at 30" is still a search, not a refinement.
 */
const sameSession = (older: Claim, newer: Claim) =>
  older.fact.agent_id === newer.fact.agent_id && time(newer) - time(older) <= SESSION_WINDOW_MS && !older.view.hedged && !newer.view.hedged;

/**
 * Does `newer` say `older` probably changed: it names the old value, announces a change, or is the
 * same agent's refinement within a session, and is neither a plan nor a condition?
 */
export function probablyUpdates(older: Claim, newer: Claim): boolean {
  if (newer.mode || older.mode || time(newer) < time(older)) return false;
  if (namesReplaced(older, newer)) return true;
  return (newer.cue === 'change' || newer.cue === 'correction' || announcesElsewhere(newer) || sameSession(older, newer)) && disagree(older, newer);
}

/**
 * Is the newer claim a later value of one setting key, a week or more after the older, in its scope, with no history in
 * the timeline? Settings change and agents do not always say so: asked as a probable update, not as two current facts
 * disagreeing. (Every value in other words, in any scope, was tried: false alarms on four dev sets.)
 */
const restatesLater = (older: Claim, newer: Claim, timeline: readonly Claim[]) =>
  older.setting !== undefined && older.setting === newer.setting && older.fact.scope === newer.fact.scope && time(newer) - time(older) >= STALE_AFTER_MS &&
  !older.mode && !newer.mode && timeline.every((c) => c.fact.valid_until === null);

/** Is the newer claim a later version of the product than every one the older names? Versions move forward. */
const upgrades = (older: Claim, newer: Claim) =>
  newer.kind === 'version' && older.kind === 'version' && older.values.length > 0 && newer.values.length > 0 && newer.values.every((v) => older.values.every((o) => laterVersion(v, o)));

/** Is version `a` later than `b` ("1.31" after "1.29", "16.2" after "16")? Only dotted numbers compare. */
function laterVersion(a: string, b: string): boolean {
  if (!/^\d+(?:\.\d+)*$/.test(a) || !/^\d+(?:\.\d+)*$/.test(b)) return false;
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return false;
}

/**
 * Does another clause of the claim's fact announce the change ("no longer runs on Lambda; it is a
 * container on Fargate", "the webhook is now /v2, retried 5 times") or name the value it replaced ("interval: 15s → 10s
 * (`PING_INTERVAL_S=10`)"), with no clause of it a plan or a condition?
 */
function announcesElsewhere(claim: Claim): boolean {
  const view = claim.view;
  return !view.hedged && (view.announces || view.claims.some((c) => c !== claim && !c.mode && (c.cue === 'change' || c.cue === 'correction' || (c.previous?.length ?? 0) > 0)));
}

/** The claims of a run's facts, indexed so each trigger claim meets only plausible peers. */
export interface SlotIndex {
  readonly byKey: ReadonlyMap<string, readonly Claim[]>;
}

const kindKey = (c: Claim) => `${familyOf(c.kind)}:${c.measure}`;
const isBare = (c: Claim) => c.anchors.length === 0 && c.components.length === 0;
/**
 * Keys a claim is indexed under: its measure with each thing it names, or with its scope when it names none;
 * and with its whole scope, where one thing is often named in other words ("payouts" / "payout").
 */
function indexKeys(c: Claim): string[] {
  // A version is of its product, whatever else its clause names.
  if (c.kind === 'version') return [`${kindKey(c)}@${c.of ?? ''}`];
  // A name said to take over a role may be a person's: it meets people too.
  const kinds = takesOverRole(c) ? [kindKey(c), `person:${c.measure}`] : [kindKey(c)];
  return [...(c.setting ? [`setting:${c.setting}`] : []), ...kinds.flatMap((k) => [...(isBare(c) ? [`${k}#${c.fact.scope.split('/')[0]}`] : [...c.anchors, ...c.components].flatMap(forms).map((a) => `${k}@${a}`)), `${k}%${c.fact.scope}`])];
}
/** A thing named, in the singular too, and a path also by its last segment: "`services/ledger`" meets "the ledger service". */
const forms = (a: string): string[] => {
  const last = /^[\w.-]+\/([a-z][\w-]*)$/.exec(a)?.[1];
  return [...new Set([a, singular(a), ...(last ? [singular(last)] : [])])];
};
/** A claim's family in its scope, whatever its measure: where a replacement naming its old value and no measure looks. */
const familyScopeKey = (c: Claim) => `${familyOf(c.kind)}%${c.fact.scope}`;
const scopeKey = (c: Claim) => `${kindKey(c)}%${c.fact.scope}`;
/** Keys a claim looks its peers up by: its own, its scope's words when it names nothing, and the bare claims of its scope. */
function lookupKeys(c: Claim): string[] {
  const k = kindKey(c);
  const scope = [...c.view.scopeWords].map((w) => `${k}@${w}`);
  return [...new Set([...indexKeys(c), `${k}#${c.fact.scope.split('/')[0]}`, ...(isBare(c) ? scope : [])])];
}

/** Claims indexed between two of indexingSteps' pauses. */
const INDEXING_STEP_CLAIMS = 500;

/** The index of a run's claims, in steps that pause every INDEXING_STEP_CLAIMS claims (a run lets requests in between). */
export function* indexingSteps(facts: readonly DetectorFact[]): Generator<void, SlotIndex> {
  const byKey = new Map<string, Claim[]>();
  let n = 0;
  for (const fact of facts) {
    for (const claim of viewOf(fact).claims) {
      if (claim.values.length === 0 && !claim.previous) continue;
      for (const key of [...indexKeys(claim), familyScopeKey(claim)]) {
        const list = byKey.get(key);
        if (list) list.push(claim);
        else byKey.set(key, [claim]);
      }
      if (++n % INDEXING_STEP_CLAIMS === 0) yield;
    }
  }
  return { byKey };
}

export function indexSlots(facts: readonly DetectorFact[]): SlotIndex {
  return inOnePiece(indexingSteps(facts));
}

/**
 * The claims a trigger claim is checked against (each once): those sharing one of its lookup keys;
 * `loose`, also those of a measure no word named (an explicit replacement's other side).
 */
export function candidatesOf(trigger: Claim, index: SlotIndex, loose = false): Set<Claim> {
  const out = new Set<Claim>();
  // An explicit replacement's other side must share a word with it, not only a scope; unless it names nothing but
  // its scope ("raised the TTL from 5 to 10 min"): then the scope is what it is about.
  const keys = loose && !isBare(trigger) ? lookupKeys(trigger).filter((k) => k !== scopeKey(trigger)) : lookupKeys(trigger);
  if (loose) {
    const family = familyOf(trigger.kind);
    // "Moved X from 04:00 to 05:30" names no measure: the old value it names is the link, within its scope. Not a bare
    // count or share: many things of a scope hold a 2 or a 50%.
    if (trigger.measure === '' && (trigger.previous?.length ?? 0) > 0 && family !== 'count' && family !== 'percentage') keys.push(familyScopeKey(trigger));
    for (const key of lookupKeys({ ...trigger, measure: '' })) keys.push(key);
    const words = new Set([...trigger.view.scopeWords, ...(trigger.qualities ?? []), ...trigger.view.mentions]);
    for (const w of words) keys.push(`${family}:${trigger.measure}@${w}`, `${family}:@${w}`);
  }
  for (const key of keys) for (const c of index.byKey.get(key) ?? []) out.add(c);
  return out;
}

/** What analysing a trigger costs, in claims met: a count, so a run splits its work the same way on any machine. */
export function analysisCost(trigger: DetectorFact, index: SlotIndex): number {
  let met = 0;
  for (const claim of viewOf(trigger).claims) for (const key of lookupKeys(claim)) met += index.byKey.get(key)?.length ?? 0;
  return met;
}

function inOnePiece<T>(steps: Generator<void, T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** Comparisons analysisSteps makes between two of its pauses. */
const COMPARISONS_PER_PAUSE = 1_000;

export function analyzeSlots(facts: readonly DetectorFact[], triggerIds: ReadonlySet<string>, index: SlotIndex = indexSlots(facts)): DeterministicOutcome {
  return inOnePiece(analysisSteps(facts, triggerIds, index));
}

/**
 * The tiers in steps, pausing every COMPARISONS_PER_PAUSE comparisons so a run can let requests
 * in between. Nothing the analysis reads changes while it pauses, so the outcome is the same.
 */
export function* analysisSteps(facts: readonly DetectorFact[], triggerIds: ReadonlySet<string>, index: SlotIndex): Generator<void, DeterministicOutcome> {
  let comparisons = 0;
  const pauseDue = (made: number) => {
    comparisons += made;
    if (comparisons < COMPARISONS_PER_PAUSE) return false;
    comparisons = 0;
    return true;
  };
  const timelines: Claim[][] = [];
  const seen = new Set<string>();
  for (const fact of facts) {
    if (!triggerIds.has(fact.id) || fact.valid_until !== null) continue;
    for (const trigger of viewOf(fact).claims) {
      if (trigger.values.length === 0 && !trigger.previous) continue;
      // A timeline is its newest claims: candidates are met newest first, until it has them all.
      const met = [...candidatesOf(trigger, index)].sort(byTime);
      const peers: Claim[] = [];
      let scanned = 0;
      while (scanned < met.length && peers.length < MAX_CLAIMS_PER_SLOT) {
        const c = met[met.length - ++scanned]!;
        if (c === trigger || (c.fact.id !== fact.id && sameThing(trigger, c))) peers.push(c);
      }
      if (pauseDue(scanned)) yield;
      if (peers.length < 2) continue;
      const timeline = peers.reverse();
      const key = timeline.map((c) => `${c.fact.id}/${c.index}`).join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      timelines.push(timeline);
    }
  }

  // 1. Settle, timeline by timeline, until nothing changes; only pairs with a trigger, or after one, are judged again.
  const retiredBy = new Map<string, { by: Claim; reason: string }>();
  const isCurrent = (c: Claim) => c.fact.valid_until === null && !retiredBy.has(c.fact.id);
  for (let pass = 0, changed = true; changed && pass < 4; pass++) {
    changed = false;
    for (const timeline of timelines) {
      const since = Math.min(...timeline.filter((c) => triggerIds.has(c.fact.id)).map(time));
      for (let i = 1; i < timeline.length; i++) {
        const newer = timeline[i]!;
        if (!isCurrent(newer) || (time(newer) < since && !triggerIds.has(newer.fact.id))) continue;
        for (let j = 0; j < i; j++) {
          const older = timeline[j]!;
          if (!isCurrent(older) || older.fact.id === newer.fact.id || !(disagree(older, newer) || namesReplaced(older, newer))) continue;
          const reason = settles(older, newer);
          if (reason) {
            retiredBy.set(older.fact.id, { by: newer, reason });
            changed = true;
          }
        }
        if (pauseDue(i)) yield;
      }
    }
  }

  // 2. What still disagrees: one conflict per timeline; probable updates of the latest claim asked about apart.
  const drafts: ConflictRecord[] = [];
  for (const timeline of timelines) {
    const current = timeline.filter(isCurrent);
    if (current.length < 2) continue;
    const latest = current.at(-1)!;
    const plain = new Set<Claim>();
    const probable: [Claim, Claim][] = [];
    // Claims a later one said it changed, with no question about them otherwise (the change was not the
    // latest word: "raised to 40", then "is 20" again). They are asked about with their first change,
    // as they were when that change was committed, beside whatever conflict the rest raises.
    const unasked: [Claim, Claim][] = [];
    for (let i = 0; i < current.length; i++) {
      // Later claims saying the older one changed. A claim after them agreeing with one of them confirms
      // the change ("upgraded to 3.12", then "builds on 3.12.4"): the question stays the probable update.
      const updaters: Claim[] = [];
      for (let j = i + 1; j < current.length; j++) {
        const [older, newer] = [current[i]!, current[j]!];
        if (older.fact.id === newer.fact.id) continue;
        if (!triggerIds.has(older.fact.id) && !triggerIds.has(newer.fact.id)) continue;
        // Peers of one trigger can be two things: each pair must be about one thing itself.
        if (!sameThing(older, newer)) continue;
        // One fact states the other's value too, of another part of the thing ("hourly deltas, and the full rebuild daily"):
        // the two say the same of it, nothing in either is outdated.
        if (alsoSays(older, newer) || alsoSays(newer, older)) continue;
        // A later version of the product with no change said is an upgrade too, unless a change already says so.
        if (probablyUpdates(older, newer) || (updaters.length === 0 && (upgrades(older, newer) || restatesLater(older, newer, timeline)) && disagree(older, newer))) {
          updaters.push(newer);
          if (newer === latest) probable.push([older, newer]);
        } else if (disagree(older, newer)) {
          const confirmed = updaters.find((u) => !disagree(u, newer) && sameThing(u, newer));
          if (confirmed && newer === latest) probable.push([older, confirmed]);
          else if (!confirmed) plain.add(older).add(newer);
        }
      }
      if (updaters.length > 0 && !probable.some(([o]) => o === current[i])) unasked.push([current[i]!, updaters[0]!]);
      if (pauseDue(current.length)) yield;
    }
    const raised = new Set<string>();
    if (new Set([...plain].map((c) => c.fact.id)).size >= 2) {
      const conflict = classify([...plain].sort(byTime), timeline);
      drafts.push(conflict);
      for (const id of conflict.factIds) raised.add(id);
    }
    for (const [older, newer] of [...probable.filter(([o, n]) => !raised.has(o.fact.id) || !raised.has(n.fact.id)), ...unasked]) {
      drafts.push({
        kind: 'probable_update',
        detectedBy: NUMERIC.has(older.kind) ? 'tier2_numeric' : 'tier0_entity',
        severity: 'medium',
        factIds: [older.fact.id, newer.fact.id],
        question: probableUpdateQuestion(older, newer),
        explanation: `A later fact (${explanationDate(newer.fact.committed_at)}) says it changed: "${clip(newer.fact.content)}". The earlier fact (${explanationDate(older.fact.committed_at)}) stays current until someone says whether it still holds.`,
      });
    }
  }

  // 3. An explicit replacement whose claims are not one thing by the strict test ("raised DB_POOL_MAX for orders-api
  // from 20 to 40" against "orders-api DB pool size: 20") is still a probable update: the old value named is the link.
  const asked = new Set(drafts.flatMap((d) => (d.kind === 'probable_update' ? [d.factIds.join('|')] : [])));
  for (const fact of facts) {
    if (!triggerIds.has(fact.id) || fact.valid_until !== null || retiredBy.has(fact.id)) continue;
    for (const newer of viewOf(fact).claims) {
      if (!(newer.previous?.length || newer.cue === 'change') || newer.mode) continue;
      const named: Claim[] = [];
      const weak: Claim[] = [];
      for (const older of candidatesOf(newer, index, true)) {
        if (older.fact.id === fact.id || !isCurrent(older) || time(older) > time(newer) || older.mode) continue;
        if (sameThing(older, newer) || !relatedThing(older, newer) || asked.has(`${older.fact.id}|${fact.id}`)) continue;
        if (namesReplaced(older, newer)) named.push(older);
        // Without an old value named, a change said of the same measure in the same scope ("jobs now run on SQS"), of
        // something the earlier fact names too (moving the backup's hour is no change of the export it waits for).
        else if (!newer.previous?.length && newer.measure !== '' && older.measure === newer.measure && older.fact.scope === fact.scope && namesWhatChanged(older, newer) && disagree(older, newer)) weak.push(older);
      }
      // Of several such facts, the change is asked of those naming most of what it names: one change replaced one thing.
      const mine = viewOf(fact).mentions;
      const shared = new Map(weak.map((o) => [o, [...o.view.mentions].filter((w) => mine.has(w)).length]));
      const most = Math.max(0, ...shared.values());
      for (const older of [...named, ...weak.filter((o) => shared.get(o) === most)]) {
        const key = `${older.fact.id}|${fact.id}`;
        if (asked.has(key)) continue;
        asked.add(key);
        const how = named.includes(older) ? 'naming the earlier value as the one it replaces' : 'a change of what the earlier fact states';
        drafts.push({
          kind: 'probable_update',
          detectedBy: NUMERIC.has(older.kind) ? 'tier2_numeric' : 'tier0_entity',
          severity: 'medium',
          factIds: [older.fact.id, fact.id],
          question: probableUpdateQuestion(older, newer),
          explanation: `A later fact (${explanationDate(fact.committed_at)}) says "${clip(fact.content)}", ${how}.`,
        });
      }
      if (pauseDue(1)) yield;
    }
  }

  // 4. A value an earlier fact named as replaced, said again later ("replaced Fluent Bit with Vector", then "logs are
  // shipped by fluent-bit"): the team went back, or the later fact repeats what no longer holds. Either way, ask.
  for (const fact of facts) {
    if (!triggerIds.has(fact.id) || fact.valid_until !== null) continue;
    for (const trigger of viewOf(fact).claims) {
      if (trigger.mode || trigger.negated || (trigger.values.length === 0 && !trigger.previous?.length)) continue;
      for (const other of candidatesOf(trigger, index, true)) {
        const [earlier, later] = time(other) < time(trigger) ? [other, trigger] : [trigger, other];
        if (other.fact.id === fact.id || earlier.mode || later.mode || later.negated || !isCurrent(earlier) || !isCurrent(later)) continue;
        if (!namesReplaced(later, earlier) || !disagree(earlier, later) || !relatedThing(earlier, later)) continue;
        const key = `${earlier.fact.id}|${later.fact.id}`;
        if (asked.has(key)) continue;
        asked.add(key);
        drafts.push({
          kind: 'reversal',
          detectedBy: 'narrative_rules',
          severity: 'high',
          factIds: [earlier.fact.id, later.fact.id],
          question: valueQuestion('reversal', [earlier, later], { ...earlier, display: later.display }),
          explanation: `An earlier fact (${explanationDate(earlier.fact.committed_at)}) replaced "${later.display.join(', ')}" with "${earlier.display.join(', ')}"; a later fact (${explanationDate(later.fact.committed_at)}) says "${clip(later.fact.content)}".`,
        });
      }
      if (pauseDue(1)) yield;
    }
  }

  const conflicts = mergeDrafts(drafts);
  return {
    retirements: [...retiredBy].map(([factId, { by, reason }]) => ({ factId, byFactId: by.fact.id, at: by.fact.committed_at, reason })),
    conflicts,
  };
}

const clip = (text: string) => (text.length > 160 ? `${text.slice(0, 157)}…` : text);

/**
 * Each value of a disagreement once, in the order it was first stated, with where and when the
 * facts stating it were committed: several facts holding one value are one side of the
 * disagreement, not a list of repeats ("30 s" and "30 seconds" are one value).
 */
function valuesOnce(claims: readonly Claim[]): string[] {
  return byValue(claims).map((same) => {
    const places = [...new Set(same.map((c) => `${c.fact.scope}, ${explanationDate(c.fact.committed_at)}`))];
    const facts = new Set(same.map((c) => c.fact.id)).size;
    return `"${same[0]!.display.join(', ')}" (${facts > 1 ? `${facts} facts: ` : ''}${places.join('; ')})`;
  });
}

/** Kind, tier, severity, facts and question of one timeline's disagreement. */
function classify(allInvolved: Claim[], timeline: readonly Claim[]): ConflictRecord {
  const involved = allInvolved.slice(-MAX_CONFLICT_FACTS);
  const latest = involved.at(-1)!;
  const oldest = involved[0]!;
  // A → B → A: the latest value was held before, then left for another.
  const earlierSame = timeline.find(
    (c) =>
      time(c) < time(latest) &&
      c.fact.id !== latest.fact.id &&
      c.values.length > 0 &&
      !disagree(c, latest) &&
      timeline.some((m) => time(m) > time(c) && time(m) < time(latest) && disagree(m, latest)),
  );
  // The earlier side is named too, settled or not: the question tells the whole story.
  const factIds = [...new Set([...(earlierSame ? [earlierSame.fact.id] : []), ...involved.map((c) => c.fact.id)])];
  const scopes = new Set(involved.map((c) => c.fact.scope));
  let kind: ConflictRecord['kind'];
  let detectedBy: ConflictRecord['detectedBy'];
  if (earlierSame) [kind, detectedBy] = ['reversal', 'narrative_rules'];
  else if (latest.kind === 'version' && time(latest) - time(oldest) >= STALE_AFTER_MS) [kind, detectedBy] = ['stale', 'narrative_rules'];
  else if (scopes.size > 1) [kind, detectedBy] = ['cross_scope', 'tier2b_cross_scope'];
  else if (NUMERIC.has(latest.kind)) [kind, detectedBy] = ['value_mismatch', 'tier2_numeric'];
  else if (latest.kind === 'technology' || latest.kind === 'boolean') [kind, detectedBy] = ['ambiguity', 'tier0_entity'];
  else [kind, detectedBy] = ['value_mismatch', 'tier0_entity'];
  const shown = valuesOnce(involved).slice(-6);
  const explanation =
    kind === 'reversal'
      ? `The story moved away from "${earlierSame!.display.join(', ')}" and came back to it; current facts say ${shown.join(' and ')}.`
      : kind === 'stale'
        ? `An old version claim is still current next to newer ones: ${shown.join(' vs ')}.`
        : `Current facts state different values: ${shown.join(' vs ')}.`;
  return { kind, detectedBy, severity: kind === 'stale' ? 'medium' : 'high', factIds, question: valueQuestion(kind, involved, earlierSame), explanation };
}

/** One conflict per confusion: a draft whose facts all belong to a larger draft is dropped (a probable update only by another). */
function mergeDrafts(drafts: ConflictRecord[]): ConflictRecord[] {
  const kept: ConflictRecord[] = [];
  // Two facts another timeline asks a probable update about (one settings key, read in two measures): the later
  // replaced the earlier, and that one question says so; "which is right?" about the same two would ask it again.
  const pairs = new Set(drafts.filter((d) => d.kind === 'probable_update').map((d) => [...d.factIds].sort().join('|')));
  const asked = (d: ConflictRecord) => d.kind !== 'probable_update' && pairs.has([...new Set(d.factIds)].sort().join('|'));
  for (const d of [...drafts].sort((a, b) => b.factIds.length - a.factIds.length)) {
    if (asked(d)) continue;
    // A probable update is its own question (is the older fact still true?): a conflict holding its pair does not ask it.
    if (kept.some((k) => (d.kind !== 'probable_update' || k.kind === d.kind) && d.factIds.every((id) => k.factIds.includes(id)))) continue;
    kept.push(d);
  }
  return kept;
}

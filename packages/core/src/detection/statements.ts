/**
 * The tiers over statements rather than values (SPEC §6):
 *
 * - **Polarity**: a denial ("there is no staging environment yet", "Kevin has never apologized to
 *   Rachael") meets an assertion of what it denies ("staging runs on Fly in ams", "Kevin
 *   apologized to Rachael in person"). The later one settles the earlier when it announces a
 *   change ("no longer", "now"); otherwise both are current and the pair is an ambiguity.
 * - **Deletion requests**: "forget the note about the old VPN" retires the earlier facts that
 *   name what it names.
 * - **Stale derived claims**: a fact that names what it depends on ("signed with the security
 *   lead's key", "until the migration finishes") becomes doubtful when a later fact changes that
 *   ("Marta took over as security lead", "the migration finished"): a `stale` conflict.
 *
 * Pure functions over stored statements (see facts/meaning.ts); the run applies what they return.
 */
import type { ConflictRecord, DetectorFact, FactEntity, RetirementRecord } from '@engram/db';
import { componentsApart, cuesOfFact, SESSION_WINDOW_MS } from './claims.ts';
import { perFact, wordSet } from './per-fact.ts';
import { explanationDate, statementQuestion } from './questions.ts';

interface StatementClaim {
  fact: DetectorFact;
  positive: boolean;
  /** Nouns and names of the clause. */
  nouns: ReadonlySet<string>;
  /** What they also stand for (a technology's category, a compound's initials). */
  aliases: ReadonlySet<string>;
  verbs: ReadonlySet<string>;
  /** Nouns of what a denial denies (all nouns of an assertion). */
  targetNouns: string[];
  targetVerbs: string[];
  about: ReadonlySet<string>;
  /** Denials: the verb denied and the head of its object. */
  verb?: string;
  head?: string;
  /** Proper names among what it denies or asserts. */
  names: ReadonlySet<string>;
}

const isVerb = (w: string) => w.startsWith('v:');
const isAlias = (w: string) => w.endsWith('=');

/** A fact's statements and what it asserts, read once per fact (a run analyses its triggers in steps over the same facts). */
export const readStatements = perFact((fact): { all: StatementClaim[]; asserted: StatementClaim[] } => {
  const all = statementsOfFact(fact);
  const positive = all.filter((s) => s.positive);
  // What a fact asserts, all clauses together: "worked with Michael since they met" asserts a meeting.
  return { all, asserted: positive.length === 0 ? [] : [mergeStatements(positive)] };
});

function statementsOfFact(fact: DetectorFact): StatementClaim[] {
  if (fact.entities.some((e) => e.type === 'deletion')) return [];
  return fact.entities
    .filter((e): e is FactEntity & { value: boolean } => e.type === 'statement' && typeof e.value === 'boolean')
    .map((e) => {
      const frame = e.frame ?? [];
      const target = e.target ?? [];
      return {
        fact,
        positive: e.value,
        nouns: wordSet(frame.filter((w) => !isVerb(w) && !isAlias(w))),
        aliases: wordSet(frame.filter(isAlias).map((w) => w.slice(0, -1))),
        verbs: wordSet(frame.filter(isVerb)),
        targetNouns: target.filter((w) => !isVerb(w)),
        targetVerbs: target.filter(isVerb),
        about: wordSet(e.about ?? []),
        names: wordSet(e.names ?? []),
        ...(e.verb ? { verb: e.verb } : {}),
        ...(e.head ? { head: e.head } : {}),
      };
    });
}

/** Verbs of merely using or having something (by concept). */
const USE_VERBS = new Set(['use', 'have', 'tri', 'tri', 'instal', 'own', 'adopt', 'integr', 'run', 'touch', 'set']);

/** One assertion of all of a fact's asserting clauses. */
function mergeStatements(list: readonly StatementClaim[]): StatementClaim {
  // One clause's sets are the merge's as they are (readings are never changed).
  const merged = (words: (s: StatementClaim) => ReadonlySet<string>) => (list.length === 1 ? words(list[0]!) : wordSet(list.flatMap((s) => [...words(s)])));
  return {
    fact: list[0]!.fact,
    positive: true,
    nouns: merged((s) => s.nouns),
    aliases: merged((s) => s.aliases),
    verbs: merged((s) => s.verbs),
    targetNouns: list.flatMap((s) => s.targetNouns),
    targetVerbs: list.flatMap((s) => s.targetVerbs),
    about: merged((s) => s.about),
    names: merged((s) => s.names),
  };
}

/**
 * Heads that say little by themselves in a denial: "no Wise *integration*", "no staging
 * *environment*". What they head must still be named by the assertion.
 */
const LIGHT_HEADS = new Set(['session', 'class', 'lesson', 'meet', 'appoint', 'event', 'integr', 'environ', 'environment', 'setup', 'support', 'usag', 'access', 'instanc', 'version', 'featur', 'option', 'plan', 'account', 'connect', 'step', 'process']);

/**
 * Does the denial `n` deny what the assertion `p` asserts? Every noun it denies (light heads
 * aside) is named by the assertion; with a single such noun the verb must agree too ("never
 * deploy on Fridays" does not meet "Friday deploys are blocked"); and where both name their
 * subjects, the subjects meet.
 */
export function denies(n: StatementClaim, p: StatementClaim): boolean {
  if (n.positive || !p.positive) return false;
  const specific = n.targetNouns.filter((w) => !LIGHT_HEADS.has(w));
  if (specific.length === 0) return false;
  const named = specific.filter((w) => p.nouns.has(w) || p.aliases.has(w) || p.about.has(w)).length;
  // The verb denied is the one that must be asserted: "never apologized for forgetting the
  // anniversary" denies an apology, not the forgetting.
  // A gerund the tagger read as a noun ("started reading X") still names the act.
  const acts = (v: string) => p.verbs.has(v) || p.nouns.has(v.slice(2));
  const sharedVerb = n.verb !== undefined && isVerb(n.verb) ? acts(n.verb) : n.targetVerbs.some(acts);
  // Everything it denies is asserted; or, with the same verb, most of it ("never met Kelly at any
  // book club or library event" against "met Kelly at the library book club").
  // The core of the denial must be asserted: the head of its object, when it has one.
  const core = n.head === undefined || p.nouns.has(n.head) || p.aliases.has(n.head) || p.about.has(n.head);
  // A name denied and asserted by the same subject ("never used ... such as Zotero" / "downloaded Zotero").
  const sameSubjects = (n.about.size === 0 && p.about.size === 0) || [...n.about].some((w) => p.about.has(w));
  // With a verb of mere use ("never used", "never had", "never tried"), naming the thing is enough; otherwise the verb must agree.
  const mereUse = n.targetVerbs.every((v) => USE_VERBS.has(v.slice(2)));
  const nameDenied = [...n.names].some((w) => specific.includes(w) && (p.nouns.has(w) || p.about.has(w))) && sameSubjects && (mereUse || sharedVerb);
  const enough = named === specific.length || (sharedVerb && core && named >= 1 && named * 2 >= specific.length) || nameDenied;
  if (!enough) return false;
  if (specific.length < 2 && n.targetVerbs.length > 0 && !sharedVerb) return false;
  if (n.about.size > 0 && p.about.size > 0 && ![...n.about].some((w) => p.about.has(w) || p.nouns.has(w))) return false;
  return true;
}

export interface StatementOutcome {
  retirements: RetirementRecord[];
  conflicts: ConflictRecord[];
  reasons: Map<string, string>;
}

const current = (f: DetectorFact) => f.valid_until === null;
/** Values that identify one thing, which a fact can say are gone. */
const GONE_TYPES = new Set(['email', 'url', 'channel', 'name']);
const time = (f: DetectorFact) => f.committed_at.getTime();
const gone = (f: DetectorFact) => f.entities.filter((e) => e.gone && GONE_TYPES.has(e.type)).map((e) => `${e.type}:${String(e.value).toLowerCase()}`);
const gives = (f: DetectorFact) => new Set(f.entities.filter((e) => !e.previous && GONE_TYPES.has(e.type)).map((e) => `${e.type}:${String(e.value).toLowerCase()}`));

/**
 * The few facts of a run's facts that each tier below can start from, in their order: what their
 * text and entities say, which a retirement does not change. A run analyses its triggers in steps
 * over one array of facts, and scanning all of it for these at every step (and every fact against
 * them) was most of a busy workspace's detection: 1,471 triggers over about 5,000 facts.
 */
interface StatementView {
  /** Facts with a denial among their statements (what an assertion can meet). */
  denying: DetectorFact[];
  /** Facts that assert something (what a denial can meet). */
  asserting: DetectorFact[];
  /** Facts that say a value is gone, with those values. */
  gone: { fact: DetectorFact; names: string[] }[];
  dependencies: { fact: DetectorFact; target: string[]; ends: boolean }[];
}
const views = new WeakMap<readonly DetectorFact[], StatementView>();
function viewOf(facts: readonly DetectorFact[]): StatementView {
  let view = views.get(facts);
  if (!view) {
    view = {
      denying: facts.filter((f) => readStatements(f).all.some((s) => !s.positive)),
      asserting: facts.filter((f) => readStatements(f).asserted.length > 0),
      gone: facts.map((fact) => ({ fact, names: gone(fact) })).filter((g) => g.names.length > 0),
      dependencies: facts.flatMap((fact) =>
        fact.entities.filter((e) => e.type === 'dependency').map((e) => ({ fact, target: (e.target ?? []).filter((w) => !isVerb(w)), ends: e.ends === true })),
      ),
    };
    views.set(facts, view);
  }
  return view;
}

/** Completion words: a state that was to end has ended ("the migration finished", "is done"). */
const COMPLETION = /\b(?:finish(?:ed|es)?|complete[ds]?|done|landed|wrapped up|shipped|concluded|is over|ended|went live|cut over)\b/i;

/**
 * Polarity, deletion requests and stale derived claims for the run's triggers. `facts` holds
 * the triggers and the facts their statement keys found; it must not change between calls (a
 * run's steps pass the same array, and what its facts' statements say is read from it once).
 * Each pair judged has a trigger in it.
 */
export function analyzeStatements(facts: readonly DetectorFact[], triggerIds: ReadonlySet<string>): StatementOutcome {
  const view = viewOf(facts);
  const retirements: RetirementRecord[] = [];
  const conflicts: ConflictRecord[] = [];
  const reasons = new Map<string, string>();
  const retired = new Set<string>();
  const retire = (older: DetectorFact, newer: DetectorFact, reason: string) => {
    if (retired.has(older.id) || !current(older)) return;
    retired.add(older.id);
    reasons.set(older.id, reason);
    retirements.push({ factId: older.id, byFactId: newer.id, at: newer.committed_at });
  };
  const triggers = facts.filter((f) => triggerIds.has(f.id) && current(f));
  // The triggers as `facts` holds them, current or not (a stale claim's change need not be current).
  const inStep = facts.filter((f) => triggerIds.has(f.id));

  // Deletion requests retire the earlier facts that name all of what they name.
  for (const request of triggers) {
    for (const deletion of request.entities.filter((e) => e.type === 'deletion')) {
      const target = (deletion.target ?? []).filter((w) => !isVerb(w));
      if (target.length === 0) continue;
      for (const fact of facts) {
        if (fact.id === request.id || !current(fact) || time(fact) > time(request)) continue;
        // What it names, all of it, or most of it (a request paraphrases: "the hotfix/* branch naming note").
        const names = readStatements(fact).all.flatMap((s) => [...s.nouns, ...s.about, ...s.aliases, ...[...s.verbs].map((v) => v.slice(2))]);
        const hit = target.filter((w) => names.includes(w)).length;
        // A request that names someone ("the bit about Rik approving") retires only facts that name them.
        if ((deletion.about ?? []).some((n) => !names.includes(n))) continue;
        if (hit === target.length || (hit >= 1 && hit * 3 >= target.length * 2) || (target.length === 2 && hit === 1 && target.some((w) => w.includes('_') || w.includes('/')))) {
          retire(fact, request, 'a later fact asks to forget it');
        }
      }
    }
  }

  // A value a later fact says is gone ("#deploys got archived", "security@lumen.io was retired")
  // retires the earlier facts that give it as the current value.
  for (const { fact, names } of view.gone) {
    if (!current(fact) || cuesOfFact(fact).tentative) continue;
    // One of the two is a trigger: the older is one when the fact saying "gone" is not.
    for (const older of triggerIds.has(fact.id) ? facts : triggers) {
      if (older.id === fact.id || !current(older) || time(older) >= time(fact)) continue;
      if (!triggerIds.has(fact.id) && !triggerIds.has(older.id)) continue;
      const given = gives(older);
      if (names.some((n) => given.has(n)) && !gives(fact).has([...given].find((n) => names.includes(n))!)) retire(older, fact, 'the later fact says its value is gone');
    }
  }

  // Polarity: a trigger's statements against the other facts' opposite ones. Pairs already judged,
  // by the lesser id then the greater (a key string built per pair was most of this pass's time).
  const seenPairs = new Map<string, Set<string>>();
  const pairSeen = (a: string, b: string) => (a < b ? seenPairs.get(a)?.has(b) : seenPairs.get(b)?.has(a)) === true;
  const seePair = (a: string, b: string) => {
    const [lesser, greater] = a < b ? [a, b] : [b, a];
    const seen = seenPairs.get(lesser);
    if (seen) seen.add(greater);
    else seenPairs.set(lesser, new Set([greater]));
  };
  for (const trigger of triggers) {
    if (retired.has(trigger.id)) continue;
    const own = readStatements(trigger);
    const mineAll = [...own.all.filter((s) => !s.positive), ...own.asserted];
    for (const mine of mineAll) {
      // An assertion meets denials, a denial assertions (see denies).
      for (const fact of mine.positive ? view.denying : view.asserting) {
        if (fact.id === trigger.id || !current(fact) || retired.has(fact.id)) continue;
        if (pairSeen(trigger.id, fact.id)) continue;
        const theirs = mine.positive
          ? readStatements(fact).all.find((s) => denies(s, mine))
          : readStatements(fact).asserted.find((s) => denies(mine, s));
        // Each names a component the other never mentions: one's denial is about another thing.
        if (!theirs || componentsApart(trigger, fact)) continue;
        seePair(trigger.id, fact.id);
        const [older, newer] = time(fact) <= time(trigger) ? [fact, trigger] : [trigger, fact];
        const cues = cuesOfFact(newer);
        if (cues.change || cues.correction) {
          retire(older, newer, 'the later fact announces the change');
          continue;
        }
        if (older.agent_id === newer.agent_id && time(newer) - time(older) <= SESSION_WINDOW_MS) {
          retire(older, newer, 'same agent within a working session');
          continue;
        }
        const stating = mine.positive ? trigger : fact;
        conflicts.push({
          kind: 'ambiguity',
          detectedBy: 'tier0_entity',
          severity: 'high',
          factIds: [older.id, newer.id],
          question: statementQuestion(sentence(stating.content)),
          explanation: `One current fact states it, another denies it: "${clip(older.content)}" (${day(older)}) vs "${clip(newer.content)}" (${day(newer)}).`,
        });
      }
    }
  }

  // Stale derived claims: a fact that depends on something, and a later fact that changes it.
  for (const dependency of view.dependencies) {
    if (!current(dependency.fact) || dependency.target.length === 0) continue;
    // One of the two is a trigger: the change is one when the dependent fact is not.
    for (const change of triggerIds.has(dependency.fact.id) ? facts : inStep) {
      if (change.id === dependency.fact.id || time(change) <= time(dependency.fact)) continue;
      if (!triggerIds.has(change.id) && !triggerIds.has(dependency.fact.id)) continue;
      const cues = cuesOfFact(change);
      const changed = cues.change || cues.correction || (dependency.ends && COMPLETION.test(change.content));
      if (!changed || cues.tentative || componentsApart(dependency.fact, change)) continue;
      const names = readStatements(change).all.some((s) => dependency.target.every((w) => s.nouns.has(w) || s.about.has(w) || s.verbs.has(`v:${w}`)));
      if (!names) continue;
      conflicts.push({
        kind: 'stale',
        detectedBy: 'narrative_rules',
        severity: 'medium',
        factIds: [dependency.fact.id, change.id],
        question: `Which is right now, since ${sentence(change.content)}: that ${sentence(dependency.fact.content)} still holds, or that it no longer does?`,
        explanation: `The earlier fact depends on something a later fact changed: "${clip(dependency.fact.content)}" (${day(dependency.fact)}), then "${clip(change.content)}" (${day(change)}).`,
      });
    }
  }
  return { retirements, conflicts, reasons };
}

const clip = (text: string) => (text.length > 160 ? `${text.slice(0, 157)}…` : text);
const day = (f: DetectorFact) => explanationDate(f.committed_at);
/** A fact's text as part of a question: no final stop, a leading common word lowercased ("the", "we"), names kept. */
function sentence(text: string): string {
  const trimmed = clip(text.trim()).replace(/[.;:!\s]+$/, '');
  return /^(?:The|A|An|Our|We|There|It|This|These|Those|All|No|Every|Each|Some|Any)\b/.test(trimmed) ? trimmed.charAt(0).toLowerCase() + trimmed.slice(1) : trimmed;
}

/**
 * The tiers over statements rather than values (SPEC §6):
 *
 * - **Polarity**: a denial ("we don't use an ORM") meets an assertion of what it denies
 *   ("orders-api uses Prisma as its ORM"): an ambiguity; or, when the later one announces the
 *   change ("no longer", "dropped X"), a probable update for people to confirm.
 * - **Deletion requests**: "forget the note about the old VPN host" retires the earlier facts that
 *   name everything it names (a person's explicit decision, recorded as a settlement).
 * - **Stale derived claims**: a fact that names what it depends on ("until the freeze ends",
 *   "signs with Ana's key") becomes doubtful when a later fact changes or ends that: a `stale`
 *   conflict.
 * - **Gone things**: a fact using a named thing, when a later fact says it is gone ("search-v1 was
 *   decommissioned"): a probable update, for people to confirm.
 *
 * Pure functions over stored statements (see language/claims.ts); the run applies what they return.
 */
import type { ConflictRecord, DetectorFact, RetirementRecord } from '@engram/db';
import { denies, mentions, singular, viewOf, type Claim } from '../language/align.ts';
import { CHANGE, COMPONENT_ROLES, GENERIC, TECHNOLOGIES } from '../language/lexicon.ts';
import { isJoinedName } from '../language/index.ts';
import { isFirstName, ROLE_MEASURES } from '../language/claims.ts';
import { isEnglishWord } from '../language/reader.ts';
import { explanationDate, PROBABLE_UPDATE_PREFIX, statementQuestion } from './questions.ts';

export interface StatementOutcome {
  retirements: RetirementRecord[];
  conflicts: ConflictRecord[];
}

const current = (f: DetectorFact) => f.valid_until === null;
const time = (f: DetectorFact) => f.committed_at.getTime();
const clip = (text: string) => (text.length > 160 ? `${text.slice(0, 157)}…` : text);
const day = (f: DetectorFact) => explanationDate(f.committed_at);
/** A fact's text as part of a question: no final stop, a leading common word lowercased. */
function sentence(text: string): string {
  const trimmed = clip(text.trim()).replace(/[.;:!\s]+$/, '');
  return /^(?:The|A|An|Our|We|There|It|This|These|Those|All|No|Every|Each|Some|Any)\b/.test(trimmed) ? trimmed.charAt(0).toLowerCase() + trimmed.slice(1) : trimmed;
}

/** The few facts of a run each tier starts from, read once per array of facts (a run's steps pass the same one). */
interface StatementView {
  denying: DetectorFact[];
  asserting: DetectorFact[];
  dependent: DetectorFact[];
}
const statementViews = new WeakMap<readonly DetectorFact[], StatementView>();
function statementViewOf(facts: readonly DetectorFact[]): StatementView {
  let view = statementViews.get(facts);
  if (!view) {
    view = {
      denying: facts.filter((f) => viewOf(f).statements.some((s) => !s.positive)),
      asserting: facts.filter((f) => viewOf(f).statements.some((s) => s.positive)),
      dependent: facts.filter((f) => viewOf(f).dependencies.length > 0),
    };
    statementViews.set(facts, view);
  }
  return view;
}

/**
 * Does the fact speak of someone leaving ("Ana is leaving", "Ana's handover", "farewell for Ana")? Then it is about the
 * departure, not a use of the person a later fact says is gone.
 */
const speaksOfDeparture = (f: DetectorFact) =>
  viewOf(f).statements.some((s) => CHANGE.departure.word(s.verb) !== undefined) || [...viewOf(f).mentions].some((m) => CHANGE.departureNouns.word(m) !== undefined);

/** The words of a fact's text, each on its own and in the singular ("just rerun the job" says "rerun", a verb no mention holds). */
const wordsOf = (fact: DetectorFact) => new Set(fact.content.toLowerCase().split(/[^a-z0-9_]+/).flatMap((w) => [w, singular(w)]));

const KIND_WORDS = new Set([...COMPONENT_ROLES, 'endpoint', 'route']);

/**
 * Polarity, deletion requests and stale derived claims for the run's triggers. `facts` holds the
 * triggers and the facts their keys found, and must not change between calls. Each pair judged
 * has a trigger in it.
 */
export function analyzeStatements(facts: readonly DetectorFact[], triggerIds: ReadonlySet<string>): StatementOutcome {
  const view = statementViewOf(facts);
  const retirements: RetirementRecord[] = [];
  const conflicts: ConflictRecord[] = [];
  const retired = new Set<string>();
  const triggers = facts.filter((f) => triggerIds.has(f.id) && current(f));

  // Deletion requests retire the earlier facts that name all of what they name. The request or the
  // fact is a trigger: the two may reach the worker in different runs, in either order.
  for (const request of facts) {
    const target = viewOf(request).deletion;
    // One plain English word ("gateway") is half a workspace: a request must name two, or a name (a file, a component,
    // a word no dictionary holds: "crontab").
    const specific = target?.filter((w) => !GENERIC.has(w)) ?? [];
    if (!current(request) || !target || (specific.length < 2 && !specific.some((w) => isJoinedName(w) || !isEnglishWord(w)))) continue;
    // Facts naming all but one of three or more words, a name among them: asked about when only one does (else a coin toss).
    const nearly: DetectorFact[] = [];
    for (const fact of facts) {
      if (!triggerIds.has(request.id) && !triggerIds.has(fact.id)) continue;
      if (fact.id === request.id || !current(fact) || time(fact) > time(request) || retired.has(fact.id) || viewOf(fact).deletion) continue;
      let said: Set<string> | undefined;
      // What kind of thing a named thing is ("the `POST /v1/x` endpoint") need not be said again.
      const named = target.some(isJoinedName);
      const unsaid = target.filter((w) => !((named && KIND_WORDS.has(w)) || mentions(viewOf(fact), w) || (said ??= wordsOf(fact)).has(w)));
      if (unsaid.length === 0) {
        retired.add(fact.id);
        retirements.push({ factId: fact.id, byFactId: request.id, at: request.committed_at, reason: 'a later fact asks to forget it' });
      } else if (unsaid.length === 1 && target.length >= 3 && target.some((w) => w !== unsaid[0] && (isJoinedName(w) || !isEnglishWord(w)))) nearly.push(fact);
    }
    if (nearly.length === 1 && !retirements.some((r) => r.byFactId === request.id)) {
      const fact = nearly[0]!;
      conflicts.push({
        kind: 'probable_update',
        detectedBy: 'narrative_rules',
        severity: 'medium',
        factIds: [fact.id, request.id],
        question: `${PROBABLE_UPDATE_PREFIX}a later fact asks to forget "${clip(request.content)}": is it this one, "${clip(fact.content)}"?`,
        explanation: `A later fact (${day(request)}) asks to forget a note; this earlier fact (${day(fact)}) names all but one of what it names, so it stays current until someone says whether it is that note.`,
      });
    }
  }

  // Polarity: a trigger's statements against the other facts' opposite ones.
  const seen = new Set<string>();
  for (const trigger of triggers) {
    if (retired.has(trigger.id)) continue;
    for (const mine of viewOf(trigger).statements) {
      for (const fact of mine.positive ? view.denying : view.asserting) {
        // A deletion request is not a denial to argue with: it retires what it names, or asks nothing.
        if (fact.id === trigger.id || !current(fact) || retired.has(fact.id) || viewOf(fact).deletion || viewOf(trigger).deletion) continue;
        const pair = [trigger.id, fact.id].sort().join('|');
        if (seen.has(pair)) continue;
        const theirs = viewOf(fact).statements.find((s) => (mine.positive ? denies(s, mine) : denies(mine, s)));
        if (!theirs) continue;
        seen.add(pair);
        const [older, newer] = time(fact) <= time(trigger) ? [fact, trigger] : [trigger, fact];
        const newerStatement = newer === trigger ? mine : theirs;
        const stating = mine.positive ? trigger : fact;
        if (newerStatement.cue) {
          conflicts.push(probableUpdateRecord(older, newer, 'tier0_entity', `A later fact (${day(newer)}) says it changed: "${clip(newer.content)}". The earlier fact (${day(older)})`));
          continue;
        }
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

  // Stale derived claims: a fact that depends on something, and a later fact that changes or ends it.
  // One question per doubtful fact, with the first change that made it so: asking again for every later
  // fact saying the same thing ended or changed ("the freeze ended", then "deployed after the freeze") adds nothing.
  const inStep = facts.filter((f) => triggerIds.has(f.id));
  const doubtful = new Set<string>();
  for (const dependent of view.dependent) {
    if (!current(dependent)) continue;
    const waiting = viewOf(dependent);
    // An end need not repeat every word of the wait: two of them, one specific ("until the MySQL → Aurora move is done" /
    // "the Aurora move is done"), or the tracked item the earlier fact names ("while the split (AB-12) runs" / "AB-12 closed").
    // (Not an item the earlier fact says is over itself: "OPS-7 resolved; exports lag until the replay finishes".)
    const items = waiting.items.map((k) => k.toLowerCase()).filter((k) => !waiting.ended.has(k));
    // (A person the earlier fact names, or says is away: "while Ana Ruiz is on leave".)
    const people = [...waiting.claims.filter((c) => c.kind === 'person').flatMap((c) => c.values), ...waiting.gone];
    const dependsOn = (change: DetectorFact) => {
      const changed = viewOf(change);
      // A name said as a phrase ends each of its words ("Spring Sale wrapped"); a person, by the first name ("Ana is back").
      const endedWords = new Set([...changed.ended].flatMap((e) => [e, ...e.split(' ')]));
      const endedPeople = people.filter((v) => endedWords.has(v.split(' ')[0]!));
      // The change itself names what the fact depends on: a clause announcing a change of it, or saying it ended; what
      // holds until something ends ("until the freeze ends") only the latter ("the freeze rate now reads …" ends no freeze).
      return waiting.dependencies.some((dependency) => {
        if (!dependency.target.some((w) => !GENERIC.has(w))) return false;
        if (dependency.target.every((w) => (!dependency.ends && changed.changed.has(w)) || changed.ended.has(w))) return true;
        if (!dependency.ends) return false;
        const ended = dependency.target.filter((w) => endedWords.has(w) || endedPeople.some((p) => p.split(' ').includes(w)));
        return (ended.length >= 2 && ended.some((w) => !GENERIC.has(w))) || items.some((k) => changed.ended.has(k));
      });
    };
    const changes = (triggerIds.has(dependent.id) ? facts : inStep).filter((f) => f.id !== dependent.id && time(f) > time(dependent) && dependsOn(f));
    const first = changes.reduce<DetectorFact | undefined>((a, b) => (a && time(a) <= time(b) ? a : b), undefined);
    if (!first) continue;
    doubtful.add(dependent.id);
    conflicts.push(staleRecord(dependent, first, `The earlier fact depends on something a later fact changed: "${clip(dependent.content)}" (${day(dependent)}), then "${clip(first.content)}" (${day(first)}).`));
  }
  // Gone things: a later fact says a named thing was decommissioned, archived or removed; the current facts
  // that still use it (the newest few, in any scope) probably changed with it (a `stale` question here asked
  // the same, but as a dependency's doubt, and did not rank the later fact first until answered).
  for (const change of inStep) {
    // Not a deletion request: that tier retires what it names.
    const gone = viewOf(change).gone;
    if (gone.length === 0 || viewOf(change).hedged || viewOf(change).deletion) continue;
    // A value it names as replaced ("security@ was retired; write to psirt@"), or as gone where the user states it as a
    // value in the same scope (where a change naming no measure looks): the update tiers ask about those. A thing gone
    // with nothing in its place ("#ops got archived") is asked here.
    const claims = viewOf(change).claims;
    const replaced = (g: string) => claims.some((c) => c.previous?.includes(g) && claims.some((n) => n.kind === c.kind && n.measure === c.measure && n.values.length > 0));
    const asValue = (f: DetectorFact, g: string) =>
      replaced(g) || (f.scope === change.scope && claims.some((c) => c.previous?.includes(g)) && viewOf(f).claims.some((c) => c.values.includes(g)));
    // A person gone by a first name is the person of that full name ("Ana" left; "ask Ana Ruiz").
    const is = (name: string, g: string) => name === g || (/^\p{L}+$/u.test(g) && name.startsWith(`${g} `));
    // And one gone by a full name is the person an earlier fact names by the first ("Ana Ruiz" left; "needs Ana's review").
    // (A name no list knows holding a role is a person's.)
    const person = (c: Claim) => c.kind === 'person' || (c.kind === 'name' && ROLE_MEASURES.has(c.measure));
    // (Or by a first name it mentions: "ask Ana".)
    const firstNamed = (f: DetectorFact, g: string) => / /.test(g) && (viewOf(f).claims.some((c) => person(c) && c.values.some((v) => /^\p{L}+$/u.test(v) && g.startsWith(`${v} `))) ||
      (isFirstName(g.split(' ')[0]!) && viewOf(f).mentions.has(g.split(' ')[0]!)));
    // A path under a prefix that went is gone with it ("`/v2` routes were deleted": `/v2/orders/:id`).
    const under = (f: DetectorFact, g: string) => /^\/[\w.-]+$/.test(g) && [...viewOf(f).mentions].some((m) => m.startsWith(`${g}/`));
    const named = (f: DetectorFact, g: string) => namesGone(f, g) || (/^\p{L}+$/u.test(g) && [...viewOf(f).mentions].some((m) => is(m, g))) || firstNamed(f, g) || under(f, g);
    // A fact that names it only as what it replaced ("moved from Ana Ruiz to Bo") no longer uses it.
    const onlyReplaced = (f: DetectorFact, g: string) =>
      viewOf(f).claims.some((c) => c.previous?.some((p) => is(p, g))) && !viewOf(f).claims.some((c) => c.values.some((v) => is(v, g)));
    const uses = (f: DetectorFact, g: string) =>
      named(f, g) && !viewOf(f).gone.includes(g) && !viewOf(f).changed.has(g) && !asValue(f, g) && !onlyReplaced(f, g) && !speaksOfDeparture(f);
    const users = facts
      .filter((f) => f.id !== change.id && current(f) && time(f) < time(change) && !viewOf(f).hedged && !viewOf(f).logEntry && gone.some((g) => uses(f, g)))
      .filter((f) => !doubtful.has(f.id) && !conflicts.some((c) => c.factIds.includes(f.id) && c.factIds.includes(change.id)))
      .sort((a, b) => time(b) - time(a))
      .slice(0, GONE_USERS_ASKED);
    for (const user of users) {
      doubtful.add(user.id);
      const used = gone.filter((g) => uses(user, g));
      conflicts.push(probableUpdateRecord(user, change, 'narrative_rules', `The earlier fact (${day(user)}) uses ${used.join(', ')}, which a later fact (${day(change)}) says is gone: "${clip(change.content)}". It`));
    }
  }
  // Gone, then used: a later fact uses as current a joined name (a file, a service, a queue) an earlier fact said was
  // deleted or decommissioned, or states in the same scope a product it said was replaced or shut down. Ask whether it
  // is back, or the later fact repeats what no longer holds.
  const sayGone = facts.filter((f) => viewOf(f).gone.length > 0);
  // A product: one the lists know, or one the change names as a product replaced or shut down (not a person away).
  const isProduct = (change: DetectorFact, g: string) =>
    TECHNOLOGIES.word(g) !== undefined || viewOf(change).claims.some((c) => (c.kind === 'technology' || c.kind === 'name') && c.previous?.includes(g));
  // As a value it states (not a plan, a denial or history), else as what it does something to ("posts to <product>").
  const statesProduct = (f: DetectorFact, g: string) => {
    const stated = viewOf(f).claims.filter((c) => c.values.includes(g));
    return stated.length > 0 ? stated.some((c) => !c.mode && !c.negated) : viewOf(f).statements.some((st) => st.positive && st.target.includes(g));
  };
  for (const user of inStep) {
    if (!current(user) || viewOf(user).hedged || viewOf(user).deletion || viewOf(user).announces) continue;
    for (const change of sayGone) {
      if (change.id === user.id || !current(change) || time(change) >= time(user) || viewOf(change).hedged || viewOf(change).deletion || doubtful.has(user.id)) continue;
      const used = viewOf(change).gone.filter((g) => (isJoinedName(g) || (user.scope === change.scope && isProduct(change, g) && statesProduct(user, g))) && namesGone(user, g) && !viewOf(user).gone.includes(g) && !viewOf(user).changed.has(g) && !viewOf(user).ended.has(g));
      if (used.length === 0 || conflicts.some((c) => c.factIds.includes(user.id) && c.factIds.includes(change.id))) continue;
      doubtful.add(user.id);
      conflicts.push(staleRecord(user, change, `An earlier fact (${day(change)}) says ${used.join(', ')} is gone: "${clip(change.content)}"; a later fact (${day(user)}) uses it: "${clip(user.content)}".`));
    }
  }
  return { retirements, conflicts };
}

/** The question whether an earlier fact still holds now that a later one says something changed; `why` opens the explanation. */
const probableUpdateRecord = (older: DetectorFact, newer: DetectorFact, detectedBy: ConflictRecord['detectedBy'], why: string): ConflictRecord => ({
  kind: 'probable_update',
  detectedBy,
  severity: 'medium',
  factIds: [older.id, newer.id],
  question: `${PROBABLE_UPDATE_PREFIX}is it still so that ${sentence(older.content)}, now that ${sentence(newer.content)}?`,
  explanation: `${why} stays current until someone says whether it still holds.`,
});

/** The question whether an earlier fact still holds after a later one changed or ended what it uses. */
const staleRecord = (earlier: DetectorFact, later: DetectorFact, explanation: string): ConflictRecord => ({
  kind: 'stale',
  detectedBy: 'narrative_rules',
  severity: 'medium',
  factIds: [earlier.id, later.id],
  question: `Which is right now, since ${sentence(later.content)}: that ${sentence(earlier.content)} still holds, or that it no longer does?`,
  explanation,
});

/**
 * Does the fact name a thing said to be gone? By its name, or by every word of it in the text or the scope: a
 * common word of the name is not left out, as it is where two facts are compared (`grafana-agent` gone says nothing
 * of every fact naming Grafana).
 */
function namesGone(fact: DetectorFact, gone: string): boolean {
  const view = viewOf(fact);
  if (!mentions(view, gone)) return false;
  // A file or a path is named as mentions() finds it ("ortools_backend.py" by a path to it).
  if (/[./:]/.test(gone)) return true;
  const parts = gone.split(/[-_]+/).filter((p) => p.length > 0);
  return parts.length < 2 || view.mentions.has(gone) || parts.every((p) => view.mentions.has(p) || view.scopeWords.has(p));
}

/** Facts asked about per thing said to be gone: the newest that use it, so one retirement cannot flood the queue. */
const GONE_USERS_ASKED = 3;

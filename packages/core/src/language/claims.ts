/**
 * What a fact says, read once at commit and stored with it (its `entities`):
 * - **claims**: each value it states, with what it measures (the nearest measure word of its clause), what it is about
 *   (its anchors: named components and content words), its qualifiers (environment, statistic, bound) and the values
 *   it names as replaced ("from 3 to 5", "replaced X with Y", "now Y (was X)");
 * - each clause's **mode** (stated, planned, conditional) and **cue** (a change or a correction announced);
 * - **statements** (subject, act, object; asserted or denied), **deletion requests** and **dependencies**.
 * Rules here are about the shape of English and of software facts, never about a story.
 */
import type { FactEntity } from '@engram/db';
import humanNames from 'human-names';
import {
  BOUNDS, EXTREMES, CHANGE, COMPONENT_ROLES, ENVIRONMENT_NEEDS_PREPOSITION, FREEZES, TEMPORARY_STATES, TIME_NOUNS, WEEKDAYS, MONTHS, ENVIRONMENTS, FIRST_PERSON, FUNCTION_WORDS,
  GENERIC, STORED_DATA, MEASURE_WORDS, NEGATIONS, STATISTICS, TEAM_HEADS, RESPONSE_VERBS, RISE_VERBS, TECHNOLOGIES, VERB_CLASSES, unitOf,
  withJoinedForms, type Matchable,
} from './lexicon.ts';
import { isEnglishWord, readText, remembered, type Clause, type Word } from './reader.ts';
import { HTTP_ERROR_STATUS, normalizeText, valuesByShape, type Value } from './values.ts';
import measuresData from './data/measures.json' with { type: 'json' };
import words from './data/words.json' with { type: 'json' };
import changeData from './data/change.json' with { type: 'json' };
import porterStem from 'wink-porter2-stemmer';

/** Bumped whenever what is read changes; facts read by an older version are read again. */
export const EXTRACTOR_VERSION = 69;

export type ClaimEntity = Extract<FactEntity, { type: 'claim' }>;
export type StatementEntity = Extract<FactEntity, { type: 'statement' }>;

/** One word of a clause as the claim reader sees it: identifiers split into their parts. */
interface Token extends Matchable { word: Word }

const NOUNISH = new Set(['NOUN', 'PROPN', 'X']);
const CONTENT = new Set(['NOUN', 'PROPN', 'X', 'ADJ']);
/** Last words of English compounds written with hyphens ("read-only", "real-time", "third-party"). */
const COMPOUND_ENDINGS = new Set<string>(words.compound_endings);
/** First parts of English compounds that are no word alone ("mid-transfer", "non-blocking", "re-run"). */
const COMPOUND_PREFIXES = new Set<string>(words.compound_prefixes);
const FIRST_NAMES = new Set([humanNames.allEn, humanNames.allIt, humanNames.allFr, humanNames.allDe, humanNames.allEs, humanNames.allNl].flat());
/** Is the lower-case word a person's first name ("ana", "jonas")? */
export const isFirstName = (lower: string) => FIRST_NAMES.has(lower.charAt(0).toUpperCase() + lower.slice(1));
/** Modals of intent: a change after them is a plan ("will move"). */
const MODALS = new Set(words.modals);
/** Modals of ability and obligation: the verb after them says what can or must happen. */
const ABILITY_MODALS = new Set(words.ability_modals);
/** Prepositions naming what an act is done with ("applied with Flyway", "via Argo CD"). */
const INSTRUMENTS = new Set(words.instrument_prepositions);
/** Words opening a condition: what the clause says holds when the condition is met. */
const CONDITIONS = new Set(words.condition_openers);
/** Words that add a value to others rather than replace them ("the Web team maintains it too"). */
const ADDITIVE = new Set(words.additive_words);
/** Words of sending traffic somewhere: what makes a share of traffic a rollout. */
const ROLLOUT_ACTS = new Set(words.rollout_acts);
/** Pronouns standing for a thing named before ("It isn't public", "They run on spot nodes"). */
const THIRD_PERSON = new Set(words.third_person);
/** Words that count a value for everyone together, against a "per" one ("global", "total", "combined"). */
const AGGREGATE = new Set(words.aggregate_words);
/** Prepositions that tie a phrase after a value to what the value is of ("25 MB per file", "5% of traffic"). */
const OF_PREPOSITIONS = new Set(words.of_prepositions);
/** What a team buys a product under ("the Datadog contract expires"): said of it, the clause is about the deal, not about using it. */
const VENDOR_TERMS = new Set(words.vendor_terms);

const splitIdentifier = (text: string) =>
  text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[_.\s/:@`-]+/).map((p) => p.toLowerCase()).filter((p) => p.length >= 2 && !/^\d+$/.test(p));

/** A setting's key: an identifier one of whose words says what it measures ("DB_POOL_MAX", "statement_timeout", "maxReplicas"). */
function isSetting(w: Word): boolean {
  // Joined by dots, underscores or case; by hyphens only a measure and its unit ("timeout-minutes", a YAML key) or its extreme
  // ("maximum-pool-size").
  if ((!/[_.]|[a-z][A-Z]/.test(w.text) && !(/^[a-z]+(?:-[a-z]+)+$/.test(w.text) && (measureAndUnit(w.text) || boundedMeasure(w.text)))) || /^https?:/.test(w.text)) return false;
  // Capitalised words run together are a product's name ("CircleCI", "LaunchDarkly"), not a key, unless code quotes or an
  // assignment ("VisibilityTimeout=90s") say they are one.
  if (/^\p{Lu}\p{Ll}+(?:\p{Lu}+\p{Ll}*)+$/u.test(w.text) && w.previous !== '`' && w.nextPos !== 'SYM') return false;
  const parts = splitIdentifier(w.text);
  if (parts.length === 0 || COMPONENT_ROLES.has(parts.at(-1)!)) return false;
  const says = (p: string) => (MEASURE_WORDS.word(p)?.some((m) => !m.kinds.has('technology')) ?? false) || EXTREMES.word(p) !== undefined;
  return parts.some(says);
}

/** A joined word (see reader.ts) that names one thing: a component, a topic, a table, a flag; not a setting's key, not a file. */
function isComponent(w: Word): boolean {
  // Not an abbreviation written with dots ("i.e.", "e.g.", "a.k.a."), nor a command-line flag ("-Xms2g", "--max-old-space-size").
  if (isSetting(w) || /^[.~]/.test(w.text) || /^`?--?[a-z]/i.test(w.text) || /^(?:[a-z]\.){2,3}$/i.test(w.text) || regionalEnv(w.text)) return false;
  // Joined by the reader, or written as one token ("pg-ml-02", "sso.events.v1").
  const parts = (w.parts?.map((p) => p.lower) ?? w.lower.split(/[-_.:/]+/)).filter(Boolean);
  if (parts.length < 2 || /^\d/.test(w.text) || /^https?:/.test(w.text)) return false;
  // Joined words are a name ("os-growth", "ledger-worker") unless they are an English compound ("on-call", "read-only", "rate-limit").
  if (/^[a-z]+(?:-[a-z]+)+$/i.test(w.text)) {
    const last = parts.at(-1)!;
    const compound = parts.some((p) => FUNCTION_WORDS.has(p)) || MEASURE_WORDS.at(parts.map((p) => ({ lower: p, lemma: p })), 0)?.length === parts.length ||
      COMPOUND_ENDINGS.has(last) || COMPOUND_PREFIXES.has(parts[0]!) || /(?:ed|ing)$/.test(last) || isEnglishWord(w.lower);
    // Opening its sentence before the verb, it is the sentence's subject: a name ("os-messaging runs ...").
    const subject = /^[a-z-]+$/.test(w.text) && (w.previous === undefined || w.previous === '.') && (w.nextPos === 'VERB' || w.nextPos === 'AUX');
    return !compound || (subject && !parts.some((p) => FUNCTION_WORDS.has(p)) && !isEnglishWord(w.lower));
  }
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(w.text)) return true; // a setting's key names it
  if (/[_\d]/.test(w.text) || /[a-z]\.[a-z]/i.test(w.text)) return true;
  return COMPONENT_ROLES.has(parts.at(-1)!) || TECHNOLOGIES.word(parts[0]!) !== undefined || parts.length >= 3 || /(?:er|or)$/.test(parts.at(-1)!);
}

/** Months and their abbreviations ("Jan", "Sept"). */
const MONTH_WORDS = new Set(MONTHS.flatMap((m) => [m, m.slice(0, 3), ...(m === 'september' ? ['sept'] : [])]));
/**
 * Is a label one day of the week, told in the past tense after it ("Sat 09:10 page: lag peaked at 40k, cleared by 09:40")? A
 * log of that day, not a weekly habit ("Tuesdays: ...", "every Monday: ...").
 */
function dayLogged(label: readonly Word[], after: readonly Word[]): boolean {
  const day = label.some((w) => WEEKDAYS.some((d) => w.lower === d || (w.lower.length >= 3 && w.lower.length <= 4 && d.startsWith(w.lower.replace(/\.$/, '')))));
  return day && !label.some((w) => ['every', 'each'].includes(w.lower)) && after.some((w) => w.pos === 'VERB' && w.lower !== w.lemma && /ed$/.test(w.lower));
}

/** A capitalised word that names a person, team or product rather than a common English word. */
function isNameWord(w: Word, sentenceStart: boolean): boolean {
  if (!/^\p{Lu}[\p{L}0-9.+-]*$/u.test(w.text) || w.text.length < 2 || ENVIRONMENTS.has(w) || STATISTICS.has(w) || isSetting(w)) return false;
  // "Migrated the signing to ...": a verb opening a sentence is no name.
  if (sentenceStart && w.pos === 'VERB' && /ed$/.test(w.lower)) return false;
  // A month after a word of time ("until March", "by April") is that month, whoever else bears its name.
  if (MONTH_WORDS.has(w.lower) && ['until', 'till', 'in', 'by', 'since', 'from', 'before', 'after', 'through', 'early', 'late', 'mid', 'end'].includes(w.previous ?? '')) return false;
  // An acronym (HPA, CPU, DLQ) is a common noun of the trade, not a name.
  if (/^[A-Z0-9]+s?$/.test(w.text) && w.text.length <= 5) return false;
  const english = isEnglishWord(w.lower.normalize('NFD').replace(/\p{M}/gu, ''));
  return !english || (!sentenceStart && w.pos === 'PROPN' && !/^[A-Z]+$/.test(w.text));
}

/** Where a clause sits in its fact, with its tokens and what the clause says about change. */
interface ClauseView {
  clause: Clause; index: number; tokens: Token[]; mode: 'plan' | 'if' | null; cue: 'change' | 'correction' | null; negated: boolean;
}

/** Tokens of a clause: each word, and each part of a joined identifier ("statement_timeout" → statement, timeout). */
function tokensOf(clause: Clause): Token[] {
  const out: Token[] = [];
  for (const w of clause.words) {
    // A key's words in their base form ("max_attempts": attempt), as the tagger gives a word's.
    if (isSetting(w)) for (const p of splitIdentifier(w.text)) out.push({ lower: p, lemma: p.length > 4 ? p.replace(/ies$/, 'y').replace(/([^su])s$/, '$1') : p, word: w });
    else if (w.parts && !isComponent(w)) for (const p of w.parts) out.push({ lower: p.lower, lemma: p.lemma, word: w });
    else out.push({ lower: w.lower, lemma: w.lemma, word: w });
  }
  return out;
}

/** Does an environment word name one here? "dev tooling", "live traffic": some do only after a preposition ("in dev"); in the plural none does ("unit tests"). */
const namesEnvironment = (lower: string, previous: string | undefined) =>
  !ENVIRONMENT_NEEDS_PREPOSITION.has(lower.replace(/s$/, '')) || (ENVIRONMENT_NEEDS_PREPOSITION.has(lower) && ['in', 'on', 'for', 'to', 'against'].includes(previous ?? ''));
const has = (table: { all: (list: readonly Matchable[]) => unknown[] }, tokens: readonly Matchable[]) => table.all(tokens).length > 0;
/** A word of a change verb's family ("migrate", "migration", "migrating"), by its Porter stem: "started the migration" is a change begun. */
const CHANGE_STEMS = new Set(changeData.change_verbs.filter((v) => !v.includes(' ')).map((v) => porterStem(v)));
const inChangeFamily = remembered(20_000, (lower) => /^[a-z]+$/.test(lower) && CHANGE_STEMS.has(porterStem(lower)));
const isChangeWord = (w: Word) => CHANGE.verbs.has(w) || inChangeFamily(w.lower);

/** Do the words after a change verb give it a target ("moved to", "raised from", "rolled back", "switched off"; not "out of")? */
const namesTarget = (after: readonly string[]) => after.some((x, k) => ['to', 'from', 'back', 'over', 'off', 'out'].includes(x) && !(x === 'out' && after[k + 1] === 'of'));

/** Is the verb at `i` in a relative clause saying what a thing did, with no target ("a bump that changed timeouts")? It reports no change. */
function describes(words: readonly Word[], i: number): boolean {
  if (!['that', 'which'].includes(words[i - 1]?.lower ?? '') || !NOUNISH.has(words[i - 2]?.pos ?? '')) return false;
  return !namesTarget(words.slice(i + 1, i + 6).map((x) => x.lower));
}

/**
 * Is the word at `i` what is left of something used up ("build minutes left this week: 1,200", "quota left this month: 40%"):
 * "remaining" or "left" after a noun, with no object of its own (not "Dana left the team")?
 */
function leftOver(words: readonly Word[], i: number): boolean {
  const [w, next] = [words[i]!, words[i + 1]];
  return (w.lower === 'remaining' || w.lower === 'left') && words[i - 1]?.pos === 'NOUN' &&
    (!next || ['PUNCT', 'ADV', 'ADP', 'NUM', 'SYM'].includes(next.pos) || (next.pos === 'DET' && TIME_NOUNS.has(words[i + 2]?.lemma ?? '')));
}

/** Is the change verb at `i` a change done (past, perfect, passive, or with a target), not a habit ("updates the index every hour")? */
function changeDone(words: readonly Word[], i: number): boolean {
  const w = words[i]!;
  // "a fixed 4 pods", "the updated config", "3 fixed workers": a participle after a determiner, or between a number and its
  // noun, describes a thing; it reports no change.
  if (w.pos !== 'VERB' || /ing$/.test(w.lower) || words[i - 1]?.pos === 'DET' || (words[i - 1]?.pos === 'NUM' && NOUNISH.has(words[i + 1]?.pos ?? ''))) return false;
  // Reported at the head of a clause, the verb's object may be a longer name ("Bump the quote-api worker pool size to 12").
  // Not a third person's present ("..., and marks each invoice PAID"): what a thing does, a habit.
  const reported = (i === 0 && !(w.lower !== w.lemma && /s$/.test(w.lower))) || FIRST_PERSON.has(words[i - 1]?.lower ?? '');
  const after = words.slice(i + 1, i + (reported ? 9 : 6)).map((x) => x.lower);
  const target = namesTarget(after);
  if (describes(words, i)) return false;
  // "have not moved", "hasn't been migrated", "never upgraded": a change denied is none made ("no longer" is one).
  if (negatedVerb(words, i)) return false;
  // "can be rotated", "must be renewed yearly": what may or must be done, a capability or a rule, not a change done.
  if (words.slice(Math.max(0, i - 3), i).some((x) => ABILITY_MODALS.has(x.lower))) return false;
  // A form that is not the base, not the third person and not a gerund is past: "raised", and irregular "grew", "cut" after "we"
  // with a target ("grew to 6"; "grew out of the monolith" tells where a thing comes from).
  // So is a passive with a target, whatever its form ("the TTL was cut to 12 h": "cut" is its own participle).
  const past = (w.lower !== w.lemma && (/(?:ed|en|t)$/.test(w.lower) || (!/(?:s|ing)$/.test(w.lower) && target))) || (target && ['was', 'were', 'been', 'got'].includes(words[i - 1]?.lower ?? ''));
  // "is enabled", "are stored": a state after a present copula, not a change, unless it has a target ("is set to").
  const state = ['is', 'are', "'s", 'remains', 'stays'].includes(words[i - 1]?.lower ?? '') || (words[i - 1]?.pos === 'ADV' && ['is', 'are'].includes(words[i - 2]?.lower ?? ''));
  // A target makes a change of a verb written as done ("is switched to"), or reported at the head of a clause ("Cut the TTL to 60s").
  return (past && (!state || target)) || (target && reported);
}

/**
 * Does the word at `i` say its subject's state is over: after a form of "be", ending the clause or before when ("the migration
 * is done", "the freeze was lifted on May 2", "Ana is back from leave"); not how a thing is done ("is done by CI", "is closed
 * to writes").
 */
function endState(words: readonly Word[], i: number): boolean {
  const next = words[i + 1];
  return words[i - 1]?.lemma === 'be' && !negatedVerb(words, i) &&
    (!next || ['PUNCT', 'CCONJ', 'ADV'].includes(next.pos) || ['on', 'as', 'since', 'from', 'early', 'last', 'this', 'yesterday', 'today'].includes(next.lower));
}

/** Is the verb at `i` negated: "not", "n't" or "never" before it, with only auxiliaries and adverbs between ("has not yet been")? */
function negatedVerb(words: readonly Word[], i: number): boolean {
  for (let k = i - 1; k >= 0 && k >= i - 4; k--) {
    const w = words[k]!;
    if (w.lower === 'not' || w.lower === "n't" || w.lower === 'never') return true;
    if (w.pos !== 'AUX' && w.pos !== 'ADV') return false;
  }
  return false;
}

/** Is the word at `i` a removal done ("dropped Sentry"), not an act ceasing ("stopped processing")? */
const removalDone = (words: readonly Word[], i: number) =>
  CHANGE.removal.has(words[i]!) && changeDone(words, i) && !/ing$/.test(words[i + 1]?.lower ?? '');

/** Does the clause ask a question (a question mark in code quotes is part of a query, "`?page=2`": see reader.ts)? */
const asks = (words: readonly Word[]) => words.some((w) => w.text === '?' && w.pos === 'PUNCT');

function readClause(clause: Clause, index: number, conditionalSentences: ReadonlySet<number>, plannedSentences: ReadonlySet<number>): ClauseView {
  const tokens = tokensOf(clause);
  const words = clause.words;
  // Plans, proposals and work in progress state no current value; modals make a plan only of a change ("will move", not "will retry").
  const unmodal = tokens.filter((t) => !MODALS.has(t.lower));
  // "Evaluate" is a plan when someone intends it ("we evaluate", "evaluating", "to evaluate"), not as what a thing does ("services evaluate flags").
  const intended = (t: Token) => t.lemma !== 'evaluate' || t.word.pos !== 'VERB' || /ing$/.test(t.lower) || ['to', "'ll"].includes(t.word.previous ?? '') || MODALS.has(t.word.previous ?? '') || FIRST_PERSON.has(t.word.previous ?? '');
  // A question is no statement.
  let plan = plannedSentences.has(clause.sentence) || CHANGE.plan.all(unmodal).some((m) => m.length > 1 || intended(unmodal[m.index]!)) || has(CHANGE.progress, tokens) ||
    asks(words);
  words.forEach((w, i) => {
    if ((MODALS.has(w.lower) || w.lower === "'ll") && words.slice(i + 1, i + 4).some((x) => x.pos === 'VERB' && isChangeWord(x))) plan = true;
    // "is migrating", "Upgrading the build agents": a change under way.
    // Not a participle after a comma (", replacing v21"): a remark on what was done.
    if (/ing$/.test(w.lower) && isChangeWord(w) && ((i === 0 && clause.subordinator !== ',ing') || words[i - 1]?.lemma === 'be')) plan = true;
    // "started the migration", "began moving", "being migrated": a change begun, not done.
    if ((['start', 'begin', 'kick'].includes(w.lemma) && words.slice(i + 1, i + 4).some(isChangeWord)) || (w.lower === 'being' && words[i + 1] && isChangeWord(words[i + 1]!))) plan = true;
  });
  const mode = conditionalSentences.has(clause.sentence) ? 'if' : plan ? 'plan' : null;
  // "Correction:", "actually", "turns out"; not a correction the text is about ("spelling corrections").
  const correction = CHANGE.correction.all(tokens).some((m) => m.length > 1 || tokens[m.index]!.lemma !== 'correction' || m.index === 0);
  // "Update:" announces a change; "position updates", "status update", "the first update" name a message.
  // Capitalised inside a sentence, it is part of a name ("EAS Update").
  const update = (t: Token) => t.lemma === 'update' && ((t.word.pos === 'NOUN' && (t.lower.endsWith('s') || ['NOUN', 'PROPN', 'ADJ', 'NUM', 'DET'].includes(words[words.indexOf(t.word) - 1]?.pos ?? ''))) ||
    (/^U/.test(t.word.text) && words.indexOf(t.word) > 0));
  // "Set X to 20", "we configured X to ...": the writer reports setting it; "X is set to 20" states it.
  const assigned = words.some((w, i) => CHANGE.assignment.has(w) && (i === 0 ? words[1]?.lower !== 'of' : w.pos === 'VERB' && FIRST_PERSON.has(words[i - 1]!.lower)) &&
    words.slice(i + 1).some((x) => x.lower === 'to' || x.text === '=' || (x.text === ':' && i === 0)));
  // "From 1 July, the base rate is ...": what holds from a date on is a change.
  const fromDate = words[0]?.lower === 'from' && /^\s*from\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+[A-Z][a-z]+|[A-Z][a-z]+\s+\d{1,2}\b|\d{4}-\d{2}-\d{2}|(?:next\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|next\s+(?:week|month|sprint|quarter|release))/i.test(clause.words.map((w) => w.text).join(' '));
  // "After INC-412, autosave runs every 10 s", "Since the outage, ...": what holds since an incident is a change it brought.
  const afterIncident = ['after', 'since', 'following'].includes(words[0]?.lower ?? '') && words.slice(1, 3).some((w, k) => INCIDENT.test(w.text) && (k === 0 || words[1]!.lower === 'the'));
  // "`POOL_MAX=40` deployed 03-09", "rolled out on 2026-03-02": a value put in place on a date is a change done.
  const datedWord = (w: Word | undefined) => w !== undefined && (/^(?:\d{4}-)?\d{2}-\d{2}$/.test(w.text) || MONTH_WORDS.has(w.lower));
  // Not a remark on a thing ("3.1.0 (shipped 2026-02-02) reached 40%"): the value put in place comes before the word.
  const dateAfter = (i: number) => {
    let k = i + 1;
    while (['out', 'on'].includes(words[k]?.lower ?? '')) k++;
    return datedWord(words[k]);
  };
  const putInPlace = clause.subordinator !== '(' && words.some((w, i) => ['deploy', 'ship', 'apply', 'roll'].includes(w.lemma) && /ed$/.test(w.lower) &&
    words.slice(Math.max(0, i - 4), i).some((x) => x.pos === 'NUM' || x.text === '=') && dateAfter(i));
  // "owner: Tomas, from 03-09", "effective 2026-03-02": a value holding from a date on is a change (not a span "from 03-09 to 03-12").
  const effective = words.some((w, i) => ((w.lower === 'from' && words[i - 1]?.text === ',') || w.lower === 'effective') && datedWord(words[i + 1]) &&
    !words.slice(i + 2, i + 5).some((x) => ['to', 'until', 'till', 'through', '-', '–'].includes(x.lower)));
  const described = new Set(words.filter((_, i) => describes(words, i)));
  // "Turned X on", "turned it off": the phrase's particle written after its object.
  const turned = words.some((w, i) => w.lemma === 'turn' && w.pos === 'VERB' && (w.lower !== w.lemma || i === 0) && words.slice(i + 1, i + 6).some((x) => x.lower === 'on' || x.lower === 'off'));
  // "12,400 rows as of Monday 09:00": things counted at a moment, not a change that holds from then ("the limit is 500 as of
  // Monday", "5 seats as of the 2.1 release").
  const moment = (w: Word | undefined) => w !== undefined && (/^\d{4}-\d{2}-\d{2}|^\d{1,2}:\d{2}/.test(w.text) || MONTH_WORDS.has(w.lower) || WEEKDAYS.some((d) => w.lower.startsWith(d.slice(0, 3))) || ['today', 'yesterday', 'tonight', 'now'].includes(w.lower));
  const snapshot = (t: Token, i: number) => t.lower === 'as' && tokens[i + 1]?.lower === 'of' && moment(tokens[i + 2]?.word) && tokens[i - 1]?.word.pos === 'NOUN' && tokens[i - 1]!.lower !== tokens[i - 1]!.lemma && tokens[i - 2]?.word.pos === 'NUM';
  // "Kiosks now also log a heartbeat": what is added now leaves what was there before.
  const added = (t: Token) => t.lower === 'now' && words.some((w) => ADDITIVE.has(w.lower) && w.lower !== 'both');
  const change =
    turned || assigned || fromDate || afterIncident || putInPlace || effective || has(CHANGE.markers, tokens.filter((t, i) => !update(t) && !described.has(t.word) && !snapshot(t, i) && !added(t))) ||
    words.some((w, i) => (isChangeWord(w) || (CHANGE.verbs.at(words, i)?.length ?? 0) > 1) && changeDone(words, i));
  // Not a contrast after a comma ("we use pnpm, not npm", "signed by the service, never with a personal token"): that denies
  // only what follows it (see negatedAt).
  const negationAt = words.findIndex((w, i) => (NEGATIONS.has(w.lower) || w.lemma === 'not') && !(/^(?:more|less|fewer|later|earlier|longer|only)$/.test(words[i + 1]?.lower ?? '')) &&
    !((w.lower === 'not' || w.lower === 'never') && [',', '—', '–', ';'].includes(words[i - 1]?.text ?? '')));
  const noLonger = words.some((w, i) => w.lower === 'no' && words[i + 1]?.lower === 'longer');
  // A count of none after a verb or a noun denies as "no" does ("the scan found 0 expired certs" is "found no expired certs");
  // not a tally after a colon or a comma ("soak: 0 restarts, p95 -8%"), nor one after a preposition ("with zero traffic").
  const none = words.some((w, i) => (w.text === '0' || w.lower === 'zero') && i > 0 && !['PUNCT', 'ADP', 'CCONJ'].includes(words[i - 1]!.pos) && NOUNISH.has(words[i + (words[i + 1]?.pos === 'ADJ' || words[i + 1]?.pos === 'VERB' ? 2 : 1)]?.pos ?? ''));
  // "40 of 75 stores have it installed", "14 of 20 services migrated": a change part of the way through, under way; not a
  // count after a comma, away from the change ("the disk alarm now pages at 85%, 2 of 3 checks" is how an alarm counts).
  const apart = (i: number) => {
    const changedAt = [...CHANGE.markers.all(tokens).map((m) => words.indexOf(tokens[m.index]!.word)), ...words.flatMap((w, k) => (isChangeWord(w) ? [k] : []))];
    return changedAt.length > 0 && changedAt.every((c) => words.slice(Math.min(c, i), Math.max(c, i)).some((x) => x.text === ','));
  };
  const partway = change && !mode && words.some((w, i) => w.pos === 'NUM' && words[i + 1]?.lower === 'of' && words[i + 2]?.pos === 'NUM' && !apart(i));
  return { clause, index, tokens, mode: partway ? 'plan' : mode, cue: correction ? 'correction' : change ? 'change' : null, negated: negationAt >= 0 || noLonger || none };
}

/** Is the value under a negation of its clause? A negation denies what follows it ("is not 30 s", "S3, not local disk"). */
function negatedAt(view: ClauseView, v: Value): boolean {
  const words = view.clause.words;
  // In a condition the negation says when the rule fires ("if nobody has acknowledged it within 10 minutes"): it denies nothing.
  if (CONDITIONS.has(view.clause.subordinator ?? words[0]?.lower ?? '')) return false;
  // "any weekday except Friday": what an exception names is denied too.
  return words.some((w, i) => w.end <= v.start && (NEGATIONS.has(w.lower) || w.lemma === 'not' || w.lower === 'except' || w.lower === 'excluding') && !/^(?:more|less|fewer|later|earlier|only)$/.test(words[i + 1]?.lower ?? '') && !words.slice(i + 1).some((x) => x.end <= v.start && x.pos === 'PUNCT'));
}

/**
 * Sentences that hold only under a condition about a change or a plan ("if the rota changes, ...", "should we move to X,
 * ..."). A condition on an event is a standing rule ("if the build fails, #ci gets a message").
 */
function conditionalSentencesOf(clauses: readonly Clause[]): Set<number> {
  const out = new Set<number>();
  for (const c of clauses) {
    const first = c.words[0]?.lower;
    // "Even scaled out to 40 pods, ...": a change supposed, not made.
    const supposed = first === 'even' && c.words.slice(1, 4).some((w) => isChangeWord(w));
    const conditional = c.subordinator === 'if' || c.subordinator === 'unless' || first === 'if' || first === 'unless' || supposed || has(CHANGE.conditional, c.words.slice(0, 3));
    const hypothetical = c.words.some((w) => isChangeWord(w) || CHANGE.plan.has(w)) || has(CHANGE.plan, c.words);
    if (conditional && hypothetical) out.add(c.sentence);
  }
  return out;
}

/** Sentences opened by a plan with no verb of its own ("Idea for next quarter:", "TODO:", "Proposal:"): all of it is the plan. */
function plannedSentencesOf(clauses: readonly Clause[]): Set<number> {
  const out = new Set<number>();
  clauses.forEach((c, i) => {
    const opens = i === 0 || clauses[i - 1]!.sentence !== c.sentence;
    if (opens && has(CHANGE.plan, c.words) && !c.words.some((w) => w.pos === 'VERB')) out.add(c.sentence);
    // A heading of a word or two before a colon ("Planned:", "WIP:") that names a plan or work under way.
    const colon = c.words.findIndex((w) => w.text === ':');
    const heading = colon > 0 && colon <= 2 ? c.words.slice(0, colon) : c.words.length <= 2 && clauses[i + 1]?.sentence === c.sentence && clauses[i + 1]?.subordinator === ':' ? c.words : [];
    if (heading.some((w) => w.lemma === 'plan' || w.lemma === 'propose' || CHANGE.plan.has(w) || CHANGE.progress.has(w))) out.add(c.sentence);
    // A longer heading that opens by saying it is a draft ("Draft Q3 goal: ..."): a proposal, whatever it then says.
    const labelled = (colon > 0 && colon <= 6) || (c.words.length <= 6 && clauses[i + 1]?.sentence === c.sentence && clauses[i + 1]?.subordinator === ':');
    if (c.words[0]?.lower === 'draft' && labelled) out.add(c.sentence);
    // Or one whose head noun names a plan ("Node 22 upgrade plan: ...").
    const head = colon > 0 ? c.words.slice(0, colon) : clauses[i + 1]?.sentence === c.sentence && clauses[i + 1]?.subordinator === ':' ? c.words : [];
    if (opens && head.length <= 6 && head.length > 0 && (head.at(-1)!.lemma === 'plan' || head.at(-1)!.lemma === 'proposal')) out.add(c.sentence);
  });
  return out;
}

/** The concept a word adds to what a claim is about, or null for words that never anchor. */
function anchorOf(w: Word, statement = false): string | null {
  // Not the letters of a status class ("5xx" reads as 5 and "xx").
  if (!CONTENT.has(w.pos) || /^\d/.test(w.text) || w.text.length < 2 || /^x+$/i.test(w.text)) return null;
  const lemma = w.lemma.toLowerCase();
  if (GENERIC.has(lemma) || GENERIC.has(w.lower) || NEGATIONS.has(w.lower)) return null;
  // A bound qualifies a value; in a statement ("there is no memory cap") it is part of the thing.
  if (STATISTICS.has(w) || (!statement && (BOUNDS.has(w) || EXTREMES.has(w)))) return null;
  // An environment qualifies a value; in a statement ("there is no staging environment") it is the thing.
  if (!statement && ENVIRONMENTS.has(w) && namesEnvironment(w.lower, w.previous)) return null;
  if (CHANGE.markers.has(w) || CHANGE.plan.has(w) || CHANGE.old.has(w)) return null;
  // "last week", "next quarter": when, not what; "€14 an hour": per what, not what.
  if (['last', 'next', 'this', 'past', 'previous'].includes(w.lower) || (TIME_NOUNS.has(lemma) && ['last', 'next', 'this', 'past', 'every', 'each', 'per'].includes(w.previous ?? ''))) return null;
  if (['a', 'an', 'per', 'each'].includes(w.previous ?? '') && (TIME_NOUNS.has(lemma) || unitOf(lemma)?.family === 'duration')) return null;
  // "in the Q3 migration", "H2": a quarter or a half of the year is when.
  if (/^[qh][1-4]$/.test(w.lower) || (MONTH_WORDS.has(w.lower) && !isNameWord(w, false))) return null;
  // Code quotes the tagger left on a path ("`/v2/export") are not part of it.
  return lemma.normalize('NFD').replace(/\p{M}/gu, '').replace(/`/g, '');
}

/**
 * The noun a list of figures counts, read from the figure at `i` on: items alike ("2", or "1080" with the same glued
 * unit), the last after "and" or "or" and followed by its noun. Undefined when `i` starts no such list or is its last item.
 */
function listNoun(words: readonly Word[], i: number): Word | undefined {
  const glued = (k: number) => (words[k + 1]?.start === words[k]!.end && NOUNISH.has(words[k + 1]!.pos) ? words[k + 1]!.lower : '');
  const unit = glued(i);
  for (let k = i; ; ) {
    let next = k + 1 + (unit ? 1 : 0);
    const comma = words[next]?.lower === ',';
    if (comma) next++;
    const conjunction = ['and', 'or'].includes(words[next]?.lower ?? '');
    if (conjunction) next++;
    // Two figures with a comma before "and" are two clauses' ("the timeout is 30, and 5 retries are allowed").
    if ((!comma && !conjunction) || (comma && conjunction && k === i)) return undefined;
    if (words[next]?.pos !== 'NUM' || glued(next) !== unit) return undefined;
    k = next;
    if (conjunction) return nounAfter(words, k + 1 + (unit ? 1 : 0), k + 5);
  }
}

/** The noun a figure counts, past adjectives and compound nouns from `j` ("3 read replicas", "40 end-to-end tests"). */
function nounAfter(words: readonly Word[], j: number, last: number): Word | undefined {
  // Not a time said after the figure ("rolled to 2.4 last night"; "3 restarts this week" counts restarts).
  if (['last', 'next', 'this', 'past', 'previous'].includes(words[j]?.lower ?? '')) return undefined;
  while (j < words.length && j <= last && (words[j]!.pos === 'ADJ' || (NOUNISH.has(words[j]!.pos) && NOUNISH.has(words[j + 1]?.pos ?? '')))) j++;
  const noun = words[j];
  return noun && (NOUNISH.has(noun.pos) || noun.lower === 'times') && /^[a-z]/i.test(noun.text) ? noun : undefined;
}

/** Values the tagger finds: counts, bare numbers, versions after a name, booleans, names, teams and technologies. */
function valuesByWords(text: string, clauses: readonly Clause[], shaped: readonly Value[]): Value[] {
  const out: Value[] = [];
  const free = (start: number, end: number) => ![...shaped, ...out].some((v) => start < v.end && end > v.start);
  const add = (v: Value) => free(v.start, v.end) && out.push(v);
  for (const clause of clauses) {
    const words = clause.words;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      // Technologies, one or more words ("Redis", "GitHub Actions").
      const tech = TECHNOLOGIES.at(words, i);
      if (tech && free(w.start, words[i + tech.length - 1]!.end)) {
        const span = words.slice(i, i + tech.length);
        const written = span.map((x) => x.text).join(' ');
        const [next, after] = [words[i + tech.length], words[i + tech.length + 1]];
        const isVersion = (x: Word | undefined): x is Word => x !== undefined && /^v?\d+(?:\.\d+){0,2}$/.test(x.text);
        const version = (x: Word) =>
          add({ kind: 'version', value: x.text.replace(/^v/, ''), of: tech.value.name, text: x.text, start: x.start, end: x.end });
        // A product named by an English word ("yarn", "vector") is one when written as a name, in code, or as a tool ("installed with yarn").
        const asTool = ['with', 'via', 'using', 'use', 'uses', 'used', 'through', 'on', 'to', 'from'].includes(words[i - 1]?.lower ?? '') || text.includes(`\`${w.lower}`);
        // Followed by its version ("pins node 20.11"), it is the product.
        // An inflected word is no product's name, though its lemma is one ("goes" is not Go).
        const inflected = tech.length === 1 && !TECHNOLOGIES.word(w.lower.replace(/`/g, ''));
        const plainWord = inflected || (tech.length === 1 && isEnglishWord(w.lower) && written === w.lower && !w.parts && !asTool && !isVersion(next));
        if (!plainWord) {
          // "Node 22", "Postgres 16.2", "Postgres 16 upgrade": a version of it; not "Kafka 3 brokers" (a count: things counted
          // are plural), but "Node 20 LTS" (a release).
          const singularNoun = after !== undefined && after.lower === after.lemma && next?.text !== '1';
          if (isVersion(next) && (!NOUNISH.has(after?.pos ?? '') || singularNoun || /^(?:lts|release|runtime)$/i.test(after?.text ?? ''))) version(next);
          // "Expo SDK 52", "Android API 34": the release of its kit, a version of the product.
          else if (/^(?:sdk|api)$/i.test(next?.text ?? '') && isVersion(after)) version(after);
          // "Node from 18 to 20": both versions of it.
          const [from, old, to, now] = words.slice(i + tech.length, i + tech.length + 4);
          if (from?.lower === 'from' && to?.lower === 'to' && isVersion(old) && isVersion(now)) [old, now].forEach(version);
          // "Terraform Cloud", "Grafana Cloud": a vendor's hosted offering is a product of its own, of the same kind.
          const hosted = next?.text === 'Cloud' ? next : undefined;
          const end = hosted ?? span.at(-1)!;
          add({ kind: 'technology', value: hosted ? `${tech.value.name} cloud` : tech.value.name, of: tech.value.kind, text: text.slice(w.start, end.end), start: w.start, end: end.end });
          i += tech.length - 1 + (hosted ? 1 : 0);
          continue;
        }
      }
      // "Redis-backed", "RS512-signed", "Kafka-based": the technology a thing is built on, joined to the word for how.
      const built = /^([a-z][\w.]*)-(?:based|backed|signed|powered|driven|hosted|managed|encrypted)$/i.exec(w.text);
      const base = built ? TECHNOLOGIES.word(built[1]!.toLowerCase()) : undefined;
      if (built && base && free(w.start, w.end)) {
        add({ kind: 'technology', value: base.name, of: base.kind, text: built[1]!, start: w.start, end: w.start + built[1]!.length });
        continue;
      }
      // "2-core runners", "3-node cluster": a count of the noun it is joined to.
      const joined = /^(\d+)-([a-z]{3,})$/.exec(w.text);
      if (joined && free(w.start, w.end)) {
        add({ kind: 'count', value: String(Number(joined[1])), number: Number(joined[1]), of: joined[2]!.replace(/s$/, ''), text: w.text, start: w.start, end: w.end });
        continue;
      }
      // Not the digits opening an identifier that mixes digits and letters (a commit "9c41e0a", a build "20b7a").
      if (w.pos === 'NUM' && /^\d+(?:\.\d+)?$/.test(w.text) && free(w.start, w.end) && !/^\d+[a-z]+\d\w*/i.test(text.slice(w.start, w.start + 40))) {
        const value = Number(w.text);
        const previous = words[i - 1];
        // "Kafka 3.7": a version of the name before it.
        if (previous && w.text.includes('.') && isNameWord(previous, i - 1 === 0)) {
          add({ kind: 'version', value: w.text, of: previous.lower, text: w.text, start: w.start, end: w.end });
          continue;
        }
        // "clusters (EKS) run 1.27", "control plane upgraded to 1.29": a release the product its clause names runs on.
        const product = out.findLast((v) => v.kind === 'technology' && v.start >= clause.start && v.end <= w.start);
        const runsOn = ['run', 'runs', 'ran', 'running', 'on'].includes(previous?.lower ?? '') || (previous?.lower === 'to' && /^(?:upgraded|bumped|updated|moved|downgraded)$/.test(words[i - 2]?.lower ?? ''));
        if (product && runsOn && /^[1-9]\d*\.\d+$/.test(w.text)) {
          add({ kind: 'version', value: w.text, of: product.value, text: w.text, start: w.start, end: w.end });
          continue;
        }
        // A class of HTTP statuses ("5xx") or statuses counted ("503s", "429s") is no figure.
        const glued = words[i + 1]?.start === w.end ? words[i + 1]!.text : '';
        const counted = /^(\d+)s$/.exec(w.text + glued)?.[1];
        if ((/^[1-5]$/.test(w.text) && /^xx$/i.test(glued)) || (counted !== undefined && HTTP_ERROR_STATUS.test(counted))) continue;
        // An HTTP status a thing answers with ("answers 503", "gets a 413", "returns HTTP 429") is what happens, not a figure.
        const said = previous?.lower === 'a' || previous?.lower === 'an' || previous?.lower === 'http' || previous?.lower === 'status' ? words[i - 2] : previous;
        if (/^[1-5]\d\d$/.test(w.text) && (RESPONSE_VERBS.has(said?.lemma ?? '') || ['http', 'status'].includes(previous?.lower ?? ''))) continue;
        // A year, unless a setting's key gives it ("max_client_conn 2000", "limit=2000") or a figure goes to it ("500 → 2000").
        const goesTo = ['→', '->', '>'].includes(previous?.text ?? '') || (previous?.lower === 'to' && /^\d/.test(words[i - 2]?.text ?? ''));
        if (value >= 1900 && value <= 2100 && !w.text.includes('.') && !(previous && (KEY_SHAPE.test(previous.text) || previous.text === '=' || goesTo))) continue;
        // "3–12 replicas": a range of what follows ("from 18 to 20" is a change, not a range).
        // "between 2 and 8 nodes" too: a range, not a list.
        const ranged = ['-', '–'].includes(words[i + 1]?.lower ?? '') || (words[i + 1]?.lower === 'to' && words[i - 1]?.lower !== 'from') ||
          (words[i + 1]?.lower === 'and' && words[i - 1]?.lower === 'between');
        const high = ranged && /^\d+(?:\.\d+)?$/.test(words[i + 2]?.text ?? '') ? Number(words[i + 2]!.text) : undefined;
        // "3 read replicas", "8 times", "40 end-to-end tests": a count of the noun it qualifies.
        // "2, 4 and 8 vCPUs", "1440p, 900p and 300p thumbnails": each figure of a list counts the noun after its last one.
        const listed = high === undefined ? listNoun(words, i) : undefined;
        const noun = listed ?? nounAfter(words, i + (high === undefined ? 1 : 3), i + 5);
        if (noun) {
          const of = noun.lower === 'times' || noun.lower === 'time' ? 'time' : noun.lemma.toLowerCase();
          const end = listed ? (words[i + 1]!.start === w.end && NOUNISH.has(words[i + 1]!.pos) ? words[i + 1]!.end : w.end) : noun.end;
          add({ kind: 'count', value: high === undefined ? String(value) : `${value}-${high}`, number: value, ...(high === undefined ? {} : { high }), of, text: text.slice(w.start, end), start: w.start, end });
          continue;
        }
        // "pool_size=50", "max_connections is 200", "minReplicas 3", "batch size of 500", "cost factor 12", "max is actually 25".
        let k = i - 1;
        while (k > 0 && words[k]!.pos === 'ADV') k--;
        const linking = words[k];
        const before = linking?.lower ?? '';
        // An arrow the tagger split ("6 -> 12": "-", ">") links as one.
        const arrow = before === '>' && ['-', '='].includes(words[k - 1]?.lower ?? '');
        const setting = linking !== undefined && (['=', ':', 'is', 'are', 'was', 'of', 'to', 'at', 'equals', 'be', '→', '->', '=>'].includes(before) || arrow ||
          (linking.parts !== undefined && !isComponent(linking)) || isSetting(linking) || MEASURE_WORDS.has(linking) || (linking.pos === 'NOUN' && k === i - 1 && linking.text === linking.lower));
        if (setting) add({ kind: 'number', value: String(value), number: value, text: w.text, start: w.start, end: w.end });
        continue;
      }
      // Booleans: "is enabled", "=false", "turned off", "versioning on".
      const state = /^(?:enabled|disabled|on|off|true|false|active|inactive)$/.exec(w.lower)?.[0];
      // A second state coordinated with a first ("off in dev and on in prod") is linked as the first was.
      const sentenceStart = clauses.find((c) => c.sentence === clause.sentence)!.start;
      const coordinated = (i === 0 ? ['and', 'but'].includes(clause.subordinator ?? '') : ['and', 'but'].includes(words[i - 1]!.lower)) && out.some((v) => v.kind === 'boolean' && v.start >= sentenceStart);
      if (state && (i > 0 || coordinated)) {
        const before = words.slice(0, i).filter((x) => x.pos !== 'PUNCT').slice(-3);
        const linked = coordinated || before.some((x) => x.lemma === 'be' || ['=', ':', 'turned', 'switched', 'flipped', 'set', 'stays', 'remains', 'now', 'defaults', 'default'].includes(x.lower));
        const next = words[i + 1];
        // "on"/"off" end their statement, or say where or for whom ("off in prod", "on for 100% of traffic"); "on Kubernetes" is a place.
        const ends = next === undefined || next.pos === 'PUNCT' || next.pos === 'CCONJ' || ['in', 'for', 'across', 'everywhere', 'by', 'after', 'since', 'until', 'during', 'because'].includes(next.lower);
        if (linked && !(['on', 'off'].includes(state) && !ends)) {
          const negated = before.some((x) => NEGATIONS.has(x.lower) || x.lemma === 'not');
          const truth = ['enabled', 'on', 'true', 'active'].includes(state) !== negated;
          add({ kind: 'boolean', value: String(truth), text: w.text, start: w.start, end: w.end });
        }
        continue;
      }
    }
    // Names: runs of name words; before a team word ("the Tern squad") they name a team.
    for (let i = 0; i < words.length; i++) {
      // An acronym or a plain noun between a determiner and a word for a team names that team ("the SRE team"; not "the whole team").
      const w = words[i]!;
      if ((words[i - 1]?.pos === 'DET' || ['our', 'their', 'your'].includes(words[i - 1]?.lower ?? '')) && ['team', 'squad', 'guild', 'tribe'].includes(words[i + 1]?.lemma ?? '') &&
        (/^[A-Z]{2,5}$/.test(w.text) || (w.pos === 'NOUN' && /^[a-z]{3,}$/.test(w.text) && !w.stop && !GENERIC.has(w.lower))) && free(w.start, w.end)) {
        add({ kind: 'team', value: w.lower, text: text.slice(w.start, words[i + 1]!.end), start: w.start, end: words[i + 1]!.end });
        i++;
        continue;
      }
      const opening = i === 0 && clause.subordinator === null;
      // A capitalised word before a name is the name's first word ("Support Tools"), unless a verb opens the sentence ("Replaced X").
      const lead = /^\p{Lu}\p{Ll}+$/u.test(words[i]!.text) && !words[i]!.stop && words[i]!.pos !== 'DET' && !(opening && (words[i]!.pos === 'VERB' || isChangeWord(words[i]!)));
      const starts = isNameWord(words[i]!, opening) || (lead && words[i + 1] !== undefined && isNameWord(words[i + 1]!, false));
      if (!starts || !free(words[i]!.start, words[i]!.end)) continue;
      let end = i;
      while (end + 1 < words.length && /^\p{Lu}/u.test(words[end + 1]!.text) && words[end + 1]!.pos === 'PROPN' && !isComponent(words[end + 1]!)) end++;
      const run = words.slice(i, end + 1);
      const head = words[end + 1];
      const team = head !== undefined && TEAM_HEADS.has(head.lemma);
      // A name before a common noun ("the Stripe integration") or a channel ("Slack #ops") is an anchor, not a value.
      if (!team && head && ((head.pos === 'NOUN' && !TEAM_HEADS.has(head.lemma)) || /^[#@]/.test(head.text))) {
        i = end;
        continue;
      }
      const first = run[0]!;
      const last = team ? head : run.at(-1)!;
      const value = run.map((x) => x.lower).join(' ');
      // A first name the lists know, or two or three names none of which is an English word ("Karthik Rao"): a person.
      // So is a name and an initial ("Dana O.").
      const person =
        FIRST_NAMES.has(first.text) ||
        (run.length >= 2 && run.length <= 3 && run.every((x) => /^\p{Lu}\p{Ll}+$/u.test(x.text) && !isEnglishWord(x.lower))) ||
        (run.length === 2 && /^\p{Lu}\p{Ll}+$/u.test(first.text) && /^\p{Lu}\.$/u.test(run[1]!.text));
      add({ kind: team ? 'team' : person ? 'person' : 'name', value, text: text.slice(first.start, last.end), start: first.start, end: last.end });
      i = end;
    }
  }
  return out;
}

/** A component's or a setting's name, as opposed to a person's or a product's: written joined ("billing-api", "MAX_RETRIES"). */
export const COMPONENT_LIKE = /[-_.:/]/;
/** Tracked items' keys ("AUD-311", "OPS-1024"): an upper-case project key and a number of at least two digits. */
export const ISSUE_KEYS = /\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b/g;

/** Measures of who holds a role. */
export const ROLE_MEASURES = new Set(['owner', 'oncall', 'approver']);

/** Kinds of value that hold a role or a place only when a word says so ("owned by Priya", "alerts go to #ops"). */
const HOLDERS = new Set(['person', 'team', 'name', 'channel', 'email', 'path', 'url']);
/** Kinds of value that name one thing: what a clause is about when they are not its value. */
const IDENTITY_KINDS = new Set(['technology', 'person', 'team', 'name', 'path', 'url', 'channel']);

/** Does the role or place word at `at` apply to the value: near it, and not through a preposition of place or topic ("On X, ...")? */
function holdsRole(v: Value, view: ClauseView, at: number, measure: string): boolean {
  const i = tokenAt(view.tokens, v.start);
  const before = view.tokens[i - 1]?.lower ?? '';
  // A setting's key assigned it ("ADMIN_API_URL=https://...", "OWNER = @ana") holds it, whatever word is near.
  const key = view.tokens[i - 2]?.word;
  if (before === '=' && key && (isSetting(key) || KEY_SHAPE.test(key.text))) return true;
  // Where something goes is said after the word that sends it ("alerts go to #ops", "ends up in gs://drop", "writes it to s3://x").
  // A person or a name receives only through a preposition ("goes to Priya"; not "uploads a Seller app").
  if (measure === 'destination' && (i < at || (!['to', 'into', 'in', 'on'].includes(before) && !['channel', 'email', 'url', 'path'].includes(v.kind)))) return false;
  if (measure === 'destination' && (['to', 'into'].includes(before) || view.tokens[i - 2]?.lower === 'to' || i - at <= 3)) return true;
  // Not through a preposition of place or topic, unless it ends the place phrase itself ("reachable at", "lives in").
  if (['on', 'in', 'at', 'for', 'about', 'of'].includes(before) && !(measure === 'location' && i - at === 2)) return false;
  // "On-call owner for billing-api is Dana Ortiz": the role names the subject, the copula the holder.
  // And the other way round: "Dana is our on-call lead".
  const between = (from: number, to: number) => !view.tokens.slice(from, to).some((t) => t.word.pos === 'VERB' || t.lower === ',');
  // So is "as" ("Marta took over as release manager"): what its subject serves as.
  const next = view.tokens.findIndex((t) => t.word.start >= v.end);
  const roleAfter = next > 0 && at > next + 1 && at - next <= 5 && ROLE_MEASURES.has(measure) && view.tokens[at + 1]?.lower !== 'by';
  // After a copula, a noun must say what the role is of ("our ledger lead", not "the primary contact").
  const afterCopula = () => between(next + 1, at) && view.tokens.slice(next + 1, at).some((t) => NOUNISH.has(t.word.pos));
  const afterAs = () => view.tokens.slice(next, at).some((t) => t.lower === 'as');
  const copula = (view.tokens[i - 1]?.word.lemma === 'be' && at < i - 1 && between(at + 1, i - 1)) ||
    (roleAfter && (view.tokens[next]!.word.lemma === 'be' ? afterCopula() : afterAs()));
  // A role said by a verb is held by its subject ("Quinn manages the Data Platform team"), or after "by" in a passive ("led by Quinn").
  const role = view.tokens[at]!.word;
  // "Billing ownership (was) handed over to Ola Berg": a role passed on is held by whom it went to.
  if (before === 'to' && at < i && ROLE_MEASURES.has(measure) && view.tokens.slice(at + 1, i).some((t) => isChangeWord(t.word))) return true;
  if (role.pos === 'VERB' && ROLE_MEASURES.has(measure) && !copula && before !== ':') {
    const passive = view.tokens[at - 1]?.word.lemma === 'be' || ['by', 'to'].includes(view.tokens[at + 1]?.lower ?? '');
    if (passive ? i < at : i > at) return false;
  }
  // "On-call for the week: Ola Berg": a label's role is held by what follows its colon. Code quotes are no words between.
  const apart = view.tokens.slice(Math.min(i, at), Math.max(i, at)).filter((t) => t.lower !== '`').length;
  return apart <= 3 || copula || (before === ':' && at < i);
}

/** The same family of value: plain numbers and counts compare; a person and a team can hold one role. */
export const familyOf = (kind: string) => (kind === 'number' ? 'count' : kind === 'name' ? 'team' : kind);

/** Index of the token a character offset falls in (or the nearest before it): a word's first token. */
const tokenAt = (tokens: readonly Token[], offset: number) => tokens.reduce((found, t, i) => (t.word.start <= offset && t.word !== tokens[found]!.word ? i : found), 0);

/**
 * What a value measures: the nearest measure word of its clause taking its kind of value (a count's own noun counts: "3
 * replicas"); a limit word only when nothing more specific does; a technology measures its own kind; a rate counted per
 * someone with no word for it is a limit ("500 req/min per API key").
 */
function measureOf(v: Value, view: ClauseView, values: readonly Value[], per: string | undefined): { name: string; at: number } {
  if (v.measure) return { name: v.measure, at: -1 };
  if (v.kind === 'version' || v.kind === 'port' || v.kind === 'region') return { name: v.kind, at: -1 };
  if (v.kind === 'technology') return { name: v.of ?? '', at: -1 };
  const at = tokenAt(view.tokens, v.start);
  const takes = (m: { kinds: ReadonlySet<string> }) => m.kinds.has(v.kind) || (v.kind === 'number' && m.kinds.has('count')) || ((v.kind === 'name' || v.kind === 'team') && m.kinds.has('team'));
  // What a count counts, when that is a measure ("2 CPUs", "3 replicas").
  const counted = v.of ? MEASURE_WORDS.word(v.of)?.find(takes) : undefined;
  if (counted) return { name: counted.name, at: -1 };
  // A count of things no measure names ("12 concurrent renders") measures those things, not a measure word near it.
  if (v.kind === 'count' && v.of && !ANY_MEASURE_WORD.has(v.of)) return { name: v.of, at: -1 };
  const inValue = (t: Token) => values.some((x) => t.word.start >= x.start && t.word.end <= x.end);
  let best: { name: string; distance: number; at: number } | undefined;
  for (const found of MEASURE_WORDS.all(view.tokens.map((t) => (inValue(t) ? { lower: '', lemma: '' } : t)))) {
    const measure = found.value.find(takes);
    if (!measure) continue;
    // "the weekly quota reset": which reset, not how often a day or a time recurs.
    if (measure.name === 'interval' && (v.kind === 'weekday' || v.kind === 'time') && /ly$/.test(view.tokens[found.index]!.lower)) continue;
    // Whom a bare figure is counted for is not what it measures ("16 to 24 per node"); a count of a noun may be ("500 rows per page").
    if (v.kind !== 'count' && found.index > 0 && countedFor(view.tokens, found.index - 1)) continue;
    // "the busiest pod at 17.8k": one thing at a level; a count names its things in the plural ("6 pods", "replicas at 12").
    const word = view.tokens[found.index]!;
    if (v.kind === 'number' && measure.kinds.has('count') && found.length === 1 && word.lower === word.lemma && found.index < at && view.tokens[at - 1]?.lower === 'at') continue;
    // A lead time names the event it leads, not what it measures ("refreshed 60s before expiry").
    if (found.index > at && view.tokens.slice(at, found.index).some((t) => t.lower === 'before' || t.lower === 'ahead')) continue;
    // Past another value and a comma, a measure word is that value's ("pod at 17.8k, under the 19k trigger").
    const [from, to] = [Math.min(found.index, at), Math.max(found.index, at)];
    if (values.some((x) => x !== v && x.start >= view.tokens[from]!.word.start && x.end <= view.tokens[to]!.word.end) && view.tokens.slice(from, to).some((t) => t.lower === ',' || t.lower === ';')) continue;
    // A limit word names the measure only when nothing more specific does ("memory limit" is a memory).
    const distance = Math.min(Math.abs(found.index - at), Math.abs(found.index + found.length - 1 - at)) + (measure.name === 'limit' ? 100 : 0);
    if (!best || distance < best.distance) best = { name: measure.name, distance, at: found.index };
  }
  // What expires is kept that long when it is stored data ("backups expire after 35 days"), not a token or a session.
  if (best?.name === 'timeout' && view.tokens[best.at]!.lemma === 'expire' && view.tokens.some((t) => STORED_DATA.has(t.lemma))) return { name: 'retention', at: best.at };
  // A share of traffic is a rollout only where traffic is sent somewhere ("canary gets 5% of traffic"), not a share of
  // what traffic holds ("40% of requests are searches", "errors fell to 1% of traffic").
  if (best?.name === 'rollout' && view.tokens[best.at]!.lemma === 'traffic' && !view.tokens.some((t) => ROLLOUT_ACTS.has(t.lemma))) return { name: '', at: -1 };
  // A bare figure a copula gives a plural noun counts that noun ("max uploads per user is now 4").
  if (!best && v.kind === 'number') {
    let i = at - 1;
    while (i >= 0 && ['now', 'currently', 'still', 'set', 'to'].includes(view.tokens[i]!.lower)) i--;
    if (['is', 'are'].includes(view.tokens[i]?.lower ?? '')) {
      const noun = view.tokens.slice(Math.max(0, i - 5), i).findLast((t, k, list) => t.word.pos === 'NOUN' && t.lower !== t.lemma && /s$/.test(t.lower) && list[k - 1]?.lower !== 'per');
      if (noun) return { name: noun.lemma, at: view.tokens.indexOf(noun) };
    }
  }
  // An amount of money no word names is what something costs ("the Team plan is $49 a seat").
  return best ?? { name: v.kind === 'rate' && per ? 'limit' : v.kind === 'money' ? 'cost' : '', at: -1 };
}

/** Is a setting's key only a measure's word and a unit ("retention.ms", "timeout_seconds")? */
function measureAndUnit(key: string): boolean {
  const parts = splitIdentifier(key);
  return parts.length >= 2 && unitOf(parts.at(-1)!) !== undefined && parts.slice(0, -1).every((p) => ANY_MEASURE_WORD.has(p));
}

/** Is a key an extreme of a measure and nothing else ("maximum-pool-size", "min-replicas"; not a job's name, "invoice-run")? */
const boundedMeasure = (key: string) => measureOnlyKey(key) && splitIdentifier(key).some((p) => EXTREMES.word(p) !== undefined);

/** Does a key name only what is measured ("resources.limits.memory", "max_memory"), nothing it is measured of? */
function measureOnlyKey(key: string): boolean {
  const parts = splitIdentifier(key).map((p) => (p.length > 3 && p.endsWith('s') ? p.slice(0, -1) : p));
  const plain = (p: string) => GENERIC.has(p) || unitOf(p) !== undefined || BOUNDS.word(p) !== undefined || EXTREMES.word(p) !== undefined;
  return parts.length >= 2 && parts.some((p) => MEASURE_WORD.has(p)) && parts.every((p) => MEASURE_WORD.has(p) || plain(p));
}

/** Every word of a measure's vocabulary, by measure ("timeout": timeout, give, up, expire, ...): what is measured, not what it is about. */
export const MEASURE_VOCABULARY = new Map<string, Set<string>>();
for (const [name, m] of Object.entries(measuresData.measures)) {
  MEASURE_VOCABULARY.set(name, new Set(withJoinedForms(m.words).flatMap((w) => w.split(' ')).filter((w) => !FUNCTION_WORDS.has(w) && !['after', 'between', 'when', 'be'].includes(w))));
}
/** Every word of any measure's vocabulary. */
const ANY_MEASURE_WORD = new Set([...MEASURE_VOCABULARY.values()].flatMap((words) => [...words]));
/** Measure words that name a measure alone ("memory", "timeout"), not only inside a phrase ("session" of "session token"). */
const MEASURE_WORD = new Set(Object.values(measuresData.measures).flatMap((m) => m.words.filter((w) => !w.includes(' '))));

/** A setting's key as written: words joined by "_" or "." ("pool_size", "retention.ms"). */
const KEY_SHAPE = /^[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+$/i;

/** The setting key written right before a value ("pool_size 80", "max_client_conn=2000"), if any. */
function keyBefore(v: Value, view: ClauseView): Word | undefined {
  const w = view.clause.words.filter((x) => x.end <= v.start && !['=', ':', '`'].includes(x.text)).at(-1);
  return w && KEY_SHAPE.test(w.text) ? w : undefined;
}

/**
 * The setting a value is written as: the key right before it ("`POOL_MAX=20`", "pool_size 80"), before its copula
 * ("`POOL_MAX` is 40"), or alone in parentheses after it, no other value between ("waits 15 s (`POOL_WAIT_MS`)").
 */
function settingOf(v: Value, view: ClauseView, text: string, values: readonly Value[]): string | undefined {
  // A version follows its product's name ("Next.js 14"), not a key.
  if (v.kind === 'version') return undefined;
  const before = view.clause.words.filter((x) => x.end <= v.start && x.text !== '`');
  const aside = /^[^.;:()]*?\(\s*`?([\w.]+)`?\s*\)/.exec(text.slice(v.end));
  const key = keyBefore(v, view)?.text ?? (['is', 'are'].includes(before.at(-1)?.lower ?? '') ? before.at(-2)?.text : undefined) ??
    (aside && !values.some((x) => x.start >= v.end && x.start < v.end + aside[0].length) ? aside[1] : undefined);
  return key && SETTING_KEY.test(key) && !isFileName(key.toLowerCase()) ? key.toLowerCase() : undefined;
}
/** A setting's key: words joined by "_", or letters joined by "." ("retention.ms"; not a name like `audit.v3` or `next.js`'s product). */
const SETTING_KEY = /^(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:\.[a-z]+)+)$/i;
/** A path, not a URL ("apps/shop/.nvmrc", not "https://x/y"). */
export const isPath = (c: string) => c.includes('/') && !c.includes('://');
/** A file's name or path ("deploy/values.yaml", ".env.example", "rds.tf"): where something is written, not what it is about. */
export const isFileName = (c: string) => isPath(c) || /^\.[a-z]/.test(c) || /\.(?:ya?ml|json|toml|ini|conf|env|[jt]sx?|py|go|rb|rs|java|kts?|tf|dart|swift|cs|php|scala|sql|sh|gradle|proto|graphql|xml|html|s?css|vue|svelte|erb|cpp|hpp)$/.test(c) || /^(?:docker|make|proc|jenkins|gem|just|vagrant|brew|tilt)file$/.test(c);

/** Keys that other values of the clause own ("pool_size 80, max_client_conn 2000": max_client_conn is not 80's). */
const othersKeys = (v: Value, view: ClauseView, values: readonly Value[]) => {
  const own = keyBefore(v, view);
  // Only between values that each follow a key: a figure named in words keeps what its clause names.
  return new Set(own ? values.filter((x) => x !== v && x.value !== v.value).flatMap((x) => keyBefore(x, view) ?? []).filter((k) => k !== own) : []);
};

/** A unit of time after "per" ("per minute"): part of a rate, not whom it is counted for. */
const PER_TIME = /^(?:second|minute|hour|day|week|month|year|sec|min)s?$/;

/** Does "per" or "each" open whom a value is counted for ("per API key", "each tenant gets 5"), not a unit of time? */
const countedFor = (tokens: readonly Token[], i: number) =>
  (tokens[i]!.lower === 'per' || (tokens[i]!.lower === 'each' && CONTENT.has(tokens[i + 1]?.word.pos ?? ''))) && !PER_TIME.test(tokens[i + 1]?.lower ?? '');

/** Is this noun one of up to three leading straight up to a component's name ("the Kafka topic `audit.v3`")? */
function describesComponent(tokens: readonly Token[], i: number): boolean {
  if (!NOUNISH.has(tokens[i]!.word.pos) || isComponent(tokens[i]!.word)) return false;
  for (let k = i + 1, nouns = 1; k < tokens.length && nouns <= 3; k++) {
    const w = tokens[k]!.word;
    if (w.lower === '`') continue;
    if (isComponent(w)) return true;
    if (!NOUNISH.has(w.pos)) return false;
    nouns++;
  }
  return false;
}

/** Qualifiers of a value: the environment, statistic, bound and "per" unit nearest to it in its clause (words of other values and their keys aside). */
function qualifiersOf(v: Value, view: ClauseView, values: readonly Value[]): { env?: string; stat?: string; bound?: 'min' | 'max'; extreme?: 'min' | 'max'; per?: string; offset?: 'before' | 'after'; window?: string } {
  const at = tokenAt(view.tokens, v.start);
  const foreign = othersKeys(v, view, values);
  const free = view.tokens.map((t) => (foreign.has(t.word) || values.some((x) => t.word.start >= x.start && t.word.end <= x.end) ? { lower: '', lemma: '' } : t));
  const nearest = <T>(table: { all: (list: readonly Matchable[]) => { value: T; index: number }[] }, accept: (i: number) => boolean = () => true) => {
    let best: { value: T; distance: number; start: number } | undefined;
    for (const m of table.all(free)) {
      if (!accept(m.index)) continue;
      // Of two as near, the one after the value ("5432 in prod and 5433 in staging").
      const distance = Math.abs(m.index - at) - (m.index > at ? 0.5 : 0);
      if (!best || distance < best.distance) best = { value: m.value, distance, start: view.tokens[m.index]!.word.start };
    }
    return best;
  };
  // Not where something comes from ("restored from a prod snapshot" holds where it is restored).
  const source = (i: number) => view.tokens.slice(Math.max(0, i - 3), i).some((t) => t.lower === 'from');
  const plainEnv = nearest(ENVIRONMENTS, (i) => namesEnvironment(view.tokens[i]!.lower, view.tokens[i - 1]?.lower) && !source(i));
  // "3 workers in prod-ap and 5 in prod-us": the region after the value and before the next one, else the nearest before it.
  const nextValue = Math.min(...values.filter((x) => x.start >= v.end).map((x) => x.start));
  const regions = view.tokens.map((t, i) => ({ start: t.word.start, env: regionalEnv(t.word.text), after: ['in', 'on', 'for'].includes(view.tokens[i - 1]?.lower ?? '') })).filter((r) => r.env !== undefined);
  const regional = regions.find((r) => r.start >= v.end && r.start < nextValue && r.after) ?? regions.findLast((r) => r.start < v.start) ?? regions[0];
  // Of an environment word and a region, the nearer ("Restarts of prod-ap wait for the staging soak": prod-ap).
  const apart = (start: number) => Math.abs(start - v.start);
  const env =
    (regional && (!plainEnv || regional.env!.startsWith(`${plainEnv.value}-`) || apart(regional.start) <= apart(plainEnv.start)) ? regional.env : plainEnv?.value) ??
    view.tokens.map((t) => envInName(t.word.text)).find((e) => e !== undefined);
  // A statistic qualifies a value no comma or colon parts from it ("p99 is 200 ms", not "..., burst 100"; a label's colon does not).
  const parted = (i: number, marks: readonly string[]) => view.tokens.slice(Math.min(i, at), Math.max(i, at)).some((t) => marks.includes(t.lower));
  // Nor one of what led to it ("raised to 60 after waits during the payouts peak": the peak is the reason's, not the figure's);
  // "measured at 41 during the peak" is a peak figure.
  const occasion = (i: number) => i > at && view.tokens.slice(at, i).some((t) => ['after', 'following', 'since'].includes(t.lower));
  const stat = nearest(STATISTICS, (i) => !parted(i, i < at ? [',', ';'] : [',', ':', ';']) && !occasion(i))?.value;
  // A bound is next to its value ("at most 5", "5 or more"); "went up to $59" is where a change went, not a bound.
  const moved = (i: number) => {
    const before = view.tokens[i - 1]?.word;
    return before !== undefined && (RISE_VERBS.has(before.lemma) || isChangeWord(before));
  };
  const bound = nearest(BOUNDS, (i) => Math.abs(i - at) <= 3 && !moved(i))?.value;
  // Which end a setting is ("max connections is 200"), or the subject's ("the largest upload a user can send is 10 MB"),
  // counted in words apart, not tokens (backticks and the pieces of a joined name are not words).
  const wordsApart = (i: number) => view.tokens.slice(Math.min(i, at) + 1, Math.max(i, at)).filter((t, k, list) => /\w/.test(t.lower) && list[k - 1]?.word !== t.word).length + 1;
  // Past a comma, an extreme word is another value's ("6 workers, queue max 40"); who holds a role has none ("handed over to").
  // A resource's request ("memory request", "requests.cpu") is the floor it is guaranteed: the low end, beside its limit.
  const resource = v.kind === 'size' || v.of === 'cpu' || view.tokens[at - 1]?.lemma === 'cpu';
  const requested = resource && view.tokens.some((t, i) => t.lemma === 'request' && i < at && !parted(i, [';']) && [view.tokens[i - 1], view.tokens[i + 1]].some((n) => n?.lemma === 'memory' || n?.lemma === 'cpu'));
  // A label's extreme ("limits: memory 1Gi, cpu 1") is every listed value's.
  const colon = view.tokens.findIndex((t) => t.lower === ':');
  const labelled = (i: number) => i < colon && colon < at && wordsApart(i) <= 3 + view.tokens.slice(colon, at).filter((t) => t.lower === ',').length * 3 && !parted(i, [';']);
  const extreme = ['person', 'team', 'name'].includes(v.kind) ? undefined : nearest(EXTREMES, (i) => (!parted(i, [',', ';']) && (wordsApart(i) <= 5 || (i < at && view.tokens[at - 1]?.word.lemma === 'be'))) || labelled(i))?.value ?? (requested ? 'min' : undefined);
  // "per API key", "per pod", "per tenant": whom the value is counted for (not a unit of time).
  const perAt = view.tokens.findIndex((_, i) => countedFor(view.tokens, i));
  let per: string | undefined = view.clause.words.find((w) => /^per-[a-z]+$/.test(w.lower))?.lower.slice(4);
  // "per API token" runs to the end of its noun phrase; "per-user quota" to the end of its word.
  const joined = perAt >= 0 && !['per', 'each'].includes(view.tokens[perAt]!.word.lower) ? view.tokens[perAt]!.word : undefined;
  // After "each" the noun is singular: a plural form past it is the verb the tagger took for a noun ("each pod opens 50").
  const verbAfterEach = (i: number) => view.tokens[perAt]!.lower === 'each' && i > perAt + 1 && view.tokens[i]!.lower !== view.tokens[i]!.lemma && /s$/.test(view.tokens[i]!.lower);
  for (let i = perAt + 1; perAt >= 0 && i < view.tokens.length && CONTENT.has(view.tokens[i]!.word.pos) && free[i]!.lower !== '' && (!joined || view.tokens[i]!.word === joined) && !verbAfterEach(i); i++) per = view.tokens[i]!.lemma.toLowerCase();
  // "a global cap of 900/s", "40 in total": counted for everyone together, nearer the value than any "per".
  const perIndex = perAt >= 0 ? perAt : view.tokens.findIndex((t) => /^per-[a-z]+$/.test(t.word.lower));
  const whole = view.tokens.findIndex((t, i) => AGGREGATE.has(t.lower) || (t.lower === 'in' && view.tokens[i + 1]?.lower === 'total'));
  if (whole >= 0 && (perIndex < 0 || Math.abs(whole - at) < Math.abs(perIndex - at))) per = 'all';
  // A time before or after an event ("2 hours before the deadline", "30 minutes after it") is one of two offsets from it.
  const next = view.tokens.findIndex((t) => t.word.start >= v.end);
  const side = v.kind === 'duration' && next >= 0 ? view.tokens[next]!.lower : '';
  const offset = side === 'after' ? 'after' : side === 'before' || (side === 'prior' && view.tokens[next + 1]?.lower === 'to') ? 'before' : undefined;
  // "99.9% over rolling 30 days", "p95 over the last week": the window a figure is measured over, in seconds.
  const over = view.tokens.findIndex((t, i) => t.lower === 'over' && i > at && i - at <= 3);
  let window: string | undefined;
  if (over >= 0) {
    let k = over + 1;
    while (['the', 'last', 'past', 'rolling', 'trailing', 'previous'].includes(view.tokens[k]?.lower ?? '')) k++;
    const count = /^\d+$/.test(view.tokens[k]?.lower ?? '') ? Number(view.tokens[k++]!.lower) : 1;
    const unit = unitOf(view.tokens[k]?.lemma ?? '');
    if (unit?.family === 'duration' && k > over + 1) window = String(count * unit.factor);
  }
  return { ...(env ? { env } : {}), ...(stat ? { stat } : {}), ...(bound ? { bound } : {}), ...(extreme ? { extreme } : {}), ...(per ? { per } : {}), ...(offset ? { offset } : {}), ...(window ? { window } : {}) };
}

/** An environment in a region, written joined ("prod-ap", "staging-west2"): that environment there. */
function regionalEnv(text: string): string | undefined {
  const m = /^`?([a-z]+)-((?:us|eu|uk|ap|apac|emea|de|fr|jp|au|ca|sa|in|east|west|central|north|south)[a-z0-9-]*)`?$/.exec(text.toLowerCase());
  const env = m ? ENVIRONMENTS.word(m[1]!) : undefined;
  return env ? `${env}-${m![2]}` : undefined;
}

/** The environment and region a resource's name ends with ("flags-prod-us", "pg-staging-eu-1"): where it runs, when nothing else says. */
function envInName(text: string): string | undefined {
  const name = text.toLowerCase().replace(/`/g, '');
  for (let i = name.indexOf('-'); i > 0; i = name.indexOf('-', i + 1)) {
    const env = regionalEnv(name.slice(i + 1));
    if (env) return env;
  }
  return undefined;
}

/** A version named as a release, not the one in use: what the release holds ("2.8.3 fixes a leak"), where something shipped. */
function namesRelease(v: Value, view: ClauseView, text: string): boolean {
  if (v.kind !== 'version') return false;
  if (/\b(?:ship(?:s|ped)?|released|land(?:s|ed)?|fixed|added|introduced|available|removed)\s+(?:in|since)\s+(?:`?[\w.@/-]+`?\s+)?`?v?$/i.test(text.slice(Math.max(0, v.start - 48), v.start))) return true;
  // A version the clause is about, where it says where that release is in its life ("Kiosk 3.3.0 reached 100% on the store",
  // "Released `kiosk-web-2026.04.02.1`: ..."): the release's story.
  const subject = !view.tokens.slice(0, tokenAt(view.tokens, v.start)).some((t) => (t.word.pos === 'VERB' || t.word.pos === 'AUX') && !CHANGE.releaseLifecycle.has(t.word));
  if (subject && CHANGE.releaseLifecycle.all(view.tokens).length > 0) return true;
  // The word after it ("also" aside) says what the release does, or that it is one.
  const at = view.tokens.findIndex((t) => t.word.start >= v.end && /\w/.test(t.lower) && t.word.pos !== 'ADV');
  const next = view.tokens[at];
  // Or names the release itself ("3.2.0 release notes", "3.2.0 (build 77)", "3.2.0 pilot"): a release's story, not the version in use.
  return next !== undefined && (CHANGE.release.has(next.word) || CHANGE.releaseNouns.all(view.tokens.slice(at, at + 2)).some((m) => m.index === 0) ||
    (next.word.lemma === 'be' && view.tokens.slice(at + 1, at + 4).some((t) => t.lemma === 'release')));
}

/**
 * Does the version name the target of a change spoken of as a piece of work ("the Node 22 upgrade is blocked", "v3
 * migration: ticket OPS-9")? That is no version in use until the clause says the work is done ("... upgrade finished").
 */
function namesWorkTarget(v: Value, view: ClauseView): boolean {
  if (v.kind !== 'version') return false;
  const next = view.tokens.find((t) => t.word.start >= v.end && /\w/.test(t.lower) && t.word.pos !== 'ADV');
  return next !== undefined && next.word.pos === 'NOUN' && isChangeWord(next.word) && !has(CHANGE.completion, view.tokens);
}

/**
 * A percentage no measure word names, after a verb and "at", is the level at which something is done ("throttles the
 * export worker at 95%"), not a figure of that thing.
 */
function triggerLevel(v: Value, view: ClauseView): string {
  if (v.kind !== 'percentage') return '';
  const at = tokenAt(view.tokens, v.start);
  return view.tokens[at - 1]?.lower === 'at' && view.tokens.slice(0, at - 1).some((t) => t.word.pos === 'VERB') ? 'threshold' : '';
}

/** An incident, by its id or its name. */
const INCIDENT = /^(?:inc-?\d+(?:-\d+)*|incident|outage|post-?mortem|sev-?\d)$/i;

/** Words that open a write-up of what happened: an incident's ("Postmortem", "Outage", its id "INC-231") or a release's ("Changelog", "Release notes"). */
const WRITE_UP = /^(?:post-?mortem|post-incident|incident|outage|retro(?:spective)?|changelog|release note)s?$|^inc-?\d+(?:-\d+)*$/i;
/**
 * Does the clause open with a write-up's label? Not where the word only qualifies the noun after it, the subject of a
 * statement ("Incident triage happens in …"), unless the clause is only a label, which a colon ended ("Incident
 * review:", "Changelog quote-api 3.1:").
 */
function opensWriteUp(words: readonly Word[]): boolean {
  // A release's record ("Release 4.2 cut at 16:00 UTC", "Release 2.4 notes: ...").
  if (words[0]?.lower === 'release' && /^v?\d+(?:\.\d+)+$/.test(words[1]?.text ?? '')) return true;
  const length = WRITE_UP.test(words[0]?.text ?? '') ? 1 : WRITE_UP.test(words.slice(0, 2).map((w) => w.text).join(' ')) ? 2 : 0;
  if (length === 0) return false;
  const next = words[length];
  const label = words.length <= length + 3 || words.slice(length, length + 4).some((w) => w.text === ':');
  return label || !(next?.pos === 'NOUN' && /^[a-z]+$/.test(next.text));
}

/**
 * The tokens a value's claim is about: in the predicate, the clause before it and the phrase right after it (its noun,
 * one "of/for/..." phrase); as the subject ("Priya owns the search indexer"), what the clause says of it.
 */
function aboutTokens(v: Value, view: ClauseView, values: readonly Value[]): number[] {
  const tokens = view.tokens;
  const first = tokens.findIndex((t) => t.word.start >= v.start);
  const last = tokens.findLastIndex((t) => t.word.end <= v.end);
  const start = first < 0 ? tokens.length : first;
  const end = last < start ? start : last;
  // In a list ("svc: minReplicas 3, memory limit 1Gi"), only the list's head and this item's own words say what the value is of.
  const inOther = (i: number) => values.some((x) => x !== v && tokens[i] !== undefined && tokens[i].word.start >= x.start && tokens[i].word.end <= x.end);
  // A list has no verb before the item; prose ("... on August 15, within a $2,500 budget") does.
  const prose = tokens.slice(0, start).some((t) => t.word.pos === 'VERB' || t.word.pos === 'AUX');
  const listComma = prose ? -1 : tokens.findLastIndex((t, i) => i < start && t.lower === ',' && inOther(i - 1));
  const colon = tokens.findIndex((t, i) => i < start && t.lower === ':');
  const before = (i: number) => i < start && (listComma < 0 || i > listComma || (colon >= 0 && i < colon));
  const verbAt = tokens.findIndex((t) => t.word.pos === 'VERB' || t.word.pos === 'AUX');
  // A value before the verb ("cron 15 4 * * * runs the invoice export", "Priya owns search"): the whole clause says what it is of.
  if (verbAt > end) return tokens.map((_, i) => i).filter((i) => before(i) || i > end);
  const out = tokens.map((_, i) => i).filter(before);
  let preposition = false;
  for (let i = end + 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (CONTENT.has(t.word.pos) || t.word.pos === 'DET' || t.word.pos === 'NUM') out.push(i);
    else if (!preposition && t.word.pos === 'ADP' && OF_PREPOSITIONS.has(t.lower)) preposition = true;
    else break;
  }
  return out;
}

/**
 * Values named as replaced by an explicit construction between two values of one family ("from X to Y", "X → Y",
 * "replaced X with Y", "Y instead of X", "Y (was X)", ...): each maps to the value that replaces it.
 */
/** Text before or between values as a construction reads it: without code quotes or a prefix written onto the next value. */
const constructionText = (text: string) => text.replace(/`/g, '').replace(/(\s)[a-z]+\.$/i, '$1');

function replacedValues(text: string, values: readonly Value[]): Map<Value, Value> {
  const replaced = new Map<Value, Value>();
  for (let i = 0; i < values.length; i++) {
    for (let j = i + 1; j < values.length; j++) {
      const [a, b] = [values[i]!, values[j]!];
      // A name no list knows may be a person's: replaced by one ("from Dana to Lee Park"), it is.
      const kin = familyOf(a.kind) === familyOf(b.kind) || [a.kind, b.kind].sort().join() === 'name,person';
      // Where a thing is kept may move from a product to a path or an address ("moved the design docs from Notion into `docs/design/`").
      const place = !kin && ['name', 'technology'].includes(a.kind) && ['path', 'url'].includes(b.kind);
      if ((!kin && !place) || a.value === b.value || (a.of && b.of && a.of !== b.of && a.kind === 'version')) continue;
      // Code quotes around either value ("from `ubuntu-22.04` to `ubuntu-24.04`") are not words of the construction, nor a
      // prefix written onto it that the value leaves out ("from `db.r6g.large` to `db.r6g.xlarge`").
      const before = constructionText(text.slice(Math.max(0, a.start - 40), a.start));
      if (place && !/\b(?:mov|migrat)\w*\s+(?:\S+\s+){0,4}?from\s+(?:the\s+|our\s+)?$/i.test(before)) continue;
      const between = constructionText(text.slice(a.end, b.start));
      if (between.length > 60) continue;
      // "from Saturday 02:00 to Sunday 04:00" is a span of time; it is a change only after a word for one ("moved from Saturday to Sunday").
      const lead = /^(.*)\bfrom\s+$/is.exec(text.slice(Math.max(0, a.start - 60), a.start))?.[1] ?? '';
      const span = CALENDAR_KINDS.has(a.kind) && /^\s*(?:\S+\s+){0,3}?(?:to|until|till)\s+$/i.test(between) &&
        !lead.split(/[^A-Za-z]+/).filter(Boolean).slice(-6).some((w) => inChangeFamily(w.toLowerCase()));
      if (span) continue;
      if (
        // Not a range ("backoff from 2 s up to 5 min").
        // A version may be written after its product's name on both sides ("from Node 18 to Node 20", "from Expo SDK 50 to Expo SDK 51").
        ((a.kind === 'version' ? /\bfrom\s+(?:the\s+|our\s+)?(?:[A-Za-z][\w.-]*\s+){0,2}$/i : /\bfrom\s+(?:the\s+|our\s+)?$/i).test(before) && !/\bup\s+to\s+$/i.test(between) &&
          (/^\s*(?:\S+\s+){0,3}?(?:to|→|->|onto|into)\s+(?:the\s+)?$/i.test(between) || (a.kind === 'version' && /^\s*(?:to|→|->)\s+(?:[A-Za-z][\w.-]*\s+){1,2}$/i.test(between)))) ||
        // Not a flow or a staged plan written as a chain ("SES → SNS `feedback` → POST /hooks", "5% → 25% → 100%"): each
        // step leads to the next, at either end of the pair.
        (/^\s*(?:→|->|=>)\s*$/.test(between) && !/^[\s`]*\S*[\s`]*(?:→|->|=>)/.test(text.slice(b.end, b.end + 40)) && !/(?:→|->|=>)[\s`]*\S*[\s`]*$/.test(text.slice(Math.max(0, a.start - 40), a.start))) ||
        /^\s*hand(?:ed|s)?\s+(?:over\s+|off\s+)?(?:\S+\s+){0,6}?(?:over\s+|off\s+)?to\s+$/i.test(between) ||
        (/\b(?:replac(?:e|ed|es|ing)|swap(?:ped|s)?(?:\s+out)?|substitut(?:e|ed))\s+(?:the\s+|our\s+)?$/i.test(before) && /^\s*(?:\S+\s+){0,2}?(?:with|by|for)\s+(?:\S+\s+){0,2}$/i.test(between)) ||
        /^\s*(?:(?:has|have)\s+been|was|were|is|got)\s+(?:replaced|superseded|swapped out)\s+(?:by|with|for)\s+(?:\S+\s+){0,2}$/i.test(between) ||
        (/\b(?:drop(?:ped)?|remov(?:ed|e)|retir(?:ed|e)|deprecat(?:ed|e))\s+(?:the\s+)?$/i.test(before) && /^\s*(?:\S+\s+){0,2}?in\s+favou?r\s+of\s+(?:the\s+)?$/i.test(between)) ||
        (/\b(?:off|away\s+from)\s+(?:the\s+)?$/i.test(before) && /^\s*(?:\S+\s+){0,3}?(?:to|onto|for)\s+(?:the\s+)?$/i.test(between))
      ) {
        replaced.set(a, b);
      } else if (
        /^\s*(?:\S+\s+){0,3}?(?:replac(?:ed|es|ing)|supersed(?:ed|es)|(?:took|takes)\s+over\s+(?:as\s+(?:\S+\s+){1,3})?from)\s+(?:the\s+|our\s+)?$/i.test(between) ||
        // Not two products of different kinds: "charts read from Prometheus rather than BigQuery" says which source, not a swap.
        (/^\s*(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?:the\s+)?$/i.test(between) && !(a.kind === 'technology' && b.kind === 'technology' && a.of !== b.of)) ||
        /^\s*(?:[\w-]+\s+){0,2}(?:[\w-]+)?\s*[(,;—–-]?\s*(?:was|were|previously|formerly|prev\.?|up\s+from|down\s+from|used\s+to\s+be|before:?|old:?)\s*(?:~|≈|about\s+|around\s+|approx\.?\s+)?$/i.test(between)
      ) {
        replaced.set(b, a);
      }
    }
  }
  return replaced;
}

/** Kinds of value that name a point in time, which "from … to" may span. */
const CALENDAR_KINDS = new Set(['weekday', 'time', 'date']);

/** A product no list knows, in an explicit replacement with one it does ("swapped esbuild for rspack"): one of the same kind. */
function replacingProducts(text: string, values: readonly Value[]): Value[] {
  const out: Value[] = [];
  const NAME = String.raw`\x60?([A-Za-z][\w.+-]*[A-Za-z0-9])\x60?`;
  const take = (t: Value, name: string | undefined, start: number) => {
    // A setting's key ("CACHE_BACKEND") is not a product, nor is a value already read.
    if (!name || isEnglishWord(name.toLowerCase()) || name.includes('_')) return;
    if (values.some((v) => start < v.end && start + name.length > v.start)) return;
    out.push({ kind: 'technology', value: name.toLowerCase(), of: t.of, text: name, start, end: start + name.length });
  };
  for (const t of values) {
    if (t.kind !== 'technology') continue;
    const before = text.slice(Math.max(0, t.start - 40), t.start);
    const after = text.slice(t.end, t.end + 40);
    const next = new RegExp(String.raw`^\s*(?:(?:for|with|by|to|onto)\s+|(?:→|->|=>)\s*)` + NAME).exec(after);
    // "from X to Y", not "from X with Y" (reads from X with some setting).
    const from = /\bfrom\s+(?:the\s+)?$/i.test(before) && /^\s*(?:to|onto)\s/i.test(next?.[0] ?? '');
    if (next && (/(?:→|->|=>)/.test(next[0]) || from || /\b(?:swap(?:ped|s)?|replac(?:e|ed|es)|switch(?:ed|es)?|mov(?:e|ed|es)|migrat(?:e|ed|es))\s+(?:the\s+)?$/i.test(before))) {
      take(t, next[1], t.end + next[0].length - next[1]!.length - (next[0].endsWith('\x60') ? 1 : 0));
    }
    // And the one it replaced ("replaced QXL with embedded Lua", "moved from Qbus to BullMQ").
    const old = new RegExp(String.raw`\b(?:(?:swap(?:ped|s)?|replac(?:e|ed|es))\s+(?:the\s+)?${NAME}\s+(?:with|for|by)|from\s+(?:the\s+)?${NAME}\s+(?:to|onto))\s+(?:[a-z-]+\s+)?$`, 'i').exec(before);
    const name = old?.[1] ?? old?.[2];
    if (old && name) take(t, name, t.start - before.length + old.index + old[0].indexOf(name));
  }
  return out;
}

/** A bare number a construction pairs with a value ("from 10 to 20 connections", "45 s (was 30)", "5432 and 5433"): of its kind and unit. */
function pairedNumbers(text: string, values: readonly Value[]): Value[] {
  const out: Value[] = [];
  const free = (start: number, end: number) => ![...values, ...out].some((v) => start < v.end && end > v.start && !(v.kind === 'number' && v.start === start));
  const scale = (v: Value) => (v.number !== undefined && /\d/.test(v.text) ? v.number / Number(/\d+(?:\.\d+)?/.exec(v.text)![0]) : 1);
  /** The number of `m`'s first group, matched in the text from `offset` on, read as a value like `v`. */
  const pair = (v: Value, m: RegExpExecArray | null, offset: number) => {
    if (!m || !['duration', 'size', 'rate', 'percentage', 'count', 'number', 'money', 'port', 'version'].includes(v.kind)) return;
    const start = offset + m.index + m[0].lastIndexOf(m[1]!);
    if (!free(start, start + m[1]!.length)) return;
    const raw = Number(m[1]);
    const n = Math.round(raw * scale(v) * 1e9) / 1e9;
    const value = v.kind === 'money' ? `${n} ${v.value.split(' ')[1]}` : v.kind === 'port' ? String(raw) : v.kind === 'version' ? m[1]! : String(n);
    out.push({ ...v, value, number: n, text: m[1]!, start, end: start + m[1]!.length, high: undefined });
  };
  for (const v of values) {
    const before = Math.max(0, v.start - 30);
    pair(v, /\bfrom\s+(\d+(?:\.\d+)?)\s+to\s+$/i.exec(text.slice(before, v.start)), before);
    // "KEY_MS from 1000 to 250": the number a value goes to is in its unit too.
    // (A figure may end its sentence: "up from 20.")
    if (/\bfrom\s+$/i.test(text.slice(before, v.start))) pair(v, /^\s*(?:to|→|->)\s+(\d+(?:\.\d+)?)(?![\w%]|\.\d)/i.exec(text.slice(v.end, v.end + 20)), v.end);
    const was = /^\s*[(,;—–-]?\s*(?:was|previously|formerly|up from|down from|from)\s+(?:~|≈|about\s+|around\s+|approx\.?\s+)?(\d+(?:\.\d+)?)(?![\w%]|\.\d)/i;
    pair(v, was.exec(text.slice(v.end, v.end + 40)), v.end);
  }
  return out;
}

/**
 * Values the clause says are gone, with nothing in their place: the object of a removal done ("dropped Sentry"), what "no
 * longer" applies to, and a value followed by a word of retirement ("#deploys got archived").
 */
function goneValues(view: ClauseView, values: readonly Value[], text: string): Set<Value> {
  const out = new Set<Value>();
  const words = view.clause.words;
  const removalAt = words.findIndex((_, i) => removalDone(words, i));
  const noLonger = words.findIndex((w, i) => w.lower === 'no' && words[i + 1]?.lower === 'longer');
  for (const v of values) {
    if (!['technology', 'person', 'team', 'name', 'channel', 'email', 'url', 'path', 'region', 'version'].includes(v.kind) || namesRelease(v, view, text)) continue;
    const after = text.slice(v.end, v.end + 40).toLowerCase();
    const retired = /^\W{0,3}(?:[a-z-]+\s+)?(?:(?:was|were|is|has been|have been|got|gets|is now|are now)\s+)?(\w+(?:\s(?:down|off))?)/.exec(after)?.[1];
    // What is removed, not where from ("emails are deleted from Postgres" leaves Postgres in place).
    const from = words.some((w, i) => (w.lower === 'from' || w.lower === 'out') && w.end <= v.start && i > removalAt && !words.slice(i + 1).some((x) => x.end <= v.start && !['DET', 'ADJ', 'NOUN', 'PROPN'].includes(x.pos)));
    const removedHere = removalAt >= 0 && v.start > words[removalAt]!.start && !from && !words.some((w) => w.pos === 'PUNCT' && w.start > words[removalAt]!.start && w.end <= v.start);
    if (removedHere || (noLonger >= 0 && v.start > words[noLonger]!.start) || (retired !== undefined && CHANGE.gone.word(retired) !== undefined)) out.add(v);
  }
  return out;
}

/** The fact as stored: claims, statements, a deletion request, dependencies and every concept it mentions. */
export function readFactText(content: string): FactEntity[] {
  const text = normalizeText(content);
  const reading = readText(text);
  const conditional = conditionalSentencesOf(reading.clauses);
  const planned = plannedSentencesOf(reading.clauses);
  const views = reading.clauses.map((c, i) => readClause(c, i, conditional, planned));
  // A question states nothing, nor what it asks about in the same sentence ("I'm sizing a pool of 40, can you check it?"),
  // unless that reports a change made ("I've raised the pool to 40, can you check it?").
  const asked = new Set(views.filter((v) => v.mode === 'plan' && asks(v.clause.words)).map((v) => v.clause.sentence));
  for (const view of views) if (asked.has(view.clause.sentence) && !view.mode && !view.cue) view.mode = 'plan';
  // A sentence opening as a write-up ("Postmortem (...): ...", "Changelog v2.1: ...") is history: its figures held then.
  // A fact that opens as one is a write-up to its end ("INC-9 root cause: ... . Rolled back at 09:58.").
  const incidents = new Set(views.filter((v) => v.clause.start === views.find((o) => o.clause.sentence === v.clause.sentence)?.clause.start && opensWriteUp(v.clause.words)).map((v) => v.clause.sentence));
  const writeUp = views.length > 0 && incidents.has(views[0]!.clause.sentence);
  for (const view of views) if (writeUp || incidents.has(view.clause.sentence)) view.cue = null;
  // A correction a label announces ("Correction to the retry note: ...") is said by the clause after its colon.
  views.forEach((view, i) => {
    const label = views[i - 1];
    if (view.clause.subordinator !== ':' || view.cue || view.mode || label?.cue !== 'correction' || label.mode || label.clause.sentence !== view.clause.sentence) return;
    if (!label.clause.words.some((w) => w.pos === 'VERB' || w.pos === 'AUX')) view.cue = label.cue;
  });
  // A remark in parentheses restates its clause's change ("raised the TTL to 2 h (`CACHE_TTL=7200`)").
  for (const view of views) {
    if (view.clause.subordinator !== '(' || view.cue || view.mode) continue;
    // The clause it follows, or sits in, in its sentence.
    const host = views.filter((o) => o !== view && o.clause.subordinator !== '(' && o.clause.sentence === view.clause.sentence && o.clause.start < view.clause.start).at(-1);
    // After the change it restates ("raised X to 7 days (...)"), not a label's aside before it ("INC-12 (api, 40 min): a bump that changed ...").
    const said = host?.clause.words.some((w) => w.end <= view.clause.start && (isChangeWord(w) || CHANGE.markers.has(w)));
    if (host?.cue === 'change' && !host.mode && said) view.cue = 'change';
  }
  const shaped = valuesByShape(text);
  const byWords = [...shaped, ...valuesByWords(text, reading.clauses, shaped)];
  const found = [...byWords, ...replacingProducts(text, byWords)];
  // A paired number takes the place of the bare number read at its span ("1200 req/min (was 600)").
  const paired = pairedNumbers(text, found);
  const values = [...found.filter((v) => !(v.kind === 'number' && paired.some((p) => p.start === v.start))), ...paired].sort((a, b) => a.start - b.start);
  // "from Python 3.11 to 3.12": a dotted number paired with a version is a version of the same product.
  for (let i = 0; i + 1 < values.length; i++) {
    const [a, b] = [values[i]!, values[i + 1]!];
    if (!/^\s*(?:to|→|->|=>)\s*$/i.test(text.slice(a.end, b.start))) continue;
    const [version, number] = a.kind === 'version' ? [a, b] : [b, a];
    const from = /\bfrom\s+(?:\S+\s+)?$/i.test(text.slice(Math.max(0, a.start - 30), a.start));
    if (version.kind === 'version' && number.kind === 'number' && (number.text.includes('.') || from)) Object.assign(number, { kind: 'version', of: version.of, value: number.text });
  }
  // "Terraform 1.6.2", "pins cobra v1.8.0", "uses ioredis 5.4.1": a version whose shape names no product is of the word written just before it.
  for (const v of values) {
    if (v.kind !== 'version' || v.of) continue;
    // (Through its interface's version: "Acme API version pinned to 2023-10-16".)
    const before = values.filter((x) => (x.kind === 'technology' || x.kind === 'name') && x.end <= v.start && /^[\s:@]{0,3}(?:(?:api|sdk|cli)\s+)?(?:v|version\s+(?:[a-z]+\s+to\s+)?)?$/i.test(text.slice(x.end, v.start))).at(-1);
    const lead = text.slice(Math.max(0, v.start - 60), v.start);
    // Also past a word for which release it is, and a label's colon or an equals sign ("zephyr-sdk latest = 2.3.0", "zephyr-sdk: 2.3.0").
    const word = /([A-Za-z][\w./@-]*)(?:\s+(?:latest|current|stable))?(?:\s*[:=]\s*|[\s@]+)(?:version\s+)?$/.exec(lead)?.[1];
    // Else "<component> image … <version>": the version is of that component's image ("api image is built on 2.3.0").
    const image = /([A-Za-z][\w.-]*)\s+(?:container\s+|docker\s+)?image\b[^.;]*$/i.exec(lead)?.[1];
    // A setting's key for it ("`FFMPEG_VERSION` to 7.0.2", "node.version: 22"): the version of what the key names.
    const keyed = /\b([a-z][a-z0-9]*)[_.-]version`?\s*(?:[:=]|to|is|at)?\s*$/i.exec(lead)?.[1];
    // Not a verb's participle ("replacing v21", "pinned 2.3").
    const name = [keyed, word, image].find((w) => w && !/^(?:is|are|was|were|to|at|on|of|from|version|v|the|a|an|and|or|no|not|any|only|now|still|currently|latest|current|stable|tag|image|set|be|been|uses?|runs?|with|for|by|in|since|after|before|until|as)$/i.test(w) && !/^[a-z]+(?:ing|ed)$/.test(w));
    if (before) v.of = before.value;
    else if (name) v.of = name.toLowerCase();
  }
  // "Acme API version 2023-10-16 → 2024-04-10": the version a change moves to is of the product of the one it leaves.
  for (let i = 0; i + 1 < values.length; i++) {
    const [a, b] = [values[i]!, values[i + 1]!];
    if (a.kind === 'version' && b.kind === 'version' && a.of && !b.of && /^\s*(?:to|→|->|=>)\s*$/i.test(text.slice(a.end, b.start))) b.of = a.of;
  }
  const replaced = replacedValues(text, values);
  const entities: FactEntity[] = [];
  const mentions = new Set<string>();
  const inSpan = (w: Word, list: readonly Value[]) => list.some((v) => w.start < v.end && w.end > v.start);
  // A name between a count's number and what it counts narrows it ("2 HTTP/2 connections" are not the DB pool's).
  const narrows = (w: Word | undefined, v: Value) => w !== undefined && v.kind === 'count' && w.start > v.start && w.end < v.end && /[A-Z\d/]/.test(w.text);

  // A day something happened on, not either end of a period that holds ("this week (Nov 30 – Dec 6)").
  const RANGE = /^\s*(?:–|—|-|to|until|through)\s*$/;
  const dates = values.filter((v) => v.kind === 'date');
  const days = new Set(dates.filter((v) => !dates.some((o) => o !== v && (RANGE.test(text.slice(o.end, v.start)) || RANGE.test(text.slice(v.end, o.start))))));
  const day = (v: Value) => days.has(v);
  const datedIn = (start: number, end: number) => values.some((v) => day(v) && v.start >= start && v.end <= end);
  // "day 3", "sprint 14", "week 2": a number after a word of time says which one of a sequence it is, not a figure.
  const numbered = (v: Value) => {
    const noun = v.kind === 'number' && /^\d{1,3}$/.test(v.text) ? /(\w+)\s+$/.exec(text.slice(Math.max(0, v.start - 12), v.start))?.[1]?.toLowerCase() : undefined;
    return noun && TIME_NOUNS.has(noun) ? `${noun} ${v.text}` : undefined;
  };
  // A label qualifies what follows it in its sentence: an environment ("In staging: ..."), or a date, making it a record of then.
  const labels = new Map<number, { env?: string; dated: boolean; past: boolean; start: number }>();
  views.forEach((view, i) => {
    // Past a remark in parentheses that is part of the label ("INC-12 (Sev3, 2026-10-21): ...").
    const next = views.slice(i + 1).find((o) => o.clause.subordinator !== '(');
    if (view.clause.subordinator === '(' || next?.clause.subordinator !== ':' || next.clause.sentence !== view.clause.sentence || labels.has(view.clause.sentence)) return;
    const env = ENVIRONMENTS.all(view.clause.words).find((m) => namesEnvironment(view.clause.words[m.index]!.lower, view.clause.words[m.index - 1]?.lower))?.value;
    // Not a clause announcing a change, with its date and a colon before the reason ("Raised X to 7 days on 03-02, OPS-4: ..."):
    // that is the change, not a record's label.
    const dated = view.cue === null && datedIn(view.clause.start, next.clause.start);
    // Or a past period ("Exports last week: ...", "Over the past 30 days: ...", "Seen last Friday: ...").
    const words = view.clause.words;
    const past = words.some((w, k) => w.lower === 'yesterday' || (['last', 'past', 'previous'].includes(w.lower) && words.slice(k + 1, k + 3).some((x) => TIME_NOUNS.has(x.lemma) || WEEKDAYS.includes(x.lower))));
    const logged = dayLogged(words, views.filter((o) => o.clause.sentence === view.clause.sentence && o.clause.start >= next.clause.start).flatMap((o) => o.clause.words));
    if (env || dated || past || logged) labels.set(view.clause.sentence, { ...(env ? { env } : {}), dated: dated || logged, past, start: view.clause.start });
  });
  // A log's entry ("Deploy log: the canary at 30% on 2026-03-04"): what it records held on the date it gives.
  for (const view of views) {
    const [first, second, third] = view.clause.words;
    const colonAt = first?.lemma === 'log' && second?.text === ':' ? 1 : second?.lemma === 'log' && third?.text === ':' ? 2 : -1;
    if (colonAt < 0 || view.clause.subordinator !== null || labels.has(view.clause.sentence)) continue;
    const sentenceEnd = Math.max(...views.filter((o) => o.clause.sentence === view.clause.sentence).map((o) => o.clause.end));
    if (datedIn(view.clause.words[colonAt]!.end, sentenceEnd + 1)) labels.set(view.clause.sentence, { dated: true, past: false, start: view.clause.start });
  }
  // A dated label the reader left in one clause with what follows it, as no verb follows its colon ("Rota change Tue Mar 10 at 09:00
  // (Ana → Bo primary): Bo → Cy secondary"): a colon after the date, with no verb between them. Not a period's label ("Week of
  // 2026-03-02: ..."): that holds for the period, and is compared with what is said of the same one (align.ts, periodOf).
  for (const view of views) {
    const sentence = view.clause.sentence;
    if (labels.has(sentence) || view.clause.subordinator !== null) continue;
    const colon = /:\s/.exec(text.slice(view.clause.start, view.clause.end))?.index;
    if (colon === undefined) continue;
    const before = views.filter((o) => o.clause.sentence === sentence).flatMap((o) => o.clause.words).filter((w) => w.start >= view.clause.start && w.end <= view.clause.start + colon);
    // ("Lisbon time" names a zone, no period.)
    const after = views.filter((o) => o.clause.sentence === sentence).flatMap((o) => o.clause.words).filter((w) => w.start > view.clause.start + colon);
    if (dayLogged(before, after) || (datedIn(view.clause.start, view.clause.start + colon) && !before.some((w) => w.pos === 'VERB' || w.pos === 'AUX' || (TIME_NOUNS.has(w.lemma) && w.lemma !== 'time')))) {
      labels.set(sentence, { dated: true, past: false, start: view.clause.start });
    }
  }
  const labelOf = (view: ClauseView) => [labels.get(view.clause.sentence)].find((label) => label && view.clause.start >= label.start);
  // A clause naming no environment holds in the one an earlier clause of its sentence names ("In staging ...; it keeps 2 pods").
  const sentenceEnv = (view: ClauseView) => views.filter((o) => o.clause.sentence === view.clause.sentence && o.clause.start < view.clause.start && o.clause.subordinator !== '(')
    .flatMap((o) => o.clause.words.flatMap((w) => regionalEnv(w.text) ?? (namesEnvironment(w.lower, w.previous) ? (ENVIRONMENTS.at([w], 0)?.value ?? []) : []))).at(-1);
  // First, each clause on its own: its values with what they measure, its named things and its anchors.
  const read = views.map((view) => {
    // Not the values of a side remark in parentheses inside it: those are the remark's.
    const asides = views.filter((o) => o !== view && o.clause.subordinator === '(' && o.clause.start > view.clause.start && o.clause.end <= view.clause.end);
    const clauseValues = values.filter((v) => v.start >= view.clause.start && v.end <= view.clause.end + 1 && !asides.some((o) => v.start >= o.clause.start && v.end <= o.clause.end + 1));
    // "HPA (staging): min 1": an environment named alone in parentheses qualifies the clause around it.
    const asideEnv = asides.map((o) => o.clause.words.filter((w) => /\p{L}/u.test(w.text))).filter((words) => words.length > 0 && words.length <= 2)
      .map((words) => ENVIRONMENTS.all(words)[0]?.value).find((env) => env !== undefined) ?? labelOf(view)?.env ?? sentenceEnv(view);
    const gone = goneValues(view, clauseValues, text);
    const drafts: { v: Value; measure: string; measureAt: number; quals: ReturnType<typeof qualifiersOf>; gone: boolean }[] = [];
    for (const v of clauseValues) {
      if (replaced.has(v) || numbered(v) !== undefined) continue;
      // "PUT /v2/users/{id}": a path after an HTTP method names the endpoint, the thing the clause is about.
      if (v.kind === 'path' && /\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+$/.test(text.slice(Math.max(0, v.start - 8), v.start))) continue;
      // "p99 140 ms over the last 7 days": the window a figure was measured over; not a figure kept ("keeps the last 7 days").
      const window = text.slice(Math.max(0, v.start - 30), v.start);
      if (v.kind === 'duration' && /\b(?:last|past|previous|trailing)\s+$/i.test(window) && (/\b(?:over|in|during|for|within)\s+the\s+\w+\s+$/i.test(window) || !/\b(?:keep|kept|retain|store|hold|retention)/i.test(window))) continue;
      const found = qualifiersOf(v, view, clauseValues);
      const quals = found.env || !asideEnv ? found : { ...found, env: asideEnv };
      const read = measureOf(v, view, clauseValues, quals.per);
      // "The ledger DB is `db-7.int.example.org`": an address a copula gives its subject is where that subject lives; so is
      // one a thing is called at ("reaches the ledger at https://...").
      const before = view.tokens.slice(0, tokenAt(view.tokens, v.start)).findLast((t) => t.lower !== '`');
      const at = before?.lower === 'at' && NOUNISH.has(view.tokens[view.tokens.indexOf(before) - 1]?.word.pos ?? '') ? view.tokens.indexOf(before) - 1 : -1;
      // So is one a thing moved to ("moved to https://...").
      const movedTo = before?.lower === 'to' && view.cue === 'change';
      const measure = v.kind === 'url' && read.name === '' && (before?.word.lemma === 'be' || before?.lower === '=' || before?.lower === ':' || at >= 0 || movedTo) ? { name: 'location', at: at >= 0 ? at : view.tokens.indexOf(before!) } : read;
      // A person, a team, a channel, an address or a path is a value only as what a role or a place word says, or when named in an
      // explicit replacement ("@ana → @bo"); otherwise it is what the clause is about.
      const replacing = [...replaced.values()].includes(v);
      if (HOLDERS.has(v.kind) && !gone.has(v) && !replacing && (measure.name === '' || !holdsRole(v, view, measure.at, measure.name))) continue;
      // A technology is a claim when the clause says something of it (a verb, or its kind named); "(Redis, redis-01)" only names it.
      // So does an instrument's preposition ("X signs webhooks with ES384", where a tagger may read "signs" as a noun).
      const instrument = INSTRUMENTS.has(before?.lower ?? '');
      if (v.kind === 'technology' && !instrument && !view.clause.words.some((w) => w.pos === 'VERB' || w.pos === 'AUX' || MEASURE_VOCABULARY.get(measure.name)?.has(w.lemma))) continue;
      if (v.kind === 'technology' && VENDOR_TERMS.has(view.tokens.find((t) => t.word.start >= v.end && !["'s", '`', "'"].includes(t.lower))?.lemma ?? '')) continue;
      // A limit on how long something takes is a timeout ("kills the job if a run lasts longer than 15 minutes").
      const limit = (measure.name === 'duration' || measure.name === 'latency') && quals.extreme === 'max' ? 'timeout' : measure.name;
      // A figure compared in a condition ("pages when p95 > 2s", and "... for 10 minutes") is where an alert fires, not the figure.
      const comparison = /(?:[<>]=?|[≥≤]|\b(?:exceeds?|above|over|below|under))\s*$/i;
      const condition = CONDITIONS.has(view.clause.subordinator ?? '') && view.clause.subordinator !== 'unless';
      const compared = condition && (comparison.test(text.slice(Math.max(0, v.start - 10), v.start)) || (/\bfor\s+$/i.test(text.slice(Math.max(0, v.start - 5), v.start)) && clauseValues.some((o) => comparison.test(text.slice(Math.max(0, o.start - 10), o.start)))));
      // "5 attempts per account per 10 minutes": the window a rate is counted over, compared only with windows.
      const name = compared ? 'threshold' : v.kind === 'duration' && /\bper\s+$/i.test(window) ? 'window' : limit || triggerLevel(v, view);
      // A count no measure word names measures what it counts ("40 end-to-end tests").
      drafts.push({ v, measure: name || (v.kind === 'count' ? (v.of ?? '') : ''), measureAt: measure.at, quals, gone: gone.has(v) });
    }
    const valued = drafts.map((d) => d.v);
    const identities = clauseValues.filter((v) => !replaced.has(v) && IDENTITY_KINDS.has(v.kind));
    // Named things: components, and names that are not what the clause states ("the Courier apps"). A participle phrase after
    // its values and a comma (", keyed by order_id") adds a detail, not the thing; so does a comparison (", like billing-api").
    const lastValue = Math.max(-1, ...clauseValues.map((v) => v.end));
    const participle = (w: Word, next: Word | undefined) => w.start >= lastValue && lastValue >= 0 && /(?:ed|ing)$/.test(next?.lower ?? '');
    const comparison = (w: Word, ws: readonly Word[], i: number) => clauseValues.some((v) => v.end <= w.start) && (ws[i]?.lower === 'like' || (ws[i]?.lower === 'the' && ws[i + 1]?.lower === 'same'));
    // So does when it is for ("ahead of the statewide rollout in Georgia").
    const trailing = view.clause.words.find((w, i, ws) => (w.lower === 'ahead' && ws[i + 1]?.lower === 'of') || (w.text === ',' && (participle(w, ws[i + 1]) || comparison(w, ws, i + 1))))?.start ?? Infinity;
    // A plain word in code quotes is a name too ("the `low` queue").
    const quoted = (w: Word) => /^[a-z]{2,}$/.test(w.text) && text[w.start - 1] === '`' && text[w.end] === '`';
    const named = new Set(view.clause.words.filter((w) => (isComponent(w) || quoted(w)) && w.start < trailing && !values.some((v) => w.start < v.end && w.end > v.start) &&
      !(/[_.]/.test(w.text) && measureOnlyKey(w.lower))).map((w) => w.lower.replace(/`/g, '')));
    // A platform before its channel ("Slack #ops") names no thing of its own.
    const platform = (end: number) => /^\s+`?[#@]\w/.test(text.slice(end, end + 4));
    for (const v of identities) if (!valued.includes(v) && (familyOf(v.kind) === 'person' || v.kind === 'technology') && !platform(v.end) && v.start < trailing) named.add(v.value);
    // A setting's key names one setting: two keys are two things. Not a key that is only a measure and its unit ("ttl_seconds").
    const keys = new Set<string>();
    for (const w of view.clause.words) if (isSetting(w) && /[_.]/.test(w.text) && w.start < trailing && !measureAndUnit(w.text) && !measureOnlyKey(w.lower)) keys.add(w.lower);
    for (const k of keys) named.add(k);
    // An environment variable ("HOOK_SIGNING_SECRET") is a setting's key too, though named as a component.
    for (const w of view.clause.words) if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(w.text)) keys.add(w.lower);
    // A noun numbered or lettered ("Module 0", "Service B", "Region 2", "day 3") names one of several.
    view.clause.words.forEach((w, i, ws) => {
      const next = ws[i + 1];
      if (next && /^\p{Lu}\p{Ll}+$/u.test(w.text) && /^(?:[A-Z]|\d{1,2})$/.test(next.text) && !values.some((v) => next.start < v.end && next.end > v.start)) named.add(`${w.lower} ${next.lower}`);
    });
    for (const one of clauseValues.map(numbered)) if (one) named.add(one);
    for (const [i, w] of view.clause.words.entries()) if (isNameWord(w, i === 0 && view.clause.subordinator === null) && !inSpan(w, values) && !platform(w.end) && w.start < trailing) named.add(w.lower);
    const anchors = new Map<number, string>();
    // Kinds of the components named ("cron" of "the `legacy-export` cron"): mentioned, though no anchor.
    const roles: string[] = [];
    // Words that qualify a value rather than name what it is about: bounds and extremes, and whom it is counted for ("per tenant").
    const qualifying = new Set([...BOUNDS.all(view.tokens), ...EXTREMES.all(view.tokens)].flatMap((m) => Array.from({ length: m.length }, (_, k) => m.index + k)));
    view.tokens.forEach((t, i) => {
      if (!countedFor(view.tokens, i)) return;
      for (let k = i + 1; k < view.tokens.length && CONTENT.has(view.tokens[k]!.word.pos); k++) qualifying.add(k);
    });
    view.tokens.forEach((t, i) => {
      if (platform(t.word.end) || regionalEnv(t.word.text)) return;
      // "orders.created topic", "ledger-worker service", "topic `x`": the kind of the component named beside it, not a thing of its own.
      const before = view.tokens.slice(0, i).findLast((x) => x.lower !== '`')?.word;
      const after = view.tokens.slice(i + 1).find((x) => x.lower !== '`')?.word;
      if (COMPONENT_ROLES.has(t.lower) && ((before && before !== t.word && isComponent(before)) || (after && after !== t.word && isComponent(after)))) {
        roles.push(t.lemma);
        return;
      }
      // "squad Lynx", "the Tern team": the word that says a name is a team's.
      if (TEAM_HEADS.has(t.lemma) && clauseValues.some((v) => ['team', 'name', 'person'].includes(v.kind) && (v.start - t.word.end <= 1 && v.start >= t.word.end || (t.word.start - v.end <= 1 && t.word.start >= v.end)))) return;
      const identity = identities.find((v) => t.word.start >= v.start && t.word.end <= v.end);
      if (identity) {
        if (![...anchors.values()].includes(identity.value)) anchors.set(i, identity.value);
        return;
      }
      // Nouns leading up to a component's name ("the Kafka topic `x`", "our Redis `y`") say what it is: mentioned, no thing of their own.
      if (describesComponent(view.tokens, i)) {
        roles.push(t.lemma);
        return;
      }
      if (inSpan(t.word, valued.filter((v) => !IDENTITY_KINDS.has(v.kind) && !narrows(t.word, v))) || inSpan(t.word, [...replaced.keys()]) || qualifying.has(i)) return;
      const part = (t.word.parts !== undefined && !isComponent(t.word)) || isSetting(t.word);
      // A key's unit ("ms" of retention.ms) says how the figure is written, not what it is about.
      const a = part ? (CONTENT.has(t.word.pos) && !GENERIC.has(t.lemma) && !FUNCTION_WORDS.has(t.lower) && t.lower.length >= 2 && !unitOf(t.lemma) ? t.lemma : null) : anchorOf(t.word);
      if (a) anchors.set(i, a);
    });
    // What the clause names besides its own values: nothing means it is about what its sentence names.
    const own = [...anchors.values()].filter((a) => !valued.some((v) => v.value === a));
    return { view, clauseValues, drafts, named: [...named].sort(), keys, anchors, own, roles };
  });

  for (const [index, { view, clauseValues, drafts, named, anchors, own, roles }] of read.entries()) {
    const mates = read.filter((r, i) => i !== index && r.view.clause.sentence === view.clause.sentence);
    // A clause that names no component is about its sentence's other clauses' ("X is owned by Billing; Leila is the contact"),
    // else the sentences before; one that names nothing, about their names. A remark in parentheses lends nothing.
    const inParens = view.clause.subordinator === '(';
    // Nor does a subordinate clause after a main one ("moved the build to 04:30 so it starts after the Airbyte sync"): it is about the main clause.
    const subordinate = (r: (typeof read)[number]) => !['(', 'and', ':', ',ing', null].includes(r.view.clause.subordinator);
    // A subordinate clause borrows from the clauses it hangs on, before it ("X, which is on 14 — so no Y": not Y).
    // Not from what a dash, a colon or a semicolon after it adds ("CI is GitHub Actions now — jobs on runners in `ci-euw1`",
    // "Moved X to 05:30: the 04:00 run raced the Fivetran sync", "minSdk is now 28; Play Console shows ..."): a detail or a
    // reason, not the thing.
    const afterDash = (r: (typeof read)[number]) => r.view.clause.start > view.clause.start && /[—–:;]/.test(text.slice(view.clause.end, r.view.clause.start));
    const lenders = mates.filter((r) => r.view.clause.subordinator !== '(' && (view.clause.subordinator === null || r.view.clause.start < view.clause.start) &&
      !(view.clause.subordinator === null && r.view.clause.start > view.clause.start && subordinate(r)) && !afterDash(r));
    const joined = (list: readonly string[]) => list.filter((c) => COMPONENT_LIKE.test(c));
    const plain = (list: readonly string[]) => list.filter((c) => !COMPONENT_LIKE.test(c));
    const measured = new Set(drafts.flatMap((d) => [...(MEASURE_VOCABULARY.get(d.measure) ?? [])]));
    // Names nothing of its own but what it measures ("Leila is the primary contact", "CPU request 100m", "p99 is about 60ms").
    const bare = own.every((a) => measured.has(a) || GENERIC.has(a));
    const earlier = read.slice(0, index).reverse().find((r) => r.view.clause.subordinator !== '(' && joined(r.named).length > 0);
    // A setting's key is lent only to a clause measuring what its words say ("POOL_SIZE=20; raised to 30"), not something else.
    const lendable = (r: (typeof read)[number], c: string) => !r.keys.has(c) || splitIdentifier(c).some((p) => measured.has(p) || drafts.some((d) => d.measure === p));
    const fromSentence = lenders.flatMap((r) => joined(r.named).filter((c) => lendable(r, c)));
    // After a label ("X: ...") or as a second predicate ("X does A and keeps B"), the clause shares the subject before it.
    const continues = view.clause.subordinator === ':' || view.clause.subordinator === 'and' || view.clause.subordinator === ',ing';
    const borrowed = [
      // A remark in parentheses is about what its clause names, whatever setting it names itself ("TTL to 3 days (`ttl_s=259200`)").
      ...(inParens || (joined(named).length === 0 && (bare || continues)) ? (fromSentence.length > 0 ? fromSentence : earlier ? joined(earlier.named).filter((c) => lendable(earlier, c)) : []) : []),
      ...(named.length === 0 ? lenders.flatMap((r) => plain(r.named)) : []),
    ];
    // A subordinate clause ("X pages when lag on T passes N") is also about its main clause's components.
    const main = view.clause.subordinator !== null && view.clause.subordinator !== '(' && !continues ? lenders.filter((r) => r.view.clause.subordinator === null).flatMap((r) => joined(r.named).filter((c) => lendable(r, c))) : [];
    const components = [...new Set([...named, ...borrowed, ...main])].sort();
    // Between two components, the one after "to" or "calling" is the one called ("timeout from A to B" is not B's to A).
    const toward = components.length === 2 ? view.clause.words.find((w, i) => components.includes(w.lower) && /^(?:to|calling|into)$/.test(view.clause.words[i - 1]?.lower ?? ''))?.lower : undefined;
    // A clause that names nothing else ("and 5433 in staging") is about what its sentence names, not a subordinate clause after
    // it; a relative clause with a component it borrowed is about that component.
    const relative = ['which', 'who', 'whose'].includes(view.clause.subordinator ?? '') && components.length > 0;
    // Nor from a side remark after it (", checked in the gateway config"): where it was seen is not what it is about.
    const after = (r: (typeof read)[number]) => r.view.clause.start > view.clause.start && (subordinate(r) || r.view.clause.subordinator === ',ing');
    const inherited = own.length === 0 && named.length === 0 && !relative ? [...new Set(lenders.filter((r) => !after(r)).flatMap((r) => r.own))] : [];
    for (const a of [...anchors.values(), ...roles]) mentions.add(a);
    for (const c of components) {
      mentions.add(c);
      // A setting's key is read by its words ("pool_size" is named by "default_pool_size").
      if (/_/.test(c) || /^[a-z]+(?:\.[a-z]+)+$/.test(c)) for (const p of splitIdentifier(c)) mentions.add(p);
    }
    // And what a count counts ("480p poster frames", "3 replicas"): the fact names those things.
    for (const v of clauseValues) for (const m of [v.value, ...(v.kind === 'count' && v.of && /^[a-z][a-z-]{2,}$/.test(v.of) ? [v.of] : [])]) mentions.add(m);

    // A clause that reports in the past tense, not as a change, what happened on a date ("v2.3 (shipped 2026-01-12) had 12 open
    // bugs") states what held then, not now.
    // Figures reported for a past period held then; a change reported for it is still a change ("Last week: moved X to Y").
    // So does one that says it is history ("used to take 3 s", "was sampling at 40% at the time").
    // So does a figure of what is left of something used up: a reading at its moment, which later readings follow.
    // And what a "when" clause tells in the past tense of its subject ("up from 300/day when syncs ran every 12h", not "when
    // served from the cache"): how it was then.
    const then = view.clause.subordinator === 'when' && view.cue === null && view.clause.words.some((w, i, words) => w.pos === 'VERB' && w.lower !== w.lemma && !/(?:ing|s)$/.test(w.lower) && NOUNISH.has(words[i - 1]?.pos ?? '')) && !view.clause.words.some((w) => w.pos === 'AUX');
    const event = then || view.clause.words.some((_, i, words) => leftOver(words, i)) || incidents.has(view.clause.sentence) || labelOf(view)?.dated === true || (labelOf(view)?.past === true && view.cue === null) || (view.cue === null && has(CHANGE.history, view.tokens)) ||
      values.some((v) => day(v) && v.start >= view.clause.start && v.end <= view.clause.end && /^\s*\)?\s*:/.test(text.slice(v.end, v.end + 4))) ||
      (view.cue === null && values.some((v) => v.kind === 'date' && v.start >= view.clause.start && v.end <= view.clause.end + 1) &&
        view.clause.words.some((w) => (w.pos === 'VERB' || w.pos === 'AUX') && w.lower !== w.lemma && (!/(?:ing|s)$/.test(w.lower) || w.lower === 'was')));
    // One claim per thing measured: values listed together ("A and B") are one claim's values.
    const claims = new Map<string, ClaimEntity>();
    for (const { v, measure, measureAt, quals, gone: isGone } of drafts) {
      const vocabulary = MEASURE_VOCABULARY.get(measure);
      const about = new Set(aboutTokens(v, view, clauseValues));
      // Who holds a role is not what the role is of: "Kofi (SRE team) owns it" is his team, not the thing owned; nor is the
      // lead a team is under ("belongs to the Checkout squad under Ana") a component of it.
      const holders = ROLE_MEASURES.has(measure) ? new Set(clauseValues.filter((x) => x.kind === 'person' || x.kind === 'team').map((x) => x.value)) : new Set<string>();
      const keep = (i: number, a: string) => (about.has(i) || narrows(view.tokens[i]!.word, v)) && a !== v.value && a !== v.of && !holders.has(a) && !vocabulary?.has(a) && !vocabulary?.has(view.tokens[i]!.lower);
      const kept = [...anchors].filter(([i, a]) => keep(i, a));
      // Adjectives ("public", "internal") qualify what the nouns name: they tell two things apart only against other adjectives.
      const adjective = (i: number) => view.tokens[i]?.word.pos === 'ADJ';
      const claimAnchors = [...new Set([...kept.filter(([i]) => !adjective(i)).map(([, a]) => a), ...inherited])].sort();
      // So does a frequency in the clause ("hourly runs take 3 minutes"): what runs hourly is not what runs daily.
      const frequencies = measure === 'interval' ? [] : clauseValues.filter((x) => x.measure === 'interval' && !replaced.has(x) && /^[a-z]+ly$/i.test(x.text)).map((x) => x.text.toLowerCase());
      const qualities = [...new Set([...kept.filter(([i]) => adjective(i)).map(([, a]) => a), ...frequencies])].sort();
      // A noun right before a measure noun narrows it ("session timeout", "connect timeout"); a component's name there is what is measured.
      const single = measureAt > 0 && view.tokens[measureAt]!.word.pos === 'NOUN' && MEASURE_WORDS.at(view.tokens, measureAt)?.length === 1;
      const before = single ? anchors.get(measureAt - 1) : undefined;
      const modifier = before && !COMPONENT_LIKE.test(before) ? before : undefined;
      const of = v.kind === 'version' ? v.of : undefined;
      const setting = settingOf(v, view, text, values);
      const key = JSON.stringify([familyOf(v.kind), measure, of, claimAnchors, qualities, quals, modifier, setting]);
      let claim = claims.get(key);
      if (!claim) {
        const foreignKeys = new Set([...othersKeys(v, view, clauseValues)].map((k) => k.lower));
        claim = {
          type: 'claim', kind: v.kind, measure, anchors: claimAnchors, ...(qualities.length ? { qualities } : {}),
          components: components.filter((c) => c !== v.value && !foreignKeys.has(c) && !holders.has(c)), values: [], display: [], ...quals,
          ...(modifier && claimAnchors.includes(modifier) ? { modifier } : {}), ...(toward ? { toward } : {}), ...(of ? { of } : {}), ...(setting ? { setting } : {}),
          ...(view.mode ? { mode: view.mode } : event || namesRelease(v, view, text) ? { mode: 'event' as const } : namesWorkTarget(v, view) ? { mode: 'plan' as const } : {}), ...(view.cue ? { cue: view.cue } : {}),
          ...(negatedAt(view, v) ? { negated: true } : {}), ...(view.clause.words.some((w) => ADDITIVE.has(w.lower)) ? { additive: true } : {}),
          ...(!view.cue && has(CHANGE.continuity, view.tokens) ? { kept: true } : {}), clause: view.index,
        };
        claims.set(key, claim);
      }
      if (isGone) {
        if (!(claim.previous ??= []).includes(v.value)) claim.previous.push(v.value);
      } else if (!claim.values.includes(v.value)) {
        claim.values.push(v.value);
        claim.display.push(v.text);
      }
      for (const [old, by] of replaced) if (by === v && !(claim.previous ??= []).includes(old.value)) claim.previous.push(old.value);
    }
    entities.push(...claims.values());

    const deletes = deletionOf([view]);
    if (deletes) entities.push(deletes);
    else {
      const aside = mates.filter((r) => r.view.clause.subordinator === '(' && !r.view.negated && r.view.clause.start > view.clause.start && r.view.clause.end < view.clause.end)
        .flatMap((r) => [...r.anchors.values(), ...r.named]);
      // What "it" or "they" stands for: the subject of the fact's statement before, else a thing its first clause opens with.
      const before = entities.findLast((e): e is StatementEntity => e.type === 'statement')?.subject ?? [];
      const head = read.slice(0, index).find((r) => r.view.clause.subordinator === null);
      const opener = head ? [...new Set([...head.named, ...head.anchors.values()])].filter((n) => head.view.clause.words.slice(0, 3).some((w) => w.lower.replace(/`/g, '') === n)) : [];
      const statement = statementOf(view, values, aside, before.length > 0 ? before : opener);
      // Said of one environment ("staging: no HPA"): it denies nothing of another.
      const envs = [...new Set(ENVIRONMENTS.all(view.tokens).filter((m) => namesEnvironment(view.tokens[m.index]!.lower, view.tokens[m.index - 1]?.lower)).map((m) => m.value))];
      const env = labelOf(view)?.env ?? (envs.length === 1 ? envs[0] : undefined) ?? sentenceEnv(view);
      if (statement) entities.push(env ? { ...statement, env } : statement);
    }
  }
  entities.push(...dependenciesOf(views, values, (v) => labelOf(v)?.dated === true));
  // What the fact says changed or ended, clause by clause (main clauses, not plans): a dependency on it goes stale.
  const said = (keep: (v: ClauseView) => boolean) => [...new Set(read.filter((r) => keep(r.view) && !r.view.mode && (r.view.clause.subordinator === null || r.view.clause.subordinator === 'and' || r.view.clause.subordinator === ':')).flatMap((r) => [...r.anchors.values(), ...r.named, ...r.clauseValues.map((v) => v.value)]))].sort();
  // What changed is what a changed claim or statement is about, not every word of its clause.
  const changed = [...new Set(entities.flatMap((e) =>
    e.type === 'claim' && !e.mode && (e.cue || e.previous?.length) ? [...e.anchors, ...e.components] : e.type === 'statement' && e.cue ? [...e.subject, ...e.target] : []))].sort();
  // "the freeze ended", "the migration is done", "Ana left"; not "expired windows" (an adjective before its noun).
  const ended = said((v) => v.clause.words.some((w, i, words) =>
    ((CHANGE.completion.has(w) || CHANGE.departure.has(w)) && !leftOver(words, i) && (changeDone(words, i) || endState(words, i) || ((w.pos === 'ADJ' || w.pos === 'ADV') && !NOUNISH.has(words[i + 1]?.pos ?? '')))) ||
    (w.lower === 'back' && endState(words, i))));
  // Named things a clause says are gone: the subject of a word of retirement ("search-v1 was decommissioned"), the object of a removal done.
  const gone = new Set<string>();
  for (const r of read) {
    if (r.view.mode) continue;
    const words = r.view.clause.words;
    // A vendor whose contract, licence or subscription ended or was not renewed ("the Textlyn contract expired", "we did not
    // renew the Pagerlyx licence"; a negation may say so) is gone: a product by its name, one no list knows by the capitalised
    // words before the term (not a sentence's first English word alone).
    if (words.some((w, i) => (CHANGE.completion.has(w) && changeDone(words, i)) || (w.lemma === 'renew' && negatedVerb(words, i)))) {
      words.forEach((w, i) => {
        if (!VENDOR_TERMS.has(w.lemma)) return;
        const product = r.clauseValues.find((v) => v.kind === 'technology' && words.find((x) => x.start >= v.end && x.text !== '`') === w);
        let k = i;
        while (k > 0 && /^\p{Lu}/u.test(words[k - 1]!.text) && words[k - 1]!.pos !== 'PUNCT') k--;
        const name = words.slice(k, i);
        if (product) gone.add(product.value);
        else if (name.length > 0 && (k > 0 || name.some((x) => !isEnglishWord(x.lower)))) gone.add(name.map((x) => x.lower).join(' '));
      });
    }
    if (r.view.negated) continue;
    const isName = (w: Word) => isComponent(w) || /^#[a-z]/.test(w.lower);
    // And a product that is the head of what went, or names its one instance ("Jenkins was shut down", "the Elasticsearch
    // cluster was decommissioned"; not "Elasticsearch snapshot schedules are removed", which keeps Elasticsearch).
    const products = (from: number, to: number) => r.clauseValues.filter((v) => {
      if (v.kind !== 'technology' || to <= from || v.start < words[from]!.start || v.end > words[to - 1]!.end) return false;
      let next = words.findIndex((w) => w.start >= v.end);
      if (next < 0) next = words.length;
      if (COMPONENT_ROLES.has(words[next]?.lemma ?? '')) next++;
      while (next < to && (['be', 'get', 'have'].includes(words[next]!.lemma) || words[next]!.pos === 'ADV')) next++;
      // (One of a list of what went: "Removed Storybook and every addon".)
      return next === to || words[next]?.pos === 'CCONJ' || words[next]?.text === ',';
    }).map((v) => v.value);
    const names = (from: number, to: number) => [...words.slice(from, to).filter(isName).map((w) => w.lower.replace(/`/g, '')), ...products(from, to)];
    // "is archived" is a state, "are dropped" a habit, "were dropped" an act done; so is a headline ("`db-old` shut down").
    const goneMatches = CHANGE.gone.all(r.view.tokens).map((m) => ({ ...m, at: words.indexOf(r.view.tokens[m.index]!.word) }));
    const goneAt = new Set(goneMatches.map((m) => m.at));
    const headline = (i: number) => words.slice(0, i).some(isName) && words.slice(0, i).every((x) => isName(x) || x.pos === 'DET' || x.pos === 'ADV' || x.pos === 'PUNCT' || COMPONENT_ROLES.has(x.lemma));
    const retired = (w: Word, i: number) => i > 0 && ((goneAt.has(i) && (['was', 'were', 'is', 'are', 'got', 'been'].includes(words[i - 1]!.lower) || headline(i))) ||
      (CHANGE.removal.has(w) && /ed$/.test(w.lower) && ['was', 'were', 'got', 'been'].includes(words[i - 1]!.lower)));
    // Each subject's head, not what a preposition adds to it ("duplicates from `x.events` were dropped"); "A are gone and B
    // has been decommissioned" retires both.
    let from = 0;
    words.forEach((w, i) => {
      if (w.lower === 'and' || w.text === ',') from = i + 1;
      if (!retired(w, i)) return;
      const preposition = words.findIndex((x, k) => k >= from && k < i && x.pos === 'ADP');
      for (const n of names(from, preposition >= 0 ? preposition : i)) gone.add(n);
    });
    // A headline opening with the act done ("Shut down `ci-mac-02`"), or the writer reporting a removal ("We cancelled
    // Opsgenie"): the names it gives, up to a preposition or pause.
    // (A product no list knows is a name no dictionary holds, as the whole object: "We cancelled Opsgenie".)
    const objectFrom = (at: number) => {
      const end = words.findIndex((w, i) => i >= at && (w.pos === 'ADP' || w.pos === 'PUNCT') && w.text !== '`');
      const object = words.slice(at, end < 0 ? words.length : end);
      for (const n of names(at, end < 0 ? words.length : end)) gone.add(n);
      if (object.length === 1 && object[0]!.pos === 'PROPN' && !isEnglishWord(object[0]!.lower) && !r.clauseValues.some((v) => v.kind !== 'name' && v.start <= object[0]!.start && v.end >= object[0]!.end)) gone.add(object[0]!.lower);
    };
    const opening = goneMatches.find((m) => m.at === 0 && (m.length > 1 || words[0]!.lower !== words[0]!.lemma));
    if (opening) objectFrom(opening.length);
    const reported = [...CHANGE.removal.all(r.view.tokens), ...CHANGE.completion.all(r.view.tokens)]
      .find((m) => m.index > 0 && FIRST_PERSON.has(r.view.tokens[m.index - 1]!.lower) && /ed$/.test(r.view.tokens[m.index]!.lower));
    if (reported) objectFrom(words.indexOf(r.view.tokens[reported.index]!.word) + reported.length);
    // "Ana left": a person named before a departure done is gone (not one who handed a role over).
    const handover = (m: { index: number; length: number }) => m.length > 1 && ['hand', 'pass'].includes(r.view.tokens[m.index]!.lemma);
    // Away for a while counts too ("is on parental leave until March").
    const away = (i: number) => words[i]!.lower === 'leave' && (words[i - 1]?.lower === 'on' || words[i - 2]?.lower === 'on');
    const departure = CHANGE.departure.all(r.view.tokens).find((m) => {
      const i = words.indexOf(r.view.tokens[m.index]!.word);
      return !handover(m) && (m.length > 1 || changeDone(words, i) || words[i]!.lower === 'left' || away(i));
    });
    // A person by name or handle ("@ravi left").
    const at = departure ? r.view.tokens[departure.index]!.word.start : -1;
    for (const v of r.clauseValues) if ((v.kind === 'person' || v.kind === 'name') && v.end <= at) gone.add(v.value);
  }
  // A product replaced by another ("swapped CircleCI for Buildkite") is gone too.
  for (const e of entities) if (e.type === 'claim' && (e.kind === 'technology' || e.kind === 'name') && !e.mode && e.values.length > 0) for (const p of e.previous ?? []) gone.add(p);
  // A plan, work in progress or any condition ("if the build cache misses, CI falls back to ..."): behaviour or intent, not a change made.
  // Of the change, when the fact announces one: a hedge in another sentence ("Staging deploys will need an approval") is a rule of its own.
  const hedges = read.filter((r) => r.view.mode || r.view.clause.subordinator === 'if' || r.view.clause.subordinator === 'unless' || (r.view.clause.words.length > 0 && CHANGE.conditional.has(r.view.clause.words[0]!)));
  const cued = new Set(read.filter((r) => !r.view.mode && r.view.cue !== null).map((r) => r.view.clause.sentence));
  const hedged = hedges.some((r) => cued.size === 0 || cued.has(r.view.clause.sentence));
  const announces = read.some((r) => !r.view.mode && r.view.cue !== null && [null, 'and', ':'].includes(r.view.clause.subordinator));
  entities.push({
    type: 'mentions', value: [...mentions].sort(), ...(changed.length ? { changed } : {}), ...(ended.length ? { ended } : {}),
    ...(gone.size ? { gone: [...gone].sort() } : {}), ...(hedged ? { hedged: true as const } : {}), ...(read.some((r) => r.view.mode) ? { planned: true as const } : {}),
    ...(announces ? { announces: true as const } : {}),
  });
  return entities;
}

/**
 * A clause as a statement: its subject, act (its verb's class: "rely on" is "use"), object, whether it asserts or denies
 * ("no longer", "dropped X" deny, with a change cue), and its target: the phrase the act is about, or that the negation
 * governs ("no cross-tenant queries": both words). Plans and conditions state nothing.
 */
function statementOf(view: ClauseView, values: readonly Value[], aside: readonly string[] = [], referent: readonly string[] = []): StatementEntity | null {
  if (view.mode || (view.clause.subordinator !== null && view.clause.subordinator !== 'and' && view.clause.subordinator !== ':')) return null;
  // What a clause tells as history ("used to", "from before March") is not asserted now.
  if (view.cue === null && has(CHANGE.history, view.tokens)) return null;
  const words = view.clause.words;
  // An instruction ("Don't shrink the pool without checking billing", "Never ship on Fridays") tells what to do, not what is.
  if (imperativeDenial(words)) return null;
  // A denial's act is the verb its negation governs ("notify never calls X": calls, not notify).
  const negationAt = words.findIndex((w) => NEGATIONS.has(w.lower) || w.lemma === 'not');
  const afterNegation = negationAt >= 0 ? words.findIndex((w, i) => i > negationAt && w.pos === 'VERB') : -1;
  const verbAt = afterNegation >= 0 ? afterNegation : words.findIndex((w) => w.pos === 'VERB');
  const existential = words.findIndex((w, i) => w.lower === 'there' && words[i + 1]?.lemma === 'be');
  const noAt = words.findIndex((w) => w.lower === 'no' || w.lower === 'without' || w.lower === 'none');
  if (verbAt < 0 && existential < 0 && noAt < 0) return null;
  const verb = verbAt >= 0 ? words[verbAt]! : undefined;
  const removal = verbAt >= 0 && removalDone(words, verbAt);
  const positive = !view.negated && !removal;
  const concepts = (list: readonly Word[]) => {
    const out: string[] = [];
    for (const w of list) {
      const tech = TECHNOLOGIES.at([w], 0)?.value;
      if (tech) out.push(tech.name, tech.kind);
      const a = anchorOf(w, true);
      // An acronym is a name ("US", "IT"), whatever word it spells.
      if (a && (!FIRST_PERSON.has(a) || /^[A-Z]{2,}$/.test(w.text)) && !out.includes(a)) out.push(a);
    }
    return out;
  };
  /** The noun phrase starting at `i`: determiners, adjectives, nouns, names. */
  const phraseAt = (i: number) => {
    const out: Word[] = [];
    // A gerund is a noun here ("no rate limiting"); so is a base form ending a compound before a preposition or the end
    // ("no theme switch in the menu": the tagger reads the head as a verb).
    const head = (k: number) => words[k]!.pos === 'VERB' && words[k]!.lower === words[k]!.lemma && words[k - 1]?.pos === 'NOUN' && k > i &&
      ['ADP', 'PUNCT', undefined].includes(words[k + 1]?.pos);
    for (let k = i; k < words.length && (CONTENT.has(words[k]!.pos) || words[k]!.pos === 'DET' || words[k]!.pos === 'NUM' || words[k]!.lower === 'no' || (words[k]!.pos === 'VERB' && /ing$/.test(words[k]!.lower)) || head(k)); k++) {
      out.push(head(k) ? { ...words[k]!, pos: 'NOUN' } : words[k]!);
    }
    return out.filter((w) => w.pos !== 'DET' && w.lower !== 'no');
  };
  let auxAt = verbAt - 1;
  while (auxAt >= 0 && (words[auxAt]!.pos === 'ADV' || words[auxAt]!.pos === 'PART' || NEGATIONS.has(words[auxAt]!.lower))) auxAt--;
  const objectWords = verbAt >= 0 ? words.slice(verbAt + 1).filter((w) => !values.some((v) => v.kind !== 'technology' && familyOf(v.kind) !== 'person' && w.start < v.end && w.end > v.start)) : [];
  const passive = verb !== undefined && words[auxAt]?.lemma === 'be' && /(?:ed|en)$/.test(verb.lower) && !objectWords.some((w) => NOUNISH.has(w.pos));
  let subjectEnd = Math.max(0, verbAt >= 0 ? (passive ? auxAt : verbAt) : noAt >= 0 ? noAt : existential);
  // What the statement is about: the phrase after a negation ("no X", "without X"), the object after the verb, or a passive's subject.
  let targetWords: Word[];
  if (!positive && noAt >= 0 && (verbAt < 0 || noAt > verbAt || existential >= 0)) targetWords = phraseAt(noAt + 1);
  else if (passive) {
    let np = auxAt;
    while (np > 0 && CONTENT.has(words[np - 1]!.pos)) np--;
    targetWords = words.slice(np, auxAt).filter((w) => CONTENT.has(w.pos));
    subjectEnd = np;
  } else {
    const first = words.findIndex((w, i) => i > verbAt && CONTENT.has(w.pos));
    targetWords = verbAt >= 0 && first >= 0 ? phraseAt(first) : [];
  }
  const subjectWords = words.slice(0, subjectEnd).filter((w) => !(NEGATIONS.has(w.lower) || w.lower === 'there'));
  // "It isn't exposed publicly", "No autoscaler" after a clause about a thing: said of that thing, not of everything.
  const pronoun = subjectWords.every((w) => THIRD_PERSON.has(w.lower) || (!CONTENT.has(w.pos) && !FIRST_PERSON.has(w.lower)));
  const subject = pronoun && referent.length > 0 ? [...referent] : concepts(subjectWords);
  const target = concepts(targetWords).filter((c) => !GENERIC.has(c));
  // Where a denial holds ("we never use an ORM in the Go services"): the phrase after its target.
  const lastTarget = targetWords.at(-1);
  const whereAt = lastTarget ? words.findIndex((w) => w.start === lastTarget.start) + 1 : -1;
  const where = !positive && whereAt > 0 && ['in', 'on', 'for', 'at', 'across'].includes(words[whereAt]?.lower ?? '') ? concepts(phraseAt(whereAt + 1)).filter((c) => !GENERIC.has(c)) : [];
  const object = [...new Set([...concepts(objectWords), ...concepts(targetWords), ...aside])];
  if (target.length === 0) return null;
  // The products it is done with ("applied with Flyway", "shipped via Argo CD", "built using Bazel").
  const uses = words.flatMap((w, i) => !INSTRUMENTS.has(w.lower) ? [] : values.filter((v) => (v.kind === 'technology' || v.kind === 'name') &&
    v.start >= w.end && v.end <= view.clause.end + 1 && !words.slice(i + 1).some((x) => x.end <= v.start && !['DET', 'ADJ'].includes(x.pos))));
  const verbClass = existential >= 0 || verbAt < 0 ? 'exist' : (VERB_CLASSES.at(words, verbAt)?.value ?? verb!.lemma);
  return {
    type: 'statement', positive, verb: verbClass, subject, object, target, ...(where.length ? { where } : {}),
    ...(uses.length ? { uses: [...new Set(uses.map((v) => v.value))] } : {}), ...(view.cue || removal ? { cue: view.cue ?? 'change' } : {}), clause: view.index,
  };
}

/** Does the clause open with a negated imperative: "Don't", "Do not", or "Never" and a verb's bare form? */
function imperativeDenial(words: readonly Word[]): boolean {
  if (words[0]?.lower === 'do' && ['not', "n't", 'n’t'].includes(words[1]?.lower ?? '')) return true;
  return words[0]?.lower === 'never' && words[1]?.pos === 'VERB' && words[1].lower === words[1].lemma;
}

/** A request to forget facts: an imperative of forgetting ("forget", "drop") about a note or a thing, or a note done with ("... can go"). */
function deletionOf(views: readonly ClauseView[]): FactEntity | null {
  for (const view of views) {
    const words = view.clause.words;
    const start = words.findIndex((w) => !['please', 'pls', 'so', 'also', 'then', 'and', 'just', 'you', 'can', 'should', 'we'].includes(w.lower) && w.pos !== 'PUNCT');
    // An imperative is the verb's base form: "Removed the flag" reports a change to the code, it asks nothing of the memory.
    const imperative = start >= 0 && CHANGE.deletion.has(words[start]!) && (words[start]!.pos === 'VERB' || start === 0) && words[start]!.lower === words[start]!.lemma;
    const noteAt = words.findIndex((w) => CHANGE.memoryNouns.has(w));
    const judged = noteAt >= 0 ? /\b(?:can|should|must)\s+(?:go|be\s+(?:dropped|removed|deleted|forgotten|ignored))\b|\b(?:is|are)\s+(?:obsolete|outdated|wrong|incorrect|inaccurate|stale|not\s+(?:true|right|correct|accurate)|no longer (?:true|valid|relevant|accurate))\b|\b(?:is|are|was|were)\s+never\s+(?:true|right|correct|accurate)\b/i.exec(words.slice(noteAt).map((w) => w.text).join(' ')) : null;
    const doneWith = judged !== null;
    if (!imperative && !doneWith) continue;
    // A note said to be done with is named up to that saying ("the note that X was never true": X).
    const judgedAt = judged ? noteAt + words.slice(noteAt).map((w) => w.text).join(' ').slice(0, judged.index).split(' ').length - 1 : words.length;
    const rest = imperative ? words.slice(start + 1) : words.slice(0, judgedAt);
    // Imperatives over things, not notes, must name a note or come first ("Forget the VPN host").
    if (imperative && noteAt < 0 && start !== 0) continue;
    const target = rest
      .filter((w) => !CHANGE.memoryNouns.has(w) && !CHANGE.old.has(w) && !CHANGE.gone.has(w))
      // "the rerun-on-X tip": words joined into a label are its words.
      .flatMap((w) => (w.parts && (!isComponent(w) || w.parts.some((p) => FUNCTION_WORDS.has(p.lower))) ? w.parts : [w]))
      .map((w) => ({ w, a: anchorOf(w) }))
      .filter((x): x is { w: Word; a: string } => x.a !== null && !FIRST_PERSON.has(x.a));
    // What the note is about is named by its names and nouns; a verb or an adjective ("being restricted to", "flaky") is how the
    // request puts it, which the note may have said in other words: left out where a joined name or two other words remain.
    const named = target.filter(({ w }) => w.pos !== 'VERB' && w.pos !== 'ADJ');
    const kept = named.some(({ a }) => COMPONENT_LIKE.test(a)) || named.length >= 2 ? named : target;
    if (kept.length > 0) return { type: 'deletion', target: [...new Set(kept.map(({ a }) => a))] };
  }
  return null;
}

/** What a person holds or grants, that a fact may depend on ("signs with Ana's key", "needs Bo's approval"). */
const HELD = new Set(words.held_by_person);

/** What a fact says it depends on: a reason or condition ("because", "since", "until", "as long as"), or someone's key, approval or sign-off. */
function dependenciesOf(views: readonly ClauseView[], values: readonly Value[], dated: (view: ClauseView) => boolean): FactEntity[] {
  const out: FactEntity[] = [];
  for (const view of views) {
    const words = view.clause.words;
    const sub = view.clause.subordinator;
    const at = words.findIndex((w, i) => ['until', 'till'].includes(w.lower) || ((w.lemma === 'depend' || w.lemma === 'rely') && words[i + 1]?.lower === 'on'));
    // "until 3 days before launch", "until 18:00", "till Friday": a deadline, not a thing waited on.
    const deadline = (from: number) => values.some((v) => ['duration', 'time', 'weekday', 'date'].includes(v.kind) && v.start >= from && v.start - from <= 2);
    const byDeadline = (at >= 0 && ['until', 'till'].includes(words[at]!.lower) && deadline(words[at]!.end)) || (sub !== null && ['until', 'till'].includes(sub) && deadline(view.clause.start));
    if (!byDeadline && ((sub && ['because', 'since', 'until', 'till', 'unless'].includes(sub)) || at >= 0)) {
      // What it waits for, not the word for its end ("until the freeze ends": the freeze).
      const target = words.slice(at >= 0 ? at + 1 : 0).map((w, k, rest) => (CHANGE.completion.has(w) && (w.pos === 'VERB' || k === rest.length - 1 || rest[k + 1]!.pos === 'PUNCT') ? null : anchorOf(w)))
        // (Nor when it is: "the March freeze" is the freeze.)
        .filter((a): a is string => a !== null && !FIRST_PERSON.has(a) && !TIME_NOUNS.has(a) && !MONTH_WORDS.has(a) && unitOf(a) === undefined);
      if (target.length > 0) out.push({ type: 'dependency', target: [...new Set(target)], ...(sub === 'until' || sub === 'till' || words[at]?.lower === 'until' ? { ends: true } : {}) });
    }
    // "for as long as the contract runs", "while the migration is in progress", "while Ana is out": the fact holds while
    // its subject lasts. Not a condition that recurs ("while a trip is active", "as long as any replica is up", "while
    // the buffer is full"): the rule holds each time.
    const longAs = words.findIndex((w, i) => w.lower === 'as' && words[i + 1]?.lower === 'long' && words[i + 2]?.lower === 'as');
    const during = sub === 'while' ? 0 : words[0]?.lower === 'while' ? 1 : -1;
    const rest = words.slice(longAs >= 0 ? longAs + 3 : Math.max(during, 0)).filter((w) => w.pos !== 'PUNCT');
    // Up to its verb; one the tagger read as a noun ("the contract runs") is its last word.
    const verb = rest.findIndex((w) => w.pos === 'VERB' || w.pos === 'AUX');
    // Or while a named thing is in the middle of a change ("while Stripe migrates the ledger", "while the vendor is rolling
    // out 4.2"): an act that ends.
    const changing = (k: number) => CHANGE.verbs.at(rest, k) !== undefined || CHANGE.releaseLifecycle.at(rest, k) !== undefined;
    // (The tagger may read the verb as a noun: "NetSuite rolls out".)
    const acting = rest.findIndex((w, k) => k > 0 && (w.pos === 'VERB' || w.pos === 'NOUN') && w.lower !== w.lemma && /s$/.test(w.lower) && changing(k) && rest.slice(0, k).every((x) => NOUNISH.has(x.pos) || x.pos === 'DET'));
    const act = acting > 0 || (verb >= 0 && rest[verb]!.lemma === 'be' && /ing$/.test(rest[verb + 1]?.lower ?? '') && changing(verb + 1));
    const temporary = longAs >= 0 || (during >= 0 && ((rest[verb]?.lemma === 'be' && rest.slice(verb + 1).some((w) => TEMPORARY_STATES.has(w.lower))) || act));
    if (temporary && rest.length > 0 && !['a', 'an', 'any', 'each', 'every'].includes(rest[0]!.lower)) {
      const target = rest.slice(0, acting > 0 ? acting : verb >= 0 ? verb : rest.length - 1).map((w) => anchorOf(w)).filter((a): a is string => a !== null && !FIRST_PERSON.has(a));
      if (target.length > 0) out.push({ type: 'dependency', target: [...new Set(target)], ends: true });
    }
    // "during incident INC-7", "during the Winter Sale": a named episode (a tracked item or a name), which ends; not a kind of
    // moment that recurs ("during deploys", "during peak hours"). So is a freeze's ("deploy freeze for the Spring Sale").
    // Not in a record of what happened then ("Observed 05-02: the queue peaked at 40 during the ACME import").
    const duringAt = words.findIndex((w, i) => w.lower === 'during' || (w.lower === 'for' && words.slice(0, i).some((x) => FREEZES.has(x.lower) || FREEZES.has(x.lemma))));
    const record = () => dated(view) || words.some((w, i) => w.pos === 'VERB' && w.lower !== w.lemma && /ed$/.test(w.lower) && words[i - 1]?.pos !== 'AUX');
    if (duringAt >= 0 && !record()) {
      const phrase = words.slice(duringAt + 1);
      const stop = phrase.findIndex((w) => ['PUNCT', 'ADP', 'VERB', 'AUX', 'SCONJ'].includes(w.pos));
      const episode = phrase.slice(0, stop < 0 ? phrase.length : stop);
      const named = episode.some((w) => w.text.match(ISSUE_KEYS)?.[0] === w.text || (w.pos === 'PROPN' && !MONTH_WORDS.has(w.lower) && !WEEKDAYS.includes(w.lower)));
      const target = episode.map((w) => anchorOf(w)).filter((a): a is string => a !== null && !TIME_NOUNS.has(a));
      if (named && target.length > 0 && !['a', 'an', 'any', 'each', 'every'].includes(episode[0]!.lower)) out.push({ type: 'dependency', target: [...new Set(target)], ends: true });
    }
    // "signs with Ana's key": the fact holds while Ana holds it. Only what a person holds or grants (a key, an account, an
    // approval), not what is theirs to work on ("Ana's tickets", "Ana's handover").
    words.forEach((w, i) => {
      if ((w.text === "'s" || w.text === '’s') && i > 0 && HELD.has(words[i + 1]?.lemma ?? '') && values.some((v) => familyOf(v.kind) === 'person' && v.end === words[i - 1]!.end)) {
        out.push({ type: 'dependency', target: [words[i - 1]!.lower, ...(words[i + 1] ? [anchorOf(words[i + 1]!) ?? ''] : [])].filter(Boolean) });
      }
    });
  }
  return out;
}

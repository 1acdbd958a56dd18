/**
 * What a fact claims, read with the NLP reader rather than sentence shapes:
 *
 * - a **frame** for every value it states: the concepts of the words the value belongs to (the
 *   clause's subject, the words before the value back to the previous value, the noun phrase it
 *   quantifies), lemmas folded into concepts, generic words and change cues left out — so "the
 *   search API answers in 180 ms on average" and "search latency dropped to 120 ms once the index
 *   landed" both read `{search, latency}` and can be compared;
 * - **open-class values** the vocabulary cannot list: people and product names, money, written
 *   dates, Slack channels, URLs, emails, counts of anything ("6 engineers", "7 times");
 * - **statements** with their polarity, so "there is no staging environment yet" meets "staging
 *   runs on Fly in ams";
 * - **cues**, clause by clause: a change announced ("was raised to", "is the new", "Update:"), a
 *   plan or work in progress ("plans to", "is underway"), a correction ("actually");
 * - **deletion requests** ("forget the note about the old VPN") and **dependencies** ("signed
 *   with the security lead's key", "because we use Redis", "until the migration finishes").
 *
 * Everything here is stored with the fact (in its entities) at commit, so detection reads no text.
 */
import type { FactEntity } from '@engram/db';
import humanNames from 'human-names';
import {
  BOUNDS,
  CHANGE_VERBS,
  CONCEPT_WORDS,
  conceptOf,
  DELETION_VERBS,
  GENERIC_CONCEPTS,
  GONE_WORDS,
  MEMORY_NOUNS,
  SELF_EVIDENT_CHANGE_VERBS,
  STATISTIC_QUALIFIERS,
} from '../language/lexicon.ts';
import { isEnglishWord, porterStemOf, readText, type Clause, type TextReading, type Word } from '../language/reader.ts';
import { lookupUnit, toBase } from './units.ts';
import { ENVIRONMENTS, lookupTechnology } from './vocabulary.ts';

/** A word's concept: its lemma or stem folded through the lexicon. */
export const wordConcept = (w: Word): string => conceptOf(w.lemma, w.stem);

const NEGATION_WORDS = new Set(['not', "n't", 'never', 'no', 'without', 'none', 'nothing', 'nobody', 'neither', 'nor', 'nowhere', 'cannot']);
const isNegationCue = (w: Word) => NEGATION_WORDS.has(w.lower) || w.lemma === 'not';
/** Parts of speech that carry content; the rest (determiners, prepositions, auxiliaries ...) never anchor. */
const CONTENT_POS = new Set(['NOUN', 'PROPN', 'ADJ', 'X', 'VERB']);
const NOUNISH = new Set(['NOUN', 'PROPN', 'X']);

/** Words that cue a change without being verbs ("now", "no longer", "anymore"). */
const CHANGE_ADVERBS = new Set(['now', 'anymore', 'instead', 'actually', 'again', 'newly', 'nowadays', 'henceforth', 'lately']);
/** Verbs (and a few nouns) that, for a value of a kind, name its attribute ("kept for 14 days" is a retention). */
const VERB_ATTRIBUTES: Record<string, Record<string, string>> = {
  duration: {
    keep: 'retention', retain: 'retention', store: 'retention', hold: 'retention', answer: 'latency', respond: 'latency',
    reply: 'latency', return: 'latency', take: 'latency', load: 'latency', expire: 'ttl', last: 'ttl', wait: 'ttl', time: 'ttl',
    abandon: 'ttl', cancel: 'ttl', kill: 'ttl', abort: 'ttl', evict: 'ttl', solve: 'latency', finish: 'latency',
    complete: 'latency', render: 'latency', compile: 'latency', execute: 'latency', build: 'latency',
  },
  count: { retry: 'retry', attempt: 'retry', try: 'retry', employ: 'person', staff: 'person', weigh: 'weight' },
  money: { allocate: 'budget', earn: 'income', make: 'income', pay: 'cost', cost: 'cost', charge: 'cost', bill: 'cost', spend: 'spend', save: 'saving', raise: 'income', salary: 'income', wage: 'income', income: 'income' },
  name: {
    own: 'owner', lead: 'owner', manage: 'owner', maintain: 'owner', run: 'owner', handle: 'owner', approve: 'approver',
    sign: 'signer', review: 'reviewer', host: 'host', power: 'provider', process: 'provider', hold: 'owner', carry: 'owner', cover: 'owner',
  },
};
const kindFamily = (kind: string) => (kind === 'number' ? 'count' : kind);

/** Nouns of time that, after "this"/"last"/"next", say when rather than what ("this sprint"). */
const TIME_NOUNS = new Set(['sprint', 'week', 'month', 'quarter', 'year', 'cycle', 'iteration', 'morning', 'afternoon', 'evening', 'weekend', 'release', 'day', 'time', 'night']);
const MONTHS = new Set(['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);
const DAYS = new Set(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);
/** Prepositions that join a noun phrase to the one it belongs to ("the timeout for the API", "the call with the director"). */
const NP_JOINS = new Set(['of', 'for', 'on', 'in', 'with', 'from', 'at']);
/** Heads that name an occasion of something rather than the thing: "therapy sessions", "yoga classes". */
export const LIGHT_HEAD_NOUNS = new Set(['session', 'class', 'lesson', 'meet', 'meeting', 'appoint', 'event', 'cours', 'workshop', 'call', 'visit']);
/** Verbs that take something away: "dropped basic auth", "removed the cache", "disabled SSO". */
const REMOVAL_VERBS = new Set(['drop', 'remove', 'disable', 'deprecate', 'retire', 'kill', 'sunset', 'decommission', 'delete', 'rip', 'abandon', 'scrap', 'ditch', 'stop']);
/** Nouns that name a change rather than a thing ("got a raise to $80,000", "the upgrade to 17"). */
const CHANGE_NOUN_CUES = new Set(['raise', 'increase', 'decrease', 'bump', 'cut', 'hike', 'reduction', 'drop', 'promotion', 'change', 'update', 'upgrade', 'downgrade', 'adjustment', 'extension', 'postponement', 'move', 'switch', 'boost', 'jump', 'rise']);
/** Currency words are the value's unit, never what it is about. */
const CURRENCY_WORDS = new Set(['usd', 'cad', 'eur', 'gbp', 'chf', 'aud', 'inr', 'jpy', 'dollar', 'dollars', 'euro', 'euros', 'pound', 'pounds', 'cent', 'cents', 'bucks']);
/** "4 PM" is a time, not a count of PMs. */
const TIME_OF_DAY = new Set(['am', 'pm', 'a.m.', 'p.m.', "o'clock", 'utc', 'gmt', 'cet', 'est', 'pst', 'pt', 'et']);
/** Units and counting words a frame leaves out (they are the value, not what it is about). */
const VALUE_WORDS = new Set(['percent', 'per', 'cent', 'times', 'x', 'out']);

// ---------------------------------------------------------------------------------------------
// Cues, clause by clause.

/** What a clause (or a whole fact) says about change. */
export interface Cues {
  /** A change is announced as done ("was raised to", "now", "is the new", "Update:"). */
  change: boolean;
  /** The change is planned, proposed or underway: it neither settles nor contradicts. */
  tentative: boolean;
  /** The record is corrected ("actually", "turns out", "correction:"). */
  correction: boolean;
}

/** A read fact: the reading, and the cues of each clause and of the whole. */
export interface FactReading {
  reading: TextReading;
  clauseCues: Map<Clause, Cues>;
  cues: Cues;
}

/** Reads a fact once for everything this module extracts. */
export function readFact(text: string): FactReading {
  const reading = readText(text);
  const clauseCues = new Map<Clause, Cues>();
  const leading = /^\s*(?:update|updated|correction|edit|fyi|heads[- ]up|psa|changed?)\s*[:\-—]/i.test(text);
  for (const clause of reading.clauses) clauseCues.set(clause, cuesOfClause(clause.words));
  const all = [...clauseCues.values()];
  const settled = all.filter((c) => !c.tentative);
  const cues: Cues = {
    change: leading || settled.some((c) => c.change),
    correction: /^\s*correction\b/i.test(text) || settled.some((c) => c.correction),
    // A fact is a plan when what it says changes is planned (and nothing in it is done).
    tentative: all.some((c) => c.tentative) && !settled.some((c) => c.change || c.correction),
  };
  return { reading, clauseCues, cues };
}

/** Lemmas that make a plan of the verb after them ("plans to move", "aims to cut"). */
const PLAN_LEMMAS = new Set(['plan', 'intend', 'aim', 'hope', 'want', 'wish', 'expect', 'propose', 'schedule', 'mean', 'prepare', 'try', 'look', 'going']);
/** Lemmas that make a plan of an -ing or a "whether" after them ("considering moving"). */
const WEIGHING_LEMMAS = new Set(['consider', 'evaluate', 'explore', 'discuss', 'investigate', 'debate', 'propose', 'suggest', 'recommend', 'think', 'weigh']);
/** Markers that say work is in progress or only proposed. */
const PROGRESS_MARKERS = new Set(['underway', 'wip', 'pending', 'tentatively', 'eventually', 'soon', 'proposal', 'rfc']);
const MODALS = new Set(['might', 'may', 'could', 'would', 'will', 'shall', "'ll"]);
const CHANGE_NOUNS = new Set(['migration', 'rollout', 'switch', 'move', 'upgrade', 'transition', 'cutover', 'rewrite', 'refactor', 'port', 'replacement', 'change', 'update', 'deprecation']);

function cuesOfClause(words: readonly Word[]): Cues {
  let change = false;
  let tentative = false;
  let correction = false;
  const at = (i: number) => words[i];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const next = at(i + 1);
    const previous = at(i - 1);
    // Plans: "plans to", "is going to", "aims to", "scheduled to"; "considering moving".
    if (PLAN_LEMMAS.has(w.lemma) && (w.pos === 'VERB' || w.lower === 'going') && next?.lower === 'to' && at(i + 2)?.pos === 'VERB') tentative = true;
    if (w.lemma === 'plan' && w.pos === 'NOUN' && (next?.lower === 'to' || (next?.lemma === 'be' && at(i + 2)?.lower === 'to'))) tentative = true;
    if (WEIGHING_LEMMAS.has(w.lemma) && w.pos === 'VERB' && next && ((next.pos === 'VERB' && /ing$/.test(next.lower)) || next.lower === 'whether' || next.lower === 'moving' || next.lower === 'switching')) tentative = true;
    if (PROGRESS_MARKERS.has(w.lower) && !(w.lower === 'soon' && previous?.lower === 'as')) tentative = true;
    if ((w.lower === 'in' || w.lower === 'under') && (next?.lower === 'progress' || next?.lower === 'way' || next?.lower === 'review' || next?.lower === 'discussion')) tentative = true;
    if (w.lower === 'about' && next?.lower === 'to' && at(i + 2)?.pos === 'VERB') tentative = true;
    if (w.lower === 'yet' && previous?.lower === 'to') tentative = true;
    if ((w.lower === 'not' || w.lower === "n't") && words.slice(i + 1).some((x) => x.lower === 'yet') && words.some((x) => x.pos === 'VERB' && CHANGE_VERBS.has(x.lemma))) tentative = true;
    if (w.lower === 'next' && next && ['week', 'sprint', 'month', 'quarter', 'release', 'year', 'cycle', 'milestone'].includes(next.lemma)) {
      if (words.some((x) => (x.pos === 'VERB' && CHANGE_VERBS.has(x.lemma)) || CHANGE_NOUNS.has(x.lemma) || MODALS.has(x.lower))) tentative = true;
    }
    // "started the migration", "migration work began", "is starting to move".
    // "The migration to Postgres 17 started", "started moving", "began the rollout" (but "starting September 15" is a date).
    if ((w.lemma === 'start' || w.lemma === 'begin' || w.lemma === 'kick') && w.pos === 'VERB' && !(next && (MONTHS.has(next.lower) || next.entity === 'DATE' || next.lower === 'on' || next.lower === 'in'))) {
      const subjectNp = words.slice(0, i).reverse();
      const np: Word[] = [];
      for (const x of subjectNp) {
        if (!(NOUNISH.has(x.pos) || x.pos === 'ADJ' || x.pos === 'NUM' || x.pos === 'DET' || x.lower === 'to' || x.pos === 'AUX')) break;
        np.push(x);
      }
      const object = words.slice(i + 1, i + 4);
      if ([...np, ...object].some((x) => CHANGE_NOUNS.has(x.lemma) || (x.pos === 'VERB' && CHANGE_VERBS.has(x.lemma) && /ing$/.test(x.lower)))) tentative = true;
    }
    // "installed early", "landed a day earlier than planned": a schedule changed.
    if ((w.lower === 'early' || w.lower === 'earlier' || w.lower === 'late' || w.lower === 'later') && previous?.pos === 'VERB' && previous.lower.endsWith('ed')) change = true;
    // A goal or target is not (yet) what is: "set a goal of completing", "aiming for 10 books".
    if (
      ['goal', 'target', 'aim', 'objective', 'intention', 'ambition', 'wishlist', 'plan'].includes(w.lemma) &&
      w.pos === 'NOUN' &&
      // "goal to finish", not "extended the goal to 12 books" (where "to" brings the new value).
      (next?.lower === 'of' || (next?.lower === 'to' && at(i + 2)?.pos === 'VERB') || previous?.lemma === 'set' || (next?.lemma === 'be' && at(i + 2)?.lower === 'to'))
    ) {
      tentative = true;
    }
    if (w.lemma === 'aim' && w.pos === 'VERB' && (next?.lower === 'for' || next?.lower === 'at')) tentative = true;
    // "will move to", "might switch", "could be raised": a change not made yet.
    if (MODALS.has(w.lower) || MODALS.has(w.lemma)) {
      const target = words.slice(i + 1, i + 4).find((x) => x.pos === 'VERB');
      if (target && CHANGE_VERBS.has(target.lemma) && target.lemma !== 'become') tentative = true;
    }

    if (CHANGE_ADVERBS.has(w.lower) && !(w.lower === 'now' && ['for', 'right', 'until', 'till', 'by'].includes(previous?.lower ?? ''))) change = true;
    if (w.lower === 'actually' || (w.lemma === 'turn' && next?.lower === 'out') || (w.lower === 'in' && next?.lower === 'fact') || w.lemma === 'correction' || w.lemma === 'mistake' || w.lemma === 'incorrect' || (w.lower === 'was' && next?.lower === 'wrong')) correction = true;
    if (w.lower === 'longer' && previous?.lower === 'no') change = true;
    if (w.lower === 'as' && next?.lower === 'of') change = true;
    if (w.lower === 'after' && next?.lower === 'all') change = true;
    if (w.lower === 'from' && next?.lower === 'now') change = true;
    if ((w.lower === 'going' && next?.lower === 'forward') || (w.lower === 'these' && next?.lower === 'days')) change = true;
    if (w.lower === 'new' && previous && (['the', 'a', "'s", '’s', 'his', 'her', 'their', 'our', 'its', 'my', 'your'].includes(previous.lower) || previous.pos === 'AUX') && (next === undefined || next.pos !== 'ADP')) change = true;
    // "From 1 July the hourly base is €15.20", "effective Monday", "starting next sprint": a change that takes effect.
    if (['from', 'effective', 'starting', 'beginning'].includes(w.lower) && i <= 1 && next && (MONTHS.has(next.lower) || next.pos === 'NUM' || next.entity === 'DATE' || DAYS.has(next.lower) || next.lower === 'today' || next.lower === 'tomorrow')) change = true;
    if ((w.lower === 'than' && next && ['planned', 'expected', 'scheduled', 'before', 'announced'].includes(next.lower)) || (w.lower === 'ahead' && next?.lower === 'of') || (w.lower === 'behind' && next?.lower === 'schedule')) change = true;
    if (['go', 'come', 'switch', 'move', 'roll', 'revert', 'change', 'flip'].includes(w.lemma) && next?.lower === 'back') change = true;
    if (w.lower === 'since' && previous?.pos === 'AUX' && next?.pos === 'VERB') change = true; // "has since moved"
    if (w.lower === 'over' && previous && (previous.lemma === 'take' || previous.lemma === 'hand')) change = true;
    // "got a raise to $80,000", "the bump to 25s landed".
    if (CHANGE_NOUN_CUES.has(w.lemma) && w.pos === 'NOUN' && words.slice(i + 1, i + 3).some((x) => x.lower === 'to' || x.lower === 'from')) change = true;
    if ((w.lemma === 'up' || w.lemma === 'down') && next?.lower === 'from') change = true; // "up from $400"
    // "before finalizing it for the role", "without moving": a gerund a preposition governs names an act, it does not report one.
    // (A clause that opens with one follows its subordinator: "... before finalizing it".)
    const governed = /ing$/.test(w.lower) && (i === 0 || ['before', 'after', 'without', 'while', 'when', 'by', 'for', 'of', 'about', 'on'].includes(previous?.lower ?? ''));
    if (w.pos === 'VERB' && CHANGE_VERBS.has(w.lemma) && !governed && isChangeConstruction(words, i)) change = true;
    if (w.pos === 'VERB' && REMOVAL_VERBS.has(w.lemma) && /ed$/.test(w.lower) && i > 0 && words.slice(i + 1).some((x) => NOUNISH.has(x.pos))) change = true;
  }
  return { change: change && !tentative, tentative, correction };
}

/**
 * Is the change verb at `i` used as a change? Self-evident verbs ("replaced", "raised") unless
 * they open an instruction ("update the docs"); others ("dropped", "moved", "set") with a
 * target or source after them ("to", "from", "by", "back") or in a passive or perfect.
 */
function isChangeConstruction(words: readonly Word[], i: number): boolean {
  const w = words[i]!;
  const after = words.slice(i + 1, i + 7);
  const before = words.slice(Math.max(0, i - 3), i);
  const particle = after.some((a) => ['to', 'from', 'by', 'back', 'up', 'down', 'over', 'off', 'away', 'again'].includes(a.lower));
  const perfectOrPassive = before.some((b) => b.pos === 'AUX' && ['have', 'be', 'get'].includes(b.lemma));
  if (SELF_EVIDENT_CHANGE_VERBS.has(w.lemma)) return !(i === 0 && w.lower === w.lemma && !particle) || w.lemma === 'replace' || w.lemma === 'switch';
  switch (w.lemma) {
    case 'reach':
    case 'become':
      return true;
    case 'go':
      return after[0]?.lower === 'with' || after[0]?.lower === 'back' || (after[0]?.lower === 'up' || after[0]?.lower === 'down');
    case 'take':
    case 'hand':
      return after.some((a) => a.lower === 'over');
    case 'confirm':
    case 'fix':
    case 'settle':
    case 'finalize':
    case 'finalise':
      return after.slice(0, 2).some((a) => a.lower === 'at' || a.lower === 'to' || a.lower === 'on' || a.lower === 'for');
    default:
      // A past form ("dropped", "grew", "rose") or a passive/perfect with a target or source.
      return particle && (perfectOrPassive || w.lower.endsWith('ed') || w.lower !== w.lemma || w.lower === 'set' || w.lower === 'cut' || w.lower === 'put');
  }
}

// ---------------------------------------------------------------------------------------------
// Frames.

/** The frame of a value: concepts that name what it is about. */
export interface Frame {
  /** Concepts that anchor the claim (nouns, names, attribute verbs; statement verbs as `v:<concept>`), sorted. */
  anchors: string[];
  /** Anchors that are nouns modifying the next noun ("session" in "session timeout", "audit" in "audit logs"). */
  modifiers: string[];
  /** Anchors that are proper names. */
  names: string[];
  /** Statistic or environment qualifiers ("typical", "p99", "prod"), and `tentative` / `change` of its clause. */
  qualifiers: string[];
  /** Anchors that only stand for others (a technology's category, a compound's initials): they meet, but are never extra. */
  aliases?: string[];
  /** The noun the value's phrase is about, when it has one. */
  head?: string;
}

/** A frame's anchors without the aliases that only stand for them. */
const plainAnchors = (f: Frame) => f.anchors.filter((a) => !f.aliases?.includes(a));

const emptyFrame = (): Frame => ({ anchors: [], modifiers: [], names: [], qualifiers: [] });

/** A word can anchor a frame: a content word, not a number, not a lone letter. */
const isAnchorWord = (w: Word) => (CONTENT_POS.has(w.pos) || (w.pos === 'SYM' && /^#/.test(w.text))) && !/^\d/.test(w.text) && w.text.length >= 2;

/** Entities that are values, never what a value is about. */
const VALUE_ENTITIES = new Set(['DATE', 'MONEY', 'PERCENT', 'DURATION', 'TIME', 'CARDINAL', 'ORDINAL']);
/** Words that make a time noun a moment ("this week", "last sprint") rather than a thing. */
const DEICTIC_WORDS = new Set(['this', 'last', 'next', 'that']);

/** The concept a word contributes to a frame, or null (qualifiers are collected on the side). */
function anchorConcept(w: Word, kind: string, skip: ReadonlySet<string>, qualifiers: Set<string>): string | null {
  const statement = kind === 'statement';
  if (w.entity && !statement && w.pos !== 'PROPN') return null;
  if (w.entity && VALUE_ENTITIES.has(w.entity)) return null;
  const statistic = STATISTIC_QUALIFIERS[w.lower];
  if (statistic) {
    qualifiers.add(statistic);
    return null;
  }
  // "at least", "capped at", "up to": which end the value bounds.
  const bound = BOUNDS[w.lower] ?? BOUNDS[w.lemma] ?? (w.lower === 'to' && w.previous === 'up' ? 'max' : undefined);
  if (bound && (w.lower !== 'least' || w.previous === 'at') && (w.lower !== 'most' || w.previous === 'at')) qualifiers.add(bound);
  if (w.lower === 'least' || w.lower === 'most' || w.lower === 'fewer' || w.lower === 'to') return null;
  // "limit", "cap", "minimum" also name the attribute itself.
  if (bound) return bound;
  const env = ENVIRONMENTS[w.lower];
  if (env && !statement) {
    qualifiers.add(env);
    return null;
  }
  if (!isAnchorWord(w) || VALUE_WORDS.has(w.lower) || skip.has(w.lower) || MONTHS.has(w.lower) || DAYS.has(w.lower.replace(/s$/, ''))) return null;
  if (TIME_NOUNS.has(w.lemma) && DEICTIC_WORDS.has(w.previous ?? '')) return null;
  const mapped = w.pos === 'VERB' || w.pos === 'NOUN' ? VERB_ATTRIBUTES[kindFamily(kind)]?.[w.lemma] : undefined;
  if (mapped) return mapped;
  if (CHANGE_ADVERBS.has(w.lower) || isNegationCue(w) || PROGRESS_MARKERS.has(w.lower) || CURRENCY_WORDS.has(w.lower)) return null;
  if (CHANGE_NOUN_CUES.has(w.lemma) && w.pos === 'NOUN' && !statement) return null;
  if (w.pos === 'VERB') {
    // Other verbs say how, not what; statements keep them (marked) to tell "never wrote" from
    // "never tested", and dates to tell "passed away on" from "the funeral was on".
    if ((!statement && kind !== 'date') || (CHANGE_VERBS.has(w.lemma) && kind !== 'date') || PLAN_LEMMAS.has(w.lemma) || GENERIC_CONCEPTS.has(w.lemma) || GENERIC_CONCEPTS.has(w.stem)) return null;
    return statement ? `v:${wordConcept(w)}` : wordConcept(w);
  }
  const concept = wordConcept(w);
  if (GENERIC_CONCEPTS.has(concept) || GENERIC_CONCEPTS.has(w.lemma) || GENERIC_CONCEPTS.has(w.lower)) return null;
  return concept;
}

/** Words a configuration key or compound is written with ("maxReplicas" → max, replicas; "ENABLE_BETA_SEARCH" → enable, beta, search). */
function identifierParts(w: Word): string[] | null {
  if (/^[a-z]+(?:-[a-z]+)+$/i.test(w.text) && !CONCEPT_WORDS.has(w.lower)) return w.lower.split('-').filter((p) => p.length >= 2);
  if (!/[_./]|[a-z][A-Z]/.test(w.text) || /^(?:https?:|#)|@/.test(w.text) || /^[\d.]+$/.test(w.text)) return null;
  return w.text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[_.\s/:-]+/)
    .map((p) => p.toLowerCase())
    .filter((p) => p.length >= 2 && !/^\d/.test(p) && !/^v\d+$/.test(p));
}

/**
 * The one empty set of words: a default here, and every empty set of a fact's readings in a
 * detection run (which holds thousands of facts' readings, most of their sets empty; an empty Set
 * takes about as much heap as a short string). Never added to.
 */
export const NO_WORDS: ReadonlySet<string> = new Set<string>();
/** A word that can be part of a compound its initials stand for: a noun or adjective, spelled with a letter first. */
const compoundWord = (w: Word) => (NOUNISH.has(w.pos) || w.pos === 'ADJ') && /^[a-z]/i.test(w.text);

/** Concepts of a run of words, with the nouns that modify the next noun and the names among them. */
function frameOfWords(words: readonly Word[], kind: string, skip: ReadonlySet<string> = NO_WORDS): Frame {
  const anchors = new Set<string>();
  const aliases = new Set<string>();
  const modifiers = new Set<string>();
  const names = new Set<string>();
  const qualifiers = new Set<string>();
  // The concept last added, its word's index and part of speech (none after an identifier).
  let previousConcept: string | null = null;
  let previousIndex = -1;
  let previousPos = '';
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    // "goes up to 6 km", "bumped up to 40": a change's target, not a bound.
    if (w.lower === 'to' && words[i - 1]?.lower === 'up' && words[i - 2]?.pos === 'VERB') continue;
    const parts = identifierParts(w);
    if (parts) {
      for (const part of parts) {
        const concept = conceptOf(part, porterStemOf(part));
        if (BOUNDS[part]) qualifiers.add(BOUNDS[part]);
        if (GENERIC_CONCEPTS.has(concept) || skip.has(part)) continue;
        anchors.add(concept);
        // An identifier names one thing: its words identify it as a name does ("orders_archive" vs "audit_log").
        if (!BOUNDS[part] && !w.text.includes('-')) names.add(concept);
      }
      previousConcept = null;
      continue;
    }
    const concept = anchorConcept(w, kind, skip, qualifiers);
    if (concept === null) continue;
    // A technology is also a thing of its kind: "Postgres" is a database, "Redis" a cache.
    const technology = lookupTechnology(w.lower);
    if (technology && technology.category !== concept) aliases.add(technology.category);
    const isNoun = NOUNISH.has(w.pos) && !concept.startsWith('v:');
    // A common noun narrowing the next ("session timeout"); words of a name ("Hôtel Château Frontenac") are one name.
    if (previousConcept !== null && previousIndex === w.index - 1 && NOUNISH.has(previousPos) && isNoun && w.pos === 'NOUN') modifiers.add(previousConcept);
    anchors.add(concept);
    if (w.pos === 'PROPN' && isName(w)) names.add(concept);
    previousConcept = concept;
    previousIndex = w.index;
    previousPos = w.pos;
  }
  // Initials of a compound stand for it ("GA" for "general availability", "SLA" for "service level
  // agreement"): each run of two to four such words from each word on. Whether a word can be in one
  // is read once per word, not once per run it might be in.
  const inCompound = words.map(compoundWord);
  for (let i = 0; i + 1 < words.length; i++) {
    let end = i;
    while (end < words.length && end - i < 4 && inCompound[end]) end++;
    if (end - i >= 2) aliases.add(words.slice(i, end).map((w) => w.lower[0]).join(''));
  }
  for (const a of aliases) if (!anchors.has(a)) anchors.add(a);
  return { anchors: [...anchors].sort(), modifiers: [...modifiers].sort(), names: [...names].sort(), qualifiers: [...qualifiers].sort(), aliases: [...aliases].sort() };
}

const union = (...frames: Frame[]): Frame => ({
  anchors: [...new Set(frames.flatMap((f) => f.anchors))].sort(),
  aliases: [...new Set(frames.flatMap((f) => f.aliases ?? []))].sort(),
  modifiers: [...new Set(frames.flatMap((f) => f.modifiers))].sort(),
  names: [...new Set(frames.flatMap((f) => f.names))].sort(),
  qualifiers: [...new Set(frames.flatMap((f) => f.qualifiers))].sort(),
});

/** The clause a character offset falls in. */
function clauseOf(reading: TextReading, offset: number): Clause | undefined {
  return reading.clauses.find((c) => offset >= c.start && offset < Math.max(c.end, c.start + 1)) ?? reading.clauses.find((c) => offset <= c.end);
}

/**
 * The frame of the value at [start, end): the clause's subject (the words before its first
 * verb), the words before the value back to the previous value, and the noun phrase right after
 * it ("$40 OtterBox case"). `boundaries` are the spans of the fact's other values. A clause that
 * names nothing borrows the frame of the main clause before it ("..., aiming for 10 books").
 */
export function valueFrame(
  fact: FactReading,
  start: number,
  end: number,
  kind: string,
  boundaries: readonly [number, number][],
  skip: ReadonlySet<string> = new Set(),
): Frame {
  const clause = clauseOf(fact.reading, start);
  if (!clause) return emptyFrame();
  const words = clause.words;
  const inValue = (w: Word) => w.start < end && w.end > start;
  const firstVerb = words.findIndex((w) => w.pos === 'VERB' || w.pos === 'AUX');
  // A value that is the subject ("Priya now runs releases", "Tomás is the person who handles
  // releases") is framed by what is said of it: the predicate, and a relative clause after it.
  const leads = words.filter((w) => w.end <= start).every((w) => w.pos === 'DET' || w.pos === 'ADP' || w.pos === 'PUNCT' || w.pos === 'CCONJ');
  if (leads && firstVerb >= 0 && end <= words[firstVerb]!.start) {
    const predicate = restOfSentence(fact.reading, clause).filter((w) => w.start >= words[firstVerb]!.start);
    const frame = frameOfWords(predicate, kind, skip);
    const cues = fact.clauseCues.get(clause);
    const extra = [...(cues?.tentative ? ['tentative'] : []), ...(cues?.change ? ['change'] : []), ...(cues?.correction ? ['correction'] : [])];
    if (frame.anchors.length > 0) return { ...frame, qualifiers: [...new Set([...frame.qualifiers, ...extra])].sort() };
  }
  // The verb that governs the value, the noun phrase before it (its subject), and the words in
  // between ("HR rates [the AI screening accuracy at] 87%"); without a verb, the words before it.
  const previousBoundary = Math.max(clause.start, ...boundaries.filter(([, e]) => e <= start).map(([, e]) => e));
  const verbAt = words.findLastIndex((w) => w.end <= start && (w.pos === 'VERB' || w.pos === 'AUX'));
  let subject: Word[] = [];
  let from = previousBoundary;
  if (verbAt > 0) {
    let k = verbAt - 1;
    while (k > 0 && (words[k]!.pos === 'AUX' || words[k]!.pos === 'ADV' || words[k]!.pos === 'PART')) k--;
    // Walk the noun phrase back: nouns, adjectives, possessives, "X of/for/in/on the Y"; a
    // determiner ends it unless a preposition joins it to a head before ("timeout for the API").
    const np: Word[] = [];
    for (; k >= 0; k--) {
      const w = words[k]!;
      const before = words[k - 1];
      const attachesTo = before !== undefined && (NOUNISH.has(before.pos) || (before.pos === 'VERB' && /ed$/.test(before.lower) && NOUNISH.has(words[k - 2]?.pos ?? '')));
      const joins = NP_JOINS.has(w.lower) && np.length > 0 && attachesTo;
      // "the wedding venue shoot increased": a head the tagger took for a verb.
      const misTagged = w.pos === 'VERB' && np.length === 0 && NOUNISH.has(words[k - 1]?.pos ?? '');
      const coordinated = (w.pos === 'CCONJ' || w.text === ',') && np.length > 0 && NOUNISH.has(words[k - 1]?.pos ?? '') && NOUNISH.has(np[0]!.pos);
      const gerund = w.pos === 'VERB' && /ing$/.test(w.lower) && np.length > 0 && NOUNISH.has(np[0]!.pos) && (k === 0 || words[k - 1]!.pos !== 'VERB');
      // "the endpoint registered in the Stripe dashboard": a participle after a noun.
      const participle = w.pos === 'VERB' && /ed$/.test(w.lower) && np.length > 0 && NOUNISH.has(words[k - 1]?.pos ?? '');
      if (w.pos === 'DET') {
        np.unshift(w);
        if (NP_JOINS.has(words[k - 1]?.lower ?? '')) continue;
        break;
      }
      if (!(NOUNISH.has(w.pos) || w.pos === 'ADJ' || w.pos === 'NUM' || w.text === "'s" || w.text === '’s' || joins || coordinated || gerund || participle || misTagged)) break;
      np.unshift(w);
    }
    subject = np.filter((w) => w.end <= start);
    // The governing verb itself can name the attribute ("kept for 14 days") or a bound ("capped at").
    from = Math.max(previousBoundary, words[verbAt]!.start);
  }
  const before = words.filter((w) => w.start >= from && w.end <= start && !inValue(w));
  // The noun phrase the value quantifies, and one prepositional phrase after it ("25 supporting
  // documents to the USCIS portal", "5.5 hours of sleep").
  const after: Word[] = [];
  let preposition = false;
  for (const w of words) {
    if (w.start < end) continue;
    if (boundaries.some(([s, e]) => w.start < e && w.end > s)) break;
    const nextWord = words[words.indexOf(w) + 1];
    const nounish =
      NOUNISH.has(w.pos) || w.pos === 'ADJ' || (w.text.includes('-') && w.pos !== 'PUNCT') || (w.pos === 'ADV' && /ly$/.test(w.lower) && nextWord !== undefined && (NOUNISH.has(nextWord.pos) || nextWord.pos === 'ADJ'));
    if (!nounish && w.pos === 'ADP' && !preposition && ['to', 'of', 'for', 'in', 'on', 'at'].includes(w.lower)) {
      preposition = true;
      continue;
    }
    if (!nounish && !(preposition && (w.pos === 'DET' || w.pos === 'PRON'))) break;
    after.push(w);
  }
  // Words inside the value's span that say what is counted ("8 conditional probability problems").
  const spanned = words.filter(inValue);
  const inside = spanned.slice(1, -1).filter((w) => (w.pos === 'ADJ' || NOUNISH.has(w.pos)) && !/^\d/.test(w.text) && NUMBER_WORDS[w.lower] === undefined);
  let frame = union(frameOfWords(subject, kind, skip), frameOfWords(before, kind, skip), frameOfWords(after, kind, skip), frameOfWords(inside, kind, skip));
  // The head: the noun the phrase is about ("the *deadline* for Crystal's application", "a senior
  // producer *interview*"): the last noun before a joining preposition, else the last noun.
  const lastNoun = (phrase: readonly Word[]): string | undefined => {
    for (const w of [...phrase].reverse()) {
      if (!NOUNISH.has(w.pos)) continue;
      const concept = anchorConcept(w, kind, skip, new Set());
      if (concept && !concept.startsWith('v:') && frame.anchors.includes(concept) && !BOUNDS[w.lower] && !BOUNDS[w.lemma]) return concept;
    }
    return undefined;
  };
  const firstSegment = (phrase: readonly Word[]) => {
    const joinAt = phrase.findIndex((w) => NP_JOINS.has(w.lower));
    return joinAt > 0 ? phrase.slice(0, joinAt) : phrase;
  };
  // The phrase right before the value ("an interview on May 25"), the one it quantifies ("25
  // supporting documents"), else the clause's subject ("the deadline for the application is ...").
  const head = lastNoun(before) ?? lastNoun(firstSegment(after)) ?? lastNoun(firstSegment(subject));
  if (head) frame.head = head;
  if (frame.anchors.length === 0) {
    const index = fact.reading.clauses.indexOf(clause);
    const main = fact.reading.clauses.slice(0, index).reverse().find((c) => c.subordinator === null);
    if (main) frame = { ...frameOfWords(main.words, kind, skip), qualifiers: frame.qualifiers };
  }
  const cues = fact.clauseCues.get(clause);
  const extra = [...(cues?.tentative ? ['tentative'] : []), ...(cues?.change ? ['change'] : []), ...(cues?.correction ? ['correction'] : [])];
  // "cut screening time *by* 45%", "improved by 15%": how much something changed, not what it is.
  const justBefore = words.filter((w) => w.end <= start).slice(-1)[0];
  if (justBefore?.lower === 'by' && words.some((w) => w.end <= start && w.pos === 'VERB' && CHANGE_VERBS.has(w.lemma))) extra.push('delta');
  // "has uploaded 30 documents", "has read 12 books": a running total, which only grows.
  const governing = verbAt >= 0 ? words[verbAt] : undefined;
  if (governing && governing.pos === 'VERB' && words.slice(Math.max(0, verbAt - 2), verbAt).some((w) => w.lemma === 'have') && /ed$|en$/.test(governing.lower)) extra.push('progress');
  return { ...frame, qualifiers: [...new Set([...frame.qualifiers, ...extra])].sort() };
}

// ---------------------------------------------------------------------------------------------
// Statements, deletion requests, dependencies.

/** Every concept the text names, plans and side remarks included (for "does the other fact name it anywhere?"). */
export function conceptsOf(fact: FactReading): string[] {
  return plainAnchors(frameOfWords(fact.reading.words, 'statement')).map((a) => a.replace(/^v:/, ''));
}

/** One clause as a statement: asserted or denied, and what about. */
export interface Statement {
  /** True when the clause asserts it, false when it denies it. */
  positive: boolean;
  /** Anchors of the whole clause (verbs as `v:<concept>`). */
  anchors: string[];
  /** What its words also stand for (technology categories, initials). */
  aliases: string[];
  /** Anchors of what is denied (denials) or of the predicate (assertions). */
  target: string[];
  /** Proper names among them ("Zotero", "Troy"). */
  names: string[];
  /** Anchors of the clause's subject, when it names one. */
  subject: string[];
  /** Denials: the verb denied, and the head of what it is denied of. */
  verb?: string;
  head?: string;
}

const BOUND_WORDS = new Set(['more', 'less', 'fewer', 'later', 'earlier', 'greater', 'higher', 'lower', 'longer', 'shorter', 'bigger', 'smaller', 'sooner', 'over', 'under']);
const PRONOUN_SUBJECTS = new Set(['we', 'i', 'you', 'they', 'it', 'he', 'she', 'there', 'this', 'that', 'user', 'everyone', 'nobody', 'nothing', 'no', 'one']);

/**
 * The statements of a fact: each main clause that is not a plan, with its polarity, anchors,
 * subject and the target a negation denies ("no staging environment" → staging; "never
 * integrated Stripe" → integrate, stripe).
 */
export function statementsOf(fact: FactReading): Statement[] {
  const out: Statement[] = [];
  for (const clause of fact.reading.clauses) {
    if (clause.subordinator !== null && clause.subordinator !== ',ing' && clause.subordinator !== 'and') continue;
    if (fact.clauseCues.get(clause)?.tentative || clause.words.length < 2) continue;
    const words = clause.words;
    // "no more than 2,000", "not later than Friday": a bound, not a denial.
    const cueAt = words.findIndex((w, i) => isNegationCue(w) && !(BOUND_WORDS.has(words[i + 1]?.lower ?? '') && words[i + 2]?.lower === 'than'));
    // "no longer" is a change; "not only" and "if not" are no denial.
    const noLonger = cueAt >= 0 && words[cueAt + 1]?.lower === 'longer';
    const notOnly = cueAt >= 0 && (words[cueAt + 1]?.lower === 'only' || words[cueAt - 1]?.lower === 'if');
    // "ops console dropped basic auth", "we disabled SSO": a removal denies what it removes, from now on.
    const removalAt = cueAt < 0 ? words.findIndex((w) => w.pos === 'VERB' && REMOVAL_VERBS.has(w.lemma) && words.slice(words.indexOf(w) + 1).some((x) => NOUNISH.has(x.pos))) : -1;
    const positive = (cueAt < 0 || notOnly) && removalAt < 0;
    const verbAt = words.findIndex((w) => w.pos === 'VERB' || w.pos === 'AUX');
    const subjectWords = verbAt > 0 ? words.slice(0, verbAt).filter((w) => !PRONOUN_SUBJECTS.has(w.lower)) : [];
    const whole = frameOfWords(words, 'statement');
    const plain = plainAnchors;
    const anchors = plain(whole);
    const deniedFrom = removalAt >= 0 ? removalAt : cueAt;
    // A gerund after a preposition is a circumstance ("apologized ... for forgetting"), not what is denied.
    const targetWords = (positive ? words.slice(Math.max(verbAt, 0)) : words.slice(deniedFrom + 1)).filter(
      (w) => !(w.pos === 'VERB' && words[words.indexOf(w) - 1]?.pos === 'ADP'),
    );
    const targetFrame = frameOfWords(targetWords, 'statement');
    const target = plain(targetFrame);
    if (anchors.length === 0) continue;
    // What a denial denies, at its core: its first verb and the head of the phrase after it
    // ("never *used* a pasta *maker* to make pasta", "never *apologized* to *Rachael*").
    let verb: string | undefined;
    let head: string | undefined;
    if (!positive) {
      const after = words.slice(deniedFrom + 1);
      const verbAt = removalAt >= 0 ? -1 : after.findIndex((w) => w.pos === 'VERB' && anchorConcept(w, 'statement', new Set(), new Set()) !== null);
      if (verbAt >= 0) verb = anchorConcept(after[verbAt]!, 'statement', new Set(), new Set())!;
      // "Query it through the replica, never the primary", "use pnpm, not npm": with no verb of its own after a
      // comma, the denial is of the clause's act ("never query the primary"), not of the thing.
      if (verbAt < 0 && removalAt < 0 && words[deniedFrom - 1]?.lower === ',' && !after.some((w) => w.pos === 'VERB' || w.pos === 'AUX')) {
        const act = words
          .slice(0, deniedFrom)
          .reverse()
          .map((w) => (w.pos === 'VERB' ? anchorConcept(w, 'statement', new Set(), new Set()) : null))
          .find((concept) => concept !== null);
        if (act) {
          verb = act;
          target.push(act);
        }
      }
      const rest = after.slice(verbAt + 1);
      const phrase: Word[] = [];
      for (const w of rest) {
        if (phrase.length > 0 && !(NOUNISH.has(w.pos) || w.pos === 'ADJ')) break;
        if (NOUNISH.has(w.pos) || w.pos === 'ADJ') phrase.push(w);
      }
      for (const w of [...phrase].reverse()) {
        const concept = NOUNISH.has(w.pos) ? anchorConcept(w, 'statement', new Set(), new Set()) : null;
        // "couples therapy sessions": the head is what the sessions are of.
        if (concept && !concept.startsWith('v:') && !LIGHT_HEAD_NOUNS.has(concept)) {
          head = concept;
          break;
        }
      }
    }
    out.push({
      positive: positive && !noLonger,
      anchors,
      aliases: whole.aliases ?? [],
      target,
      names: targetFrame.names,
      subject: plain(frameOfWords(subjectWords, 'statement')),
      ...(verb ? { verb } : {}),
      ...(head ? { head } : {}),
    });
  }
  return out;
}

/** What a deletion request names: "forget the note about the old VPN" → {vpn}, old. */
export interface DeletionRequest {
  target: string[];
  /** People and named things among them: a fact is only what the request names if it names them too. */
  names?: string[];
  /** The request names the old or legacy one ("the old VPN"). */
  old: boolean;
}

const OLD_WORDS = new Set(['old', 'legacy', 'previous', 'former', 'outdated', 'stale', 'wrong', 'incorrect', 'obsolete']);

/**
 * A request to forget or drop facts: an imperative of forgetting ("forget", "disregard",
 * "drop", "ignore") about a note or a thing, or a thing said to be gone followed by "drop it".
 */
export function deletionOf(fact: FactReading): DeletionRequest | null {
  const { reading } = fact;
  for (const clause of reading.clauses) {
    const words = clause.words;
    // "that SSH note can go", "the bit about X is obsolete": the memory itself said to be done with.
    const noteAt = words.findIndex((w) => MEMORY_NOUNS.has(w.lemma) && w.pos === 'NOUN');
    const after = noteAt >= 0 ? words.slice(noteAt + 1).map((w) => w.lower).join(' ') : '';
    if (noteAt >= 0 && /^(?:(?:about|on|re|regarding)\s.*?\s)?(?:can|should|must)\s+(?:go|be\s+(?:dropped|removed|deleted|forgotten|ignored))\b|^(?:(?:about|on|re|regarding)\s.*?\s)?(?:is|are)\s+(?:obsolete|outdated|wrong|stale|no longer (?:true|valid|relevant|accurate))\b/.test(after)) {
      const aboutAt = words.findIndex((w, i) => i > noteAt && ['about', 'on', 're', 'regarding'].includes(w.lower));
      const targetWords = aboutAt > noteAt ? words.slice(aboutAt + 1) : words.slice(0, noteAt).filter((w) => w.pos !== 'DET' && w.pos !== 'PRON');
      const target = plainAnchors(frameOfWords(targetWords, 'statement')).filter((a) => !a.startsWith('v:') && !MEMORY_NOUNS.has(a));
      if (target.length > 0) return { target, old: false };
    }
    const verbAt = words.findIndex(
      (w, i) =>
        DELETION_VERBS.has(w.lemma) &&
        (w.pos === 'VERB' || i === 0) &&
        (i === 0 || words[i - 1]!.pos === 'PUNCT' || ['can', 'should', 'please', 'just', 'pls', 'so', 'also', 'then', 'and'].includes(words[i - 1]!.lower)),
    );
    if (verbAt < 0) continue;
    const rest = words.slice(verbAt + 1);
    const named = rest.findIndex((w) => MEMORY_NOUNS.has(w.lemma));
    const aboutAt = rest.findIndex((w, i) => i > named && ['about', 'on', 'regarding', 're', 'for', 'of', 'mentioning', 'saying', 'that'].includes(w.lower));
    let targetWords: Word[] = [];
    if (named >= 0) {
      // "the hotfix/* branch naming note", "that crontab note", "what we said about /v1/export".
      targetWords = rest.slice(0, named).filter((w) => w.pos !== 'DET' && w.pos !== 'PRON');
      if (aboutAt > named) targetWords.push(...rest.slice(aboutAt + 1));
    } else if (rest[0] && ['it', 'that', 'them', 'this'].includes(rest[0].lower)) {
      // "the legacy cron host is gone, drop it": what the clause before said is gone.
      const index = reading.clauses.indexOf(clause);
      const before = reading.clauses.slice(0, index).reverse().find((c) => c.words.some((w) => GONE_WORDS.has(w.lower) || GONE_WORDS.has(w.lemma)));
      // What is gone is the subject before the word that says so ("the demo seed target [was removed] from the Makefile").
      const goneAt = before ? before.words.findIndex((w) => GONE_WORDS.has(w.lower) || GONE_WORDS.has(w.lemma)) : -1;
      if (before) targetWords = before.words.slice(0, goneAt).filter((w) => !GONE_WORDS.has(w.lower) && !GONE_WORDS.has(w.lemma) && w.pos !== 'AUX');
    } else if (['forget', 'disregard', 'ignore'].includes(words[verbAt]!.lemma)) {
      targetWords = rest;
    }
    const old = targetWords.some((w) => OLD_WORDS.has(w.lower));
    const kept = targetWords.filter((w) => !OLD_WORDS.has(w.lower));
    const frame = frameOfWords(kept, 'statement');
    const target = plainAnchors(frame).filter((a) => !a.startsWith('v:') && !MEMORY_NOUNS.has(a));
    if (target.length > 0) return { target, old, names: frame.names.filter((n) => target.includes(n)) };
  }
  return null;
}

/** Something a fact depends on ("the security lead", "redis", "the migration"). */
export interface Dependency {
  /** Anchors of what it depends on. */
  target: string[];
  /** The dependency is a state that ends ("until the migration finishes"). */
  until: boolean;
}

/** Concepts of roles a person holds: "X is our security lead", "the CTO's approval". */
const ROLE_CONCEPTS = new Set(['owner', 'approv', 'review', 'contact', 'admin', 'champion', 'lead', 'head', 'chair', 'captain', 'liaison', 'sponsor', 'architect', 'director', 'vp', 'cto', 'ceo', 'cfo', 'pm', 'manag', 'oncal', 'on-cal']);

/**
 * What a fact says it depends on: a reason ("because we use Redis", "since there is only one
 * replica"), a condition that ends ("until the migration finishes"), a role whose holder it relies
 * on ("signed with the security lead's key", "the CTO's approval"), or an explicit "depends on" /
 * "relies on" / "as long as".
 */
export function dependenciesOf(fact: FactReading): Dependency[] {
  const out: Dependency[] = [];
  const seen = new Set<string>();
  const add = (words: readonly Word[], until: boolean, nounPhrase = false) => {
    // In a noun phrase ("the security lead's"), a word the tagger took for a verb is a noun.
    const anchors = plainAnchors(frameOfWords(words, 'statement'));
    const target = nounPhrase ? anchors.map((a) => a.replace(/^v:/, '')) : anchors.filter((a) => !a.startsWith('v:'));
    const key = target.join(' ');
    if (target.length === 0 || seen.has(key)) return;
    seen.add(key);
    out.push({ target, until });
  };
  for (const clause of fact.reading.clauses) {
    if (clause.subordinator && ['because', 'since', 'until', 'till', 'unless'].includes(clause.subordinator)) {
      add(clause.words.slice(1), clause.subordinator === 'until' || clause.subordinator === 'till');
    }
    const words = clause.words;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      const next = words[i + 1];
      if ((w.text === "'s" || w.text === '’s') && i > 0) {
        let j = i - 1;
        const owner: Word[] = [];
        while (j >= 0 && ['NOUN', 'ADJ', 'VERB'].includes(words[j]!.pos) && owner.length < 3) owner.unshift(words[j--]!);
        if (owner.length > 0 && ROLE_CONCEPTS.has(wordConcept(owner.at(-1)!))) add(owner, false, true);
      }
      if ((w.lemma === 'depend' || w.lemma === 'rely') && next && (next.lower === 'on' || next.lower === 'upon')) add(words.slice(i + 2), false);
      if ((w.lower === 'due' && next?.lower === 'to') || (w.lower === 'because' && next?.lower === 'of') || (w.lower === 'as' && next?.lower === 'long' && words[i + 2]?.lower === 'as')) {
        add(words.slice(i + 2), false);
      }
      if ((w.lower === 'until' || w.lower === 'till') && i > 0) add(words.slice(i + 1), true);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Names and open-class values.

/** First names in six languages: "Tom", "Mark" and "Grace" are English words too, but capitalised they are people. */
const FIRST_NAMES = new Set([humanNames.allEn, humanNames.allIt, humanNames.allFr, humanNames.allDe, humanNames.allEs, humanNames.allNl].flat());

/**
 * Is this word a name (a person, a company, a product the vocabulary does not list)? Capitalised
 * and a first name or not an English word ("Priya", "Adyen", "Tailscale"), or written like a
 * product ("OpenVPN", "GraphHopper").
 */
export function isName(w: Word): boolean {
  if (!/^\p{Lu}[\p{L}0-9.+-]*$/u.test(w.text) || w.text.length < 2) return false;
  if (ENVIRONMENTS[w.lower] || STATISTIC_QUALIFIERS[w.lower] || MONTHS.has(w.lower) || DAYS.has(w.lower.replace(/s$/, ''))) return false;
  if (/[a-z][A-Z]/.test(w.text)) return true;
  return FIRST_NAMES.has(w.text) || !isEnglishWord(w.lower.normalize('NFD').replace(/\p{M}/gu, ''));
}

/** Runs of names in a clause; a capitalised word next to a name joins it ("Wise Business API", "Montserrat Media Hub"). */
export function namesIn(clause: Clause): Word[][] {
  const runs: Word[][] = [];
  const words = clause.words;
  const joins = (w: Word | undefined) => w !== undefined && w.pos === 'PROPN' && /^\p{Lu}/u.test(w.text) && !MONTHS.has(w.lower) && !DAYS.has(w.lower);
  for (let i = 0; i < words.length; i++) {
    if (!isName(words[i]!)) continue;
    let start = i;
    let end = i;
    while (start > 0 && joins(words[start - 1])) start--;
    while (joins(words[end + 1])) end++;
    runs.push(words.slice(start, end + 1));
    i = end;
  }
  return runs;
}

/** A value read by the NLP reader, where the regular patterns read none. */
export interface OpenValue {
  type: 'money' | 'date' | 'name' | 'channel' | 'url' | 'email' | 'count' | 'number' | 'boolean' | 'rate' | 'region';
  value: string | number;
  unit?: string;
  normalized?: number;
  previous?: boolean;
  /** Said to be gone: retired, archived, replaced, no longer in use. */
  gone?: boolean;
  start: number;
  end: number;
}

const CURRENCIES: Record<string, string> = {
  $: 'usd', usd: 'usd', dollar: 'usd', dollars: 'usd', '€': 'eur', eur: 'eur', euro: 'eur', euros: 'eur', '£': 'gbp', gbp: 'gbp',
  pound: 'gbp', pounds: 'gbp', '¥': 'jpy', jpy: 'jpy', chf: 'chf', cad: 'cad', aud: 'aud', inr: 'inr', '₹': 'inr',
};
const MONTH_NUMBERS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6, jul: 7, july: 7,
  aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11, dec: 12, december: 12,
};
/** Words before a date that make it the time a statement holds at, not a value of it. */
const DATE_ANCHOR_WORDS = new Set(['as', 'of', 'since', 'starting', 'effective', 'from', 'through', 'until', 'till', 'after', 'before', 'during', 'around', 'circa', 'early', 'late', 'mid', 'between']);

const pad2 = (n: number) => String(n).padStart(2, '0');
/** Numbers written as words ("seven people", "twelve books"). */
const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, thirteen: 13,
  fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19, twenty: 20, thirty: 30, forty: 40,
  fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, hundred: 100, dozen: 12,
};
const WRITTEN_DATE_RE = new RegExp(
  String.raw`\b(?:(${Object.keys(MONTH_NUMBERS).join('|')})\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?|(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(${Object.keys(MONTH_NUMBERS).join('|')})\.?(?:,?\s+(\d{4}))?)\b`,
  'gi',
);

/** Where the text writes dates ("March 15", "the 14th of May"): numbers inside them are days, not counts. */
export function writtenDateSpans(text: string): [number, number][] {
  return [...text.matchAll(WRITTEN_DATE_RE)].filter((m) => parseWrittenDate(m[0]) !== null).map((m) => [m.index, m.index + m[0].length]);
}

/** A written date as `YYYY-MM-DD`, or `--MM-DD` without a year: "March 3, 2025", "the 14th of May", "April 1". */
export function parseWrittenDate(text: string): string | null {
  WRITTEN_DATE_RE.lastIndex = 0;
  const m = WRITTEN_DATE_RE.exec(text);
  if (!m) return null;
  const month = MONTH_NUMBERS[(m[1] ?? m[5])!.toLowerCase()]!;
  const day = Number(m[2] ?? m[4]);
  const year = m[3] ?? m[6];
  if (day < 1 || day > 31) return null;
  return year ? `${year}-${pad2(month)}-${pad2(day)}` : `--${pad2(month)}-${pad2(day)}`;
}

/** Amount and currency of a money mention ("$2,800", "€5k", "175 dollars"). */
export function parseMoney(text: string): { amount: number; currency: string } | null {
  const t = text.toLowerCase().replace(/,(?=\d{3})/g, '');
  const m = /([$€£¥₹]|\b(?:usd|eur|gbp|chf|cad|aud|inr|jpy)\b)?\s*(\d+(?:\.\d+)?)\s*(k|m|mm|bn|million|thousand)?\s*(dollars?|euros?|pounds?|usd|eur|gbp|chf|cad|aud|inr|jpy)?/.exec(t);
  if (!m || (!m[1] && !m[4])) return null;
  const scale = ({ k: 1e3, thousand: 1e3, m: 1e6, mm: 1e6, million: 1e6, bn: 1e9 } as Record<string, number>)[m[3] ?? ''] ?? 1;
  return { amount: Number(m[2]) * scale, currency: CURRENCIES[(m[1] ?? m[4])!.trim()] ?? 'usd' };
}

const overlapsAny = (spans: readonly [number, number][], start: number, end: number) => spans.some(([s, e]) => start < e && end > s);

/** How a counted noun reads as a unit: the lexicon's concept where it has one ("engineers" → person), else the singular lemma. */
export const unitOf = (w: Word) => {
  const concept = conceptOf(w.lemma, w.stem);
  return concept !== w.stem ? concept : w.lemma;
};

/**
 * Values the NLP reader finds where the patterns found none: money, written dates, counts of any
 * noun, numbers a change verb sets, channels, URLs, emails, and proper names in the predicate
 * (the new owner, the provider used). `taken` are spans already read as values.
 */
export function openValuesOf(fact: FactReading, taken: readonly [number, number][]): OpenValue[] {
  const { reading } = fact;
  const out: OpenValue[] = [];
  // "weighs 185 pounds": the tagger's money, read below as a count of pounds.
  const weights: [number, number][] = [];
  const claim = (v: OpenValue) => {
    if (overlapsAny(taken, v.start, v.end) || overlapsAny(out.map((o) => [o.start, o.end] as [number, number]), v.start, v.end)) return;
    if (['email', 'url', 'channel', 'name'].includes(v.type) && GONE_AFTER.test(reading.text.slice(v.end, v.end + 40))) v.gone = true;
    out.push(v);
  };
  for (const e of reading.entities) {
    if (e.type === 'MONEY') {
      // "weighs 185 pounds": a weight, not money.
      if (/pounds?\b/i.test(e.value) && !/[£$€]/.test(e.value) && /\b(?:weigh|weight|lbs?|lose|lost|gain|gained|body)/i.test(reading.text)) {
        weights.push([e.start, e.end]);
        continue;
      }
      const money = parseMoney(e.value);
      if (money) claim({ type: 'money', value: money.amount, unit: money.currency, normalized: money.amount, start: e.start, end: e.end, previous: isPreviousAt(reading, e.start) });
    } else if (e.type === 'EMAIL' || e.type === 'URL') {
      claim({ type: e.type === 'EMAIL' ? 'email' : 'url', value: e.value.toLowerCase().replace(/[.,;:)]+$/, ''), start: e.start, end: e.end, previous: isPreviousAt(reading, e.start, e.end) });
    }
  }
  // Written dates ("April 1", "Sept 2", "the 14th of May"): a value unless they only say when.
  for (const m of reading.text.matchAll(WRITTEN_DATE_RE)) {
    const date = parseWrittenDate(m[0]);
    if (!date) continue;
    const start = m.index;
    const before = reading.words.filter((w) => w.end <= start).slice(-2);
    const anchored =
      before.some((w) => DATE_ANCHOR_WORDS.has(w.lower)) || (before.at(-1)?.lower === 'by' && !before.some((w) => w.lemma === 'due')) || (before.at(-1)?.lower === 'in' && before.at(-2)?.lower !== 'due');
    if (anchored && !isChangeTarget(reading, start)) continue;
    claim({ type: 'date', value: date, start, end: start + m[0].length, previous: isPreviousAt(reading, start) });
  }
  // Host names ("bi.internal.lumen.io", "analytics.example.com"): where something lives.
  for (const m of reading.text.matchAll(/(?<![\w@/.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:io|com|net|org|dev|app|cloud|internal|local|lan|corp|co|ai|sh|so|xyz|tech|us|eu|de|uk|fr|in)(?![\w.-]*[a-z0-9])/gi)) {
    if (/^\d+(?:\.\d+)*$/.test(m[0]) || lookupTechnology(m[0].toLowerCase())) continue;
    claim({ type: 'url', value: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length, previous: isPreviousAt(reading, m.index, m.index + m[0].length) });
  }
  // Money the tagger did not mark ("€14.50 an hour", "$59/seat", "120 EUR").
  for (const m of reading.text.matchAll(/(?:[$€£¥₹]\s?\d[\d,]*(?:\.\d+)?\s?(?:k|m|bn)?(?![\w.])|\b\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|chf|cad|aud|dollars?|euros?)\b)/gi)) {
    const money = parseMoney(m[0]);
    if (money) claim({ type: 'money', value: money.amount, unit: money.currency, normalized: money.amount, start: m.index, end: m.index + m[0].length, previous: isPreviousAt(reading, m.index) });
  }
  // "USE_TRAFFIC_LAYER=false", "strict_mode: on": a setting written with its state.
  for (const m of reading.text.matchAll(/\b([A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+)\s*[=:]\s*(true|false|on|off|enabled|disabled|yes|no|1|0)\b/gi)) {
    const start = m.index + m[0].length - m[2]!.length;
    claim({ type: 'boolean', value: ['true', 'on', 'enabled', 'yes', '1'].includes(m[2]!.toLowerCase()) ? 'true' : 'false', start, end: start + m[2]!.length });
  }
  // Cloud regions the patterns do not list (GCP's "europe-west1", "us-central1").
  for (const m of reading.text.matchAll(/\b((?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:north|south|east|west|central|northeast|southeast|northwest|southwest)\d)\b/gi)) {
    claim({ type: 'region', value: m[1]!.toLowerCase(), start: m.index, end: m.index + m[0].length, previous: isPreviousAt(reading, m.index, m.index + m[0].length) });
  }
  // "@yuki": a person named by their handle.
  for (const m of reading.text.matchAll(/(?<![\w.@])@([a-z][a-z0-9_.-]*[a-z0-9])\b(?!\.[a-z])/gi)) {
    claim({ type: 'name', value: m[1]!.toLowerCase(), start: m.index, end: m.index + m[0].length, previous: isPreviousAt(reading, m.index, m.index + m[0].length) });
  }
  // "flipped X to true", "set X to off", "X defaults to enabled": a setting's state.
  for (const m of reading.text.matchAll(/\b(?:to|is now|now)\s+(true|false|on|off|enabled|disabled)\b/gi)) {
    const start = m.index + m[0].length - m[1]!.length;
    const state = ['true', 'on', 'enabled'].includes(m[1]!.toLowerCase());
    const before = reading.words.filter((w) => w.end <= start).slice(-8);
    if (!before.some((w) => (w.pos === 'VERB' && CHANGE_VERBS.has(w.lemma)) || w.lemma === 'default' || w.lower === 'now')) continue;
    claim({ type: 'boolean', value: state ? 'true' : 'false', start, end: start + m[1]!.length });
  }
  for (const m of reading.text.matchAll(/(?<![\w&])#[a-z0-9][a-z0-9_-]*[a-z0-9]/gi)) {
    claim({ type: 'channel', value: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length, previous: isPreviousAt(reading, m.index, m.index + m[0].length) });
  }
  for (const clause of reading.clauses) {
    const words = clause.words;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      const digits = /^\d+(?:\.\d+)?$/.test(w.text.replace(/,/g, ''));
      const weight = w.entity === 'MONEY' && overlapsAny(weights, w.start, w.end);
      if (w.pos !== 'NUM' || (!digits && NUMBER_WORDS[w.lower] === undefined) || (w.entity && w.entity !== 'CARDINAL' && !weight)) continue;
      const value = digits ? Number(w.text.replace(/,/g, '')) : NUMBER_WORDS[w.lower]!;
      if (value >= 1900 && value <= 2100 && (MONTH_NUMBERS[words[i - 1]?.lower ?? ''] || words[i - 1]?.lower === 'in' || words[i - 1]?.text === ',')) continue; // a year
      // "6 engineers", "7 times", "3 consecutive failures", "40 end-to-end tests".
      let j = i + 1;
      while (j < words.length && j <= i + 3 && (words[j]!.pos === 'ADJ' || (NOUNISH.has(words[j]!.pos) && NOUNISH.has(words[j + 1]?.pos ?? '')))) j++;
      const noun = words[j];
      if (noun && NOUNISH.has(noun.pos) && !/^\d/.test(noun.text) && !MONTHS.has(noun.lower) && !TIME_OF_DAY.has(noun.lower)) {
        // "60 API requests per minute", "1,000 events/s": a rate of what is counted.
        const per = /^\s*(per\s+(?:second|minute|hour|day)|\/\s?(?:s|sec|min|m|h|hr|day))\b/i.exec(reading.text.slice(noun.end));
        const rate = per ? lookupUnit(per[1]!.replace(/\s+/g, ' ').toLowerCase().replace(/^\/\s?/, '/')) : undefined;
        if (per && rate?.family === 'rate') {
          claim({ type: 'rate', value, unit: rate.canonical, normalized: toBase(value, rate), start: w.start, end: noun.end + per[0].length, previous: isPreviousAt(reading, w.start) });
          continue;
        }
        claim({ type: 'count', value, unit: unitOf(noun), normalized: value, start: w.start, end: noun.end, previous: isPreviousAt(reading, w.start) });
        continue;
      }
      // "reached 450", "went up to 12": a number a change verb sets, with no noun after it.
      const before = words.slice(Math.max(0, i - 3), i);
      if (before.some((b) => b.lower === 'to' || (b.pos === 'VERB' && CHANGE_VERBS.has(b.lemma))) || before.at(-1)?.pos === 'AUX') {
        claim({ type: 'number', value, normalized: value, start: w.start, end: w.end, previous: isPreviousAt(reading, w.start) });
      }
    }
    // Proper names in the predicate, or the holder of a role: a person or a product.
    const verbAt = words.findIndex((w) => w.pos === 'VERB' || w.pos === 'AUX');
    for (const run of namesIn(clause)) {
      const first = run[0]!;
      const last = run.at(-1)!;
      const text = reading.text.slice(first.start, last.end);
      if (lookupTechnology(text.toLowerCase()) || lookupTechnology(first.lower)) continue;
      // A name before a common noun modifies it ("the Wise integration", "a GPG key"), and one
      // before "'s" owns something ("Leslie's introduction offer"): not a value.
      const following = words[words.indexOf(last) + 1];
      if (following && (following.pos === 'NOUN' || following.pos === 'ADJ') && !isName(following)) continue;
      if (following && (following.text === "'s" || following.text === '’s')) continue;
      // "per IP", "each SKU": what a value is counted by, not a value; short acronyms (IP, CLI, SSO) are things, not names.
      const preceding = words[words.indexOf(first) - 1];
      if (preceding && ['per', 'each', 'every', 'by'].includes(preceding.lower)) continue;
      if (run.length === 1 && /^[A-Z]{2,3}s?$/.test(first.text)) continue;
      if (clause.subordinator !== null && clause.subordinator !== 'and') continue;
      const verb = verbAt >= 0 ? words.slice(verbAt).find((w) => w.pos === 'VERB') : undefined;
      const inPredicate = verbAt >= 0 && words.indexOf(first) > verbAt;
      const rest = verbAt >= 0 ? words.slice(verbAt) : [];
      const holdsRole =
        verbAt >= 0 &&
        words.indexOf(first) < verbAt &&
        ((verb !== undefined && VERB_ATTRIBUTES.name![verb.lemma] !== undefined) ||
          rest.some((w) => w.lemma === 'replace' || (w.lemma === 'take' && rest.some((x) => x.lower === 'over'))) ||
          (words[verbAt]!.lemma === 'be' && restOfSentence(reading, clause).some((w) => ROLE_CONCEPTS.has(wordConcept(w)) || VERB_ATTRIBUTES.name![w.lemma] !== undefined)));
      if (!inPredicate && !holdsRole) continue;
      claim({ type: 'name', value: text.toLowerCase().replace(/[.,;:]+$/, ''), start: first.start, end: last.end, previous: isReplacedName(reading, first, last) });
    }
  }
  return out;
}

/** A clause and the relative clause that follows it ("Tomás is the person who handles releases"). */
function restOfSentence(reading: TextReading, clause: Clause): Word[] {
  const index = reading.clauses.indexOf(clause);
  const next = reading.clauses[index + 1];
  return next && (next.subordinator === 'who' || next.subordinator === 'which' || next.subordinator === 'that') ? [...clause.words, ...next.words] : clause.words;
}

/** Words after a value that say it is gone: "#deploys got archived", "security@ was retired", "no longer resolves". */
const GONE_AFTER = /^\W{0,3}(?:(?:was|were|is|has been|have been|got|gets|is now|are now)\s+)?(?:retired|archived|removed|deleted|deprecated|decommissioned|shut down|turned off|sunset|dropped|replaced|renamed|gone|dead|no longer\b)/i;

/** "from X to ...", "up from X", "replaced X with", "instead of X", "X was retired": the value named as the old one. */
function isPreviousAt(reading: TextReading, start: number, end?: number): boolean {
  if (end !== undefined && GONE_AFTER.test(reading.text.slice(end, end + 40))) return true;
  const before = reading.words.filter((w) => w.end <= start).slice(-3).map((w) => w.lower);
  const last = before.at(-1);
  if (last === 'from' && (['up', 'down', 'increased', 'decreased', 'raised', 'lowered', 'rose', 'fell', 'dropped', 'moved', 'switched', 'changed', 'bumped', 'cut', 'reduced', 'went'].includes(before.at(-2) ?? '') || reading.words.some((w) => w.start > start && w.lower === 'to'))) {
    return true;
  }
  if (last === 'of' && before.at(-2) === 'instead') return true;
  if (last === 'than' && before.at(-2) === 'rather') return true;
  if ((last === 'replaced' || last === 'replacing' || last === 'retired' || last === 'dropped') && before.at(-2) !== 'been') return true;
  return false;
}

/** "Marta replaced Tom as security lead", "Marta took over from Tom", "Tom was replaced by": Tom is the old value. */
function isReplacedName(reading: TextReading, first: Word, last: Word): boolean {
  const before = reading.words.filter((w) => w.end <= first.start).slice(-2);
  const after = reading.words.filter((w) => w.start >= last.end).slice(0, 3);
  if (before.at(-1)?.lemma === 'replace') return true;
  if (before.at(-1)?.lower === 'from' && reading.words.some((w) => w.lower === 'over' || w.lemma === 'take' || w.lemma === 'hand')) return true;
  if (after[0]?.lemma === 'be' && after[1]?.lemma === 'replace') return true;
  return false;
}

/** Is the value at `start` what a change verb sets ("moved to April 5", "rescheduled to March 30")? */
function isChangeTarget(reading: TextReading, start: number): boolean {
  const before = reading.words.filter((w) => w.end <= start).slice(-4);
  return before.some((w) => w.pos === 'VERB' && CHANGE_VERBS.has(w.lemma)) && before.some((w) => w.lower === 'to' || w.lower === 'for' || w.lower === 'on');
}

export type { FactEntity };

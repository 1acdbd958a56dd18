/**
 * The word lists the language module reads, loaded from `data/*.json` (one list per concept, kept
 * as data so a list can grow without touching a rule), and the lookups over them. Entries are
 * lemmas or space-separated lemma phrases; a phrase matches consecutive words by their lower-case
 * form or lemma.
 */
import change from './data/change.json' with { type: 'json' };
import measures from './data/measures.json' with { type: 'json' };
import technologies from './data/technologies.json' with { type: 'json' };
import units from './data/units.json' with { type: 'json' };
import words from './data/words.json' with { type: 'json' };

/** What a phrase is matched against: a word's lower-case form and its lemma. */
export interface Matchable { lower: string; lemma: string }

/** Phrases indexed by their first word, so a lookup at a position tries only phrases that can start there. */
export class PhraseTable<T> {
  private readonly byFirst = new Map<string, { parts: string[]; value: T }[]>();

  constructor(entries: Iterable<[string, T]>) {
    for (const [phrase, value] of entries) {
      const parts = phrase.toLowerCase().split(' ');
      const list = this.byFirst.get(parts[0]!) ?? [];
      list.push({ parts, value });
      // Longest first: "rate limit" before "rate".
      list.sort((a, b) => b.parts.length - a.parts.length);
      this.byFirst.set(parts[0]!, list);
    }
  }

  /** The longest phrase starting at `i`: its value and length in words, or undefined. */
  at(list: readonly Matchable[], i: number): { value: T; length: number } | undefined {
    const w = list[i];
    if (!w) return undefined;
    for (const key of new Set([w.lower, w.lemma])) {
      for (const { parts, value } of this.byFirst.get(key) ?? []) {
        if (parts.every((p, k) => list[i + k] !== undefined && (list[i + k]!.lower === p || list[i + k]!.lemma === p))) return { value, length: parts.length };
      }
    }
    return undefined;
  }

  /** Every match in `list`, left to right, not overlapping. */
  all(list: readonly Matchable[]): { value: T; index: number; length: number }[] {
    const out: { value: T; index: number; length: number }[] = [];
    for (let i = 0; i < list.length; i++) {
      const found = this.at(list, i);
      if (found) {
        out.push({ ...found, index: i });
        i += found.length - 1;
      }
    }
    return out;
  }

  /** Does the table hold this single word (by form or lemma)? */
  has(w: Matchable): boolean {
    return this.at([w], 0)?.length === 1;
  }

  /** The value of the one-word phrase that is this lower-case string (a key's part, a name), not a word of a read text. */
  word(lower: string): T | undefined {
    return this.at([{ lower, lemma: lower }], 0)?.value;
  }
}

const table = (list: readonly string[]) => new PhraseTable(list.map((p) => [p, true] as [string, true]));

/** Change language, defined once (data/change.json). */
export const CHANGE = {
  verbs: table(change.change_verbs), assignment: table(change.assignment_verbs), markers: table(change.change_markers), previous: table(change.previous_markers),
  plan: table(change.plan_markers), progress: table(change.progress_markers), conditional: table(change.conditional_markers), correction: table(change.correction_markers),
  removal: table(change.removal_verbs), gone: table(change.gone_words), completion: table(change.completion_words), departure: table(change.departure_words), departureNouns: table(change.departure_nouns),
  deletion: table(change.deletion_verbs), memoryNouns: table(change.memory_nouns), old: table(change.old_words), release: table(change.release_verbs), releaseNouns: table(change.release_nouns), releaseLifecycle: table(change.release_lifecycle), history: table(change.history_markers),
  continuity: table(change.continuity_words),
};

/** A measure: what a value is of ("timeout", "retention"), and the kinds of value it takes. */
export interface Measure { name: string; kinds: ReadonlySet<string> }
/** Function words, and prefixes written with a hyphen ("multi-window", "non-blocking", "cross-region"). */
export const FUNCTION_WORDS = new Set<string>(words.function_words);
/** A measure's words, and each phrase of content words also as written joined ("ratelimit", "poolsize") in keys and terse notes. */
export const withJoinedForms = (phrases: readonly string[]): string[] => [
  ...phrases,
  ...phrases.filter((w) => w.includes(' ') && !w.split(' ').some((p) => FUNCTION_WORDS.has(p))).map((w) => w.replace(/ /g, '')),
];
const byPhrase = new Map<string, Measure[]>();
for (const [name, m] of Object.entries(measures.measures)) {
  const measure: Measure = { name, kinds: new Set(m.kinds) };
  for (const w of new Set(withJoinedForms(m.words))) byPhrase.set(w, [...(byPhrase.get(w) ?? []), measure]);
}
/** Measure words and phrases → the measures they name (a word may name one measure per kind of value). */
export const MEASURE_WORDS = new PhraseTable<Measure[]>(byPhrase);

/** Technology names (one or more words) → canonical name and kind ("redis" → redis, cache). */
export const TECHNOLOGIES = new PhraseTable<{ name: string; kind: string }>(
  Object.entries(technologies.kinds).flatMap(([kind, entries]) =>
    entries.flatMap((entry) => {
      const [name, ...aliases] = entry.split('|').map((s) => s.trim());
      return [name!, ...aliases].map((alias) => [alias, { name: name!, kind }] as [string, { name: string; kind: string }]);
    }),
  ),
);

const invert = (groups: Record<string, readonly string[]>) => new PhraseTable(Object.entries(groups).flatMap(([key, list]) => list.map((w) => [w, key] as [string, string])));

/** Environment words → qualifier (prod, staging, dev, test). */
export const ENVIRONMENTS = invert(words.environments);
/** Environment words that name an environment only after a preposition ("in dev", not "dev tooling"). */
export const ENVIRONMENT_NEEDS_PREPOSITION = new Set(words.environment_needs_preposition);
/** What a thing is only for a while ("Ana is out", "the migration is in progress", "the freeze is in effect"). */
export const TEMPORARY_STATES = new Set<string>(words.temporary_states);
/** Nouns whose numbered instances are items of a series ("Sprint 41", "Phase 2"): two numbers, two items. */
export const SERIES_NOUNS: readonly string[] = words.series_nouns;
/** A hold on work that lasts for an episode ("deploy freeze for the launch"). */
export const FREEZES = new Set<string>(words.freezes);
/** Nouns of time: a period ("week", "sprint") or a time of day ("night"). */
export const TIME_NOUNS = new Set<string>(words.time_nouns);
/** Statistic words → which figure of a distribution (p50, p99, peak). */
export const STATISTICS = invert(words.statistics);
/** Bound words: the value bounds what is stated ("at least 2", "up to 8 times"), from below or above. */
export const BOUNDS = invert(words.bounds) as PhraseTable<'min' | 'max'>;
/** Extreme words: the setting is a minimum or a maximum ("max connections", "minReplicas"). */
export const EXTREMES = invert(words.extremes) as PhraseTable<'min' | 'max'>;
export const GENERIC = new Set(words.generic);
export const COMPONENT_ROLES = new Set(words.component_roles);
export const TEAM_HEADS = new Set(words.team_heads);
/** What is stored and kept for a while (objects, backups, logs): what expires of them is kept no longer, a retention. */
export const STORED_DATA = new Set(words.stored_data);
/** Where a setting is written (a chart, its values, a manifest): where a value is set, not what it is about. */
export const SETTING_PLACES = new Set<string>(words.setting_places);
export const FREQUENCIES: Readonly<Record<string, number>> = words.frequencies;
export const NUMBER_WORDS: Readonly<Record<string, number>> = words.number_words;
export const MONTHS = words.months;
export const WEEKDAYS = words.weekdays;
export const NEGATIONS = new Set(words.negations);
export const SUBORDINATORS = new Set(words.subordinators);
export const FIRST_PERSON = new Set(words.first_person);
/** Verbs a service answers a request with ("answers 503", "returns a 429"): the number after them is a status. */
export const RESPONSE_VERBS = new Set(words.response_verbs);
/** Verbs of a figure moving ("went up to", "rose to"): where they go is a change's target, not a bound. */
export const RISE_VERBS = new Set(words.rise_verbs);
/** Verb lemmas and phrases → their class ("rely on" and "use" are one act). */
export const VERB_CLASSES = invert(words.verb_classes);

export interface Unit { family: 'duration' | 'size' | 'rate' | 'percentage'; canonical: string; factor: number }
const UNIT_TABLE = new Map<string, Unit>();
for (const [family, list] of Object.entries(units).filter(([k]) => k !== 'about')) {
  for (const [canonical, def] of Object.entries(list as Record<string, { factor: number; spellings: string[] }>)) {
    for (const spelling of def.spellings) UNIT_TABLE.set(spelling, { family: family as Unit['family'], canonical, factor: def.factor });
  }
}
/** Unit spellings, longest first (for building the quantity pattern). */
export const UNIT_SPELLINGS = [...UNIT_TABLE.keys()].sort((a, b) => b.length - a.length);

/** A unit by its spelling; "M", "G" and "K" alone are sizes, "m" is minutes. */
export function unitOf(spelling: string): Unit | undefined {
  const exact = spelling.trim();
  const upper: Record<string, string> = { M: 'mb', G: 'gb', K: 'kb' };
  return UNIT_TABLE.get(upper[exact] ?? exact.toLowerCase().replace(/\s+/g, ' '));
}

/**
 * Entity extraction (SPEC §6): the values a fact states — numbers with units, durations, sizes,
 * rates, percentages, versions, ports, dates, regions, config keys, technologies, booleans and
 * negations — each placed in a subject-qualified slot such as `auth.rate_limit`. The subject comes
 * from the text ("the auth service ...") or else from the scope's first segment. Deterministic and
 * dependency-free: the detective's deterministic tiers compare facts by these slots.
 */
import type { FactEntity } from '@engram/db';
import { lookupUnit, toBase, UNIT_SPELLINGS, type UnitFamily } from './units.ts';
import {
  BOOLEAN_WORDS,
  COUNT_NOUNS,
  ENVIRONMENTS,
  lookupTechnology,
  NON_SUBJECT_ADJECTIVES,
  SUBJECT_HEADS,
  SUBSYSTEM_NOUNS,
  TECHNOLOGY_NAMES,
} from './vocabulary.ts';

export type { FactEntity };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
const UNIT_ALTERNATION = UNIT_SPELLINGS.map(escape).join('|');
const QUANTITY_RE = new RegExp(String.raw`(?<![\w.])${NUMBER}\s?(${UNIT_ALTERNATION})(?![\w/])`, 'gi');
const COUNT_RE = new RegExp(
  String.raw`(?<![\w.])${NUMBER}\s+(${Object.keys(COUNT_NOUNS).map(escape).join('|')})(?:e?s)?\b`,
  'gi',
);
const TECH_RE = new RegExp(String.raw`(?<![\w.-])(${TECHNOLOGY_NAMES.map(escape).join('|')})(?![\w-]|\.\w)`, 'gi');
const PORT_RE = /\bports?\s*(?:is\s+|of\s+|=\s*|:\s*|number\s+|to\s+|on\s+)?(\d{2,5})\b|(?<=[a-z0-9\]]):(\d{2,5})\b/gi;
const DATE_RE = /\b(\d{4}-\d{2}-\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b/g;
const REGION_RE = /\b((?:us|eu|ap|sa|ca|me|af|il|mx)-(?:east|west|north|south|central|northeast|southeast|northwest|southwest)-\d)\b/gi;
const CONFIG_KEY_RE = /\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g;
const VERSION_RE = /\bv(\d+(?:\.\d+){1,3}(?:-[\w.]+)?)\b|\bversion\s+v?(\d+(?:\.\d+){0,3})\b/gi;
const BARE_NUMBER_RE =
  /\b(?:is|are|was|=|:|of|to|at|equals|defaults to|limited to|capped at|set to|maxes out at|max(?:imum)?(?: of)?)\s+(\d+(?:\.\d+)?)(?![\w.%/])/gi;
const BOOLEAN_RE = new RegExp(
  String.raw`\b(?:is|are|was|were|be|been|stays|remains|set to|turned|gets|got|now)\s+(?:now\s+|currently\s+|always\s+|still\s+|already\s+)?(${Object.keys(BOOLEAN_WORDS).join('|')})\b`,
  'gi',
);
const NEGATION_BEFORE = /\b(?:not|never|no longer|n't|stopped using|stop using|dropped|removed|without|instead of|rather than|away from|off of|off)\b[^,;]*$/i;
const PREVIOUS_BEFORE = /\b(?:from|replaced|replacing|instead of|rather than|away from|off of|off|retired|dropped|removed|deprecated|migrated off|used to (?:use|be))\s+(?:the\s+|our\s+)?$/i;
const PREVIOUS_AFTER = /^\s+(?:was|were|has been|is being|got|is)?\s*(?:replaced|retired|removed|dropped|deprecated|swapped out)\b/i;

const COPULAS = new Set([
  'is', 'are', 'was', 'were', 'be', 'been', '=', ':', 'equals', 'of', 'to', 'at', 'set', 'defaults', 'limited',
  'capped', 'maxes', 'uses', 'use', 'using', 'runs', 'run', 'allows', 'allow', 'has', 'have', 'takes', 'needs',
  'requires', 'stays', 'remains', 'now', 'currently', 'still', 'on', 'with', 'after', 'for', 'within', 'under',
  'over', 'every', 'than', 'least', 'most', 'up',
]);

// Verbs whose value is an attribute of the thing before them ("tokens expire after 1 hour").
const VERB_ATTRIBUTES: Record<string, string> = {
  expire: 'expiry',
  expires: 'expiry',
  timeout: 'timeout',
  'times out': 'timeout',
  retries: 'retry_limit',
  retry: 'retry_limit',
  'rate-limits': 'rate_limit',
  'rate-limit': 'rate_limit',
  throttles: 'rate_limit',
};

// Nouns that, right after a value, say what it is ("with a 1h expiry", "a 30 s timeout").
const ATTRIBUTE_NOUNS_AFTER = new Set([
  'expiry', 'expiration', 'ttl', 'timeout', 'limit', 'delay', 'interval', 'window', 'retention', 'lifetime', 'budget',
  'cap', 'quota', 'backoff', 'deadline', 'grace', 'period', 'cooldown', 'latency', 'rate', 'lease', 'heartbeat',
]);
const FILLER = new Set([
  'the', 'a', 'an', 'our', 'its', 'their', 'this', 'that', 'these', 'those', 'we', 'it', 'they', 'there', 'and',
  'or', 'in', 'per', 'by', 'from', 'into', 'about', 'around', 'roughly', 'approximately', 'actually', 'now', 'still',
  'currently', 'also', 'only', 'just', 'all', 'every', 'each', 'default', 'configured', 'config', 'value', 'setting',
]);

interface Mention {
  start: number;
  end: number;
}

/** Splits text into clauses that can each carry their own values ("8080 in prod; 9090 in staging"). */
function clausesOf(text: string): { text: string; offset: number }[] {
  const clauses: { text: string; offset: number }[] = [];
  const boundary = /(?<!\d)[.;!?](?=\s|$)|\n|,\s+(?:and|but|while|whereas)\s+|\s+(?:but|while|whereas)\s+/gi;
  let last = 0;
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) {
    if (m.index > last) clauses.push({ text: text.slice(last, m.index), offset: last });
    last = m.index + m[0].length;
  }
  if (last < text.length) clauses.push({ text: text.slice(last), offset: last });
  return clauses.filter((c) => c.text.trim());
}

const wordsOf = (text: string) => text.toLowerCase().match(/[a-z0-9][a-z0-9_.-]*|=|:/g) ?? [];
/** Singular of an attribute's last word, so "rate limits" and "rate limit" are one slot. */
const singular = (word: string) =>
  word.length > 3 && word.endsWith('s') && !/(?:ss|us|is|os)$/.test(word) ? word.slice(0, -1) : word;

const snake = (words: string[]) =>
  words
    .map((w, i) => (i === words.length - 1 ? singular(w) : w))
    .join('_')
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');

/** The subject a fact is about: "the auth service", a leading subsystem noun, else the scope. */
export function subjectOf(content: string, scope: string): string {
  const scopeSubject = scope.split('/')[0] ?? scope;
  const words = wordsOf(content);
  for (let i = 1; i < words.length; i++) {
    const head = words[i]!;
    const candidate = words[i - 1]!;
    if (SUBJECT_HEADS.has(head) && !NON_SUBJECT_ADJECTIVES.has(candidate) && /^[a-z][a-z0-9-]*$/.test(candidate)) {
      return candidate;
    }
  }
  const lead = words.find((w) => !FILLER.has(w));
  if (lead && SUBSYSTEM_NOUNS.has(lead)) return lead;
  return scopeSubject;
}

/** Environment qualifiers a clause states ("in prod", "on staging"). */
function environmentsOf(clause: string): string[] {
  const found = new Set<string>();
  const strong = /\b(prod|production|staging|preprod|pre-prod)\b/gi;
  const weak = /\b(?:in|on|for|to|at)\s+(?:the\s+)?(dev|development|test|testing|local|qa|sandbox|preview|live|ci|stage)\b/gi;
  for (const re of [strong, weak]) {
    for (let m = re.exec(clause); m; m = re.exec(clause)) {
      const env = ENVIRONMENTS[m[1]!.toLowerCase()];
      if (env) found.add(env);
    }
  }
  return [...found].sort();
}

/**
 * The attribute a value belongs to: the noun phrase just before it, minus the subject, fillers,
 * copulas and environment words ("The auth service rate limit is 1000 req/s" → `rate_limit`).
 */
function attributeBefore(clause: string, position: number, subject: string, skip: Set<string>, end = position): string {
  const following = /^\s*([a-z]+)/i.exec(clause.slice(end))?.[1]?.toLowerCase();
  if (following && ATTRIBUTE_NOUNS_AFTER.has(following)) return following === 'expiration' ? 'expiry' : following;
  const words = wordsOf(clause.slice(0, position));
  // A verb that names the attribute: "tokens expire after 1 hour" → tokens_expiry.
  let verbAttribute: string | undefined;
  for (let k = words.length - 1; k >= 0 && k >= words.length - 3; k--) {
    const attr = VERB_ATTRIBUTES[words[k]!];
    if (attr) {
      verbAttribute = attr;
      words.length = k;
      break;
    }
  }
  // Walk back over the copula/verb, then collect the noun phrase.
  let i = words.length - 1;
  while (i >= 0 && (COPULAS.has(words[i]!) || FILLER.has(words[i]!))) i--;
  const phrase: string[] = [];
  for (; i >= 0 && phrase.length < 4; i--) {
    const w = words[i]!;
    if (COPULAS.has(w) && phrase.length > 0) break;
    if (/^\d/.test(w)) break;
    if (FILLER.has(w) || w === subject || SUBJECT_HEADS.has(w) || ENVIRONMENTS[w] || skip.has(w)) {
      if (phrase.length > 0 && !FILLER.has(w) && w !== subject && !SUBJECT_HEADS.has(w)) break;
      continue;
    }
    phrase.unshift(w.replace(/[.-]/g, '_'));
  }
  if (verbAttribute) phrase.push(verbAttribute);
  return snake(phrase);
}

function overlaps(taken: Mention[], start: number, end: number): boolean {
  return taken.some((m) => start < m.end && end > m.start);
}

/** Extracts the entities of one fact. */
export function extractEntities(content: string, scope: string): FactEntity[] {
  // "1,000" is one thousand, not two numbers.
  const text = content.replace(/(\d),(?=\d{3}(?!\d))/g, '$1');
  const subject = subjectOf(text, scope);
  const entities: FactEntity[] = [];
  const seen = new Set<string>();
  const push = (entity: FactEntity) => {
    const key = JSON.stringify([entity.slot, entity.type, entity.value, entity.qualifiers ?? [], entity.negated ?? false, entity.previous ?? false]);
    if (!seen.has(key)) {
      seen.add(key);
      entities.push(entity);
    }
  };

  for (const clause of clausesOf(text)) {
    const c = clause.text;
    const qualifiers = environmentsOf(c);
    const withQualifiers = (e: FactEntity): FactEntity => (qualifiers.length ? { ...e, qualifiers } : e);
    const taken: Mention[] = [];
    const techNames = new Set<string>();

    // Technologies: what is used (or explicitly not, or no longer), by category.
    const techs: { name: string; category: string; start: number; end: number }[] = [];
    for (let m = TECH_RE.exec(c); m; m = TECH_RE.exec(c)) {
      const found = lookupTechnology(m[1]!);
      if (!found) continue;
      // "go", "bun", "node", "fly", "render", "express", "spring", "rest" are ordinary words too:
      // require them to be capitalised or technical-looking in the source.
      if (['go', 'bun', 'node', 'fly', 'render', 'express', 'spring', 'rails', 'pg', 'elk', 'r2', 'ses', 'ecs', 'bull', 'deno'].includes(m[1]!.toLowerCase()) && m[1] === m[1]!.toLowerCase()) continue;
      if (found.name === 'rest' && !/^REST/.test(m[1]!)) continue;
      techs.push({ ...found, start: m.index, end: m.index + m[0].length });
      for (const w of m[1]!.toLowerCase().split(/\s+/)) techNames.add(w);
    }
    for (const t of techs) {
      const before = c.slice(0, t.start);
      const after = c.slice(t.end);
      const previous = PREVIOUS_BEFORE.test(before) || PREVIOUS_AFTER.test(after);
      const negated = !previous && NEGATION_BEFORE.test(before.split(/\b(?:but|and|while)\b/i).pop() ?? before);
      push(
        withQualifiers({
          slot: `${subject}.${t.category}`,
          type: 'technology',
          value: t.name,
          ...(negated ? { negated: true } : {}),
          ...(previous ? { previous: true } : {}),
        }),
      );
      push(withQualifiers({ slot: `${subject}.uses.${t.name}`, type: 'usage', value: !negated && !previous }));
    }

    // Versions: "Postgres 14", "Node.js v22.3", "Stripe API v2023-10-16", "version 3.2".
    for (const t of techs) {
      const after = c.slice(t.end);
      const v = /^\s*(?:api\s+)?(?:version\s+)?v?(\d{4}-\d{2}-\d{2}|\d+(?:\.\d+){0,3})\b/i.exec(after);
      if (v) {
        const start = t.end + v.index + v[0].length - v[1]!.length;
        const unitAfter = new RegExp(String.raw`^\s?(${UNIT_ALTERNATION})(?![\w/])`, 'i').exec(c.slice(start + v[1]!.length));
        if (unitAfter) continue; // "Redis 512 MB" is a size, not a version
        taken.push({ start, end: start + v[1]!.length });
        push(withQualifiers({ slot: `${subject}.${t.name}.version`, type: 'version', value: v[1]! }));
      }
    }
    for (let m = VERSION_RE.exec(c); m; m = VERSION_RE.exec(c)) {
      const value = m[1] ?? m[2]!;
      const start = m.index + m[0].length - value.length;
      if (overlaps(taken, start, start + value.length)) continue;
      taken.push({ start, end: start + value.length });
      const attr = attributeBefore(c, m.index, subject, techNames) || 'version';
      push(withQualifiers({ slot: `${subject}.${attr.endsWith('version') ? attr : `${attr}_version`}`, type: 'version', value }));
    }

    // Ports.
    for (let m = PORT_RE.exec(c); m; m = PORT_RE.exec(c)) {
      const value = m[1] ?? m[2]!;
      const start = m.index + m[0].length - value.length;
      if (overlaps(taken, start, start + value.length)) continue;
      const port = Number(value);
      if (port < 1 || port > 65535) continue;
      taken.push({ start, end: start + value.length });
      const owner = techs.find((t) => t.end <= start)?.name ?? techs[0]?.name;
      push(withQualifiers({ slot: `${owner ?? subject}.port`, type: 'port', value: port }));
    }

    // Dates and regions.
    for (let m = DATE_RE.exec(c); m; m = DATE_RE.exec(c)) {
      if (overlaps(taken, m.index, m.index + m[0].length)) continue;
      taken.push({ start: m.index, end: m.index + m[0].length });
      const attr = attributeBefore(c, m.index, subject, techNames) || 'date';
      push(withQualifiers({ slot: `${subject}.${attr}`, type: 'date', value: m[1]! }));
    }
    for (let m = REGION_RE.exec(c); m; m = REGION_RE.exec(c)) {
      taken.push({ start: m.index, end: m.index + m[0].length });
      const attr = attributeBefore(c, m.index, subject, techNames) || 'region';
      push(withQualifiers({ slot: `${subject}.${attr}`, type: 'region', value: m[1]!.toLowerCase() }));
    }

    // Quantities with units: durations, sizes, rates, percentages.
    for (let m = QUANTITY_RE.exec(c); m; m = QUANTITY_RE.exec(c)) {
      if (overlaps(taken, m.index, m.index + m[0].length)) continue;
      const unit = lookupUnit(m[2]!);
      if (!unit) continue;
      taken.push({ start: m.index, end: m.index + m[0].length });
      const family: UnitFamily = unit.family;
      const value = Number(m[1]);
      const attr =
        attributeBefore(c, m.index, subject, techNames, m.index + m[0].length) || (family === 'rate' ? 'rate_limit' : family);
      push(
        withQualifiers({
          slot: `${subject}.${attr}`,
          type: family,
          value,
          unit: unit.canonical,
          normalized: toBase(value, unit),
        }),
      );
    }

    // Counts: "50 connections", "3 attempts".
    for (let m = COUNT_RE.exec(c); m; m = COUNT_RE.exec(c)) {
      if (overlaps(taken, m.index, m.index + m[0].length)) continue;
      taken.push({ start: m.index, end: m.index + m[0].length });
      const unit = COUNT_NOUNS[m[2]!.toLowerCase()]!;
      const value = Number(m[1]);
      const attr = attributeBefore(c, m.index, subject, techNames, m.index + m[0].length) || `${unit}_count`;
      push(withQualifiers({ slot: `${subject}.${attr}`, type: 'count', value, unit, normalized: value }));
    }

    // Plain numbers stated as a value: "Max connections is 50".
    for (let m = BARE_NUMBER_RE.exec(c); m; m = BARE_NUMBER_RE.exec(c)) {
      const start = m.index + m[0].length - m[1]!.length;
      if (overlaps(taken, start, start + m[1]!.length)) continue;
      const attr = attributeBefore(c, start, subject, techNames);
      if (!attr) continue;
      taken.push({ start, end: start + m[1]!.length });
      const value = Number(m[1]);
      push(withQualifiers({ slot: `${subject}.${attr}`, type: 'number', value, normalized: value }));
    }

    // Booleans: "Debug mode is enabled in production".
    for (let m = BOOLEAN_RE.exec(c); m; m = BOOLEAN_RE.exec(c)) {
      const attr = attributeBefore(c, m.index, subject, techNames);
      if (!attr) continue;
      const negatedVerb = /\b(?:not|n't|never)\s*$/i.test(c.slice(0, m.index + m[0].length - m[1]!.length).replace(/\s+(?:is|are|was|were|be|been)\s*$/i, ' '));
      const state = BOOLEAN_WORDS[m[1]!.toLowerCase()]!;
      push(withQualifiers({ slot: `${subject}.${attr}`, type: 'boolean', value: negatedVerb ? !state : state }));
    }
    // "is not enabled" / "isn't enabled".
    for (let m = /\b(?:is|are|was|were)\s*(?:not|n't)\s+(enabled|disabled|on|off|active|required)\b/gi.exec(c); m; m = null) {
      const attr = attributeBefore(c, m.index, subject, techNames);
      if (attr) push(withQualifiers({ slot: `${subject}.${attr}`, type: 'boolean', value: !BOOLEAN_WORDS[m[1]!.toLowerCase()]! }));
    }
  }

  // Config keys are named, not valued: they help match facts about the same setting.
  for (let m = CONFIG_KEY_RE.exec(text); m; m = CONFIG_KEY_RE.exec(text)) {
    push({ slot: `config.${m[1]!}`, type: 'config_key', value: m[1]! });
  }
  return entities;
}

/** Identity of a slot for comparison: the slot plus its qualifiers (prod and staging differ). */
export function slotKey(entity: Pick<FactEntity, 'slot' | 'qualifiers'>): string {
  return entity.qualifiers?.length ? `${entity.slot}@${entity.qualifiers.join('+')}` : entity.slot;
}

/** The comparable value of an entity: normalized number when there is one, else the value. */
export function comparableValue(entity: FactEntity): string | number | boolean {
  return entity.normalized ?? entity.value;
}

/**
 * Entity extraction (SPEC §6): the values a fact states — numbers with units, durations, sizes,
 * rates, percentages, versions, ports, dates, regions, identifiers, config keys, technologies,
 * booleans and negations. Each value is placed in a subject-qualified slot: a *subject* (named in
 * the text before the value — "the auth service", "Payments ..." — or else the scope's first
 * segment, marked implicit) and an *attribute* of canonical words ("rate limit" and "capped at" are
 * both `max`; "expires", "TTL" and "times out" are `ttl`). The detector compares slots by these
 * parts, so differently worded facts about the same setting meet, and "request timeout" and
 * "session timeout" do not. Deterministic and dependency-free.
 */
import { createHash } from 'node:crypto';
import type { FactEntity } from '@engram/db';
import { conceptsOf, deletionOf, dependenciesOf, openValuesOf, writtenDateSpans, readFact, statementsOf, unitOf, valueFrame, type FactReading, type Frame, type OpenValue } from './meaning.ts';
import { lookupUnit, toBase, UNIT_SPELLINGS, type UnitFamily } from './units.ts';
import {
  BOOLEAN_WORDS,
  COUNT_NOUNS,
  ENVIRONMENTS,
  lookupTechnology,
  NON_SUBJECT_ADJECTIVES,
  STANDALONE_SUBJECTS,
  SUBJECT_HEADS,
  SUBSYSTEM_NOUNS,
  TECHNOLOGY_NAMES,
} from './vocabulary.ts';

export type { FactEntity };

/** Bumped whenever extraction changes; facts extracted by an older version are re-extracted. */
export const EXTRACTOR_VERSION = 6;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
const UNIT_ALTERNATION = UNIT_SPELLINGS.map(escape).join('|');
const QUANTITY_RE = new RegExp(String.raw`(?<![\w.])${NUMBER}\s?(${UNIT_ALTERNATION})(?![\w/])`, 'gi');
const COUNT_RE = new RegExp(
  String.raw`(?<![\w.])${NUMBER}[\s-](${Object.keys(COUNT_NOUNS).map(escape).join('|')})(?:e?s)?\b`,
  'gi',
);
const TECH_RE = new RegExp(String.raw`(?<![\w.\/-])(${TECHNOLOGY_NAMES.map(escape).join('|')})(?![\w\/-]|\.\w)`, 'gi');
const PORT_RE = /\bports?\s*(?:is\s+|of\s+|=\s*|:\s*|number\s+|to\s+|on\s+)?(\d{2,5})\b|(?<=[a-z0-9\]]|\s|^):(\d{2,5})\b/gi;
/** Container image tags: "node:22-alpine", "postgres:16.2". */
const IMAGE_TAG_RE = /\b([a-z][a-z0-9.-]*):v?(\d+(?:\.\d+){0,2})(?:-[a-z0-9.]+)?\b/gi;
const DATE_RE = /\b(\d{4}-\d{2}-\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b/g;
const REGION_RE = /\b((?:us|eu|ap|sa|ca|me|af|il|mx)-(?:east|west|north|south|central|northeast|southeast|northwest|southwest)-\d)\b/gi;
/** HTTP header names as values: "X-Signature", "X-Hub-Signature-256", "Idempotency-Key". */
const HEADER_RE = /\b(X-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*|[A-Z][a-z]+(?:-[A-Z][a-z0-9]+)+)\b/g;
const CONFIG_KEY_RE = /\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g;
const VERSION_RE = /\bv(\d+(?:\.\d+){1,3}(?:-[\w.]+)?)\b|\bversion\s+v?(\d+(?:\.\d+){0,3})\b/gi;
const BARE_NUMBER_RE =
  /(?:\b(?:is|are|was|of|to|at|equals|defaults to|limited to|capped at|set to|maxes out at|max(?:imum)?(?: of)?|holds|has|have)\s+(?:(?:actually|now|still|currently|really|just|only|exactly|about|around|roughly|approximately|~)\s*)?|\s*[=:]\s*)(\d+(?:\.\d+)?)(?![\w.%/-])/gi;
const BOOLEAN_RE = new RegExp(
  String.raw`\b(?:is|are|was|were|be|been|stays|remains|set to|turned|gets|got|now)\s+(?:now\s+|currently\s+|always\s+|still\s+|already\s+|back\s+)?(${Object.keys(BOOLEAN_WORDS).join('|')})\b`,
  'gi',
);
/** "There is no rate limiting on ...", "no caching": a feature stated as absent. */
const ABSENT_FEATURE_RE = /\b(?:(?:there(?:'s| is| are)\s+|we have\s+|has\s+|with\s+)?no|without)\s+((?:[a-z0-9]+\s+){0,2}[a-z0-9]+)/gi;
const FEATURE_NOUNS = new Set([
  'auth', 'authentication', 'authorization', 'encryption', 'compression', 'tls', 'ssl', 'https', 'mfa', '2fa', 'cors',
  'backups', 'backup', 'versioning', 'retries', 'cache', 'csrf', 'sso', 'audit', 'monitoring', 'alerting',
]);
const NEGATION_BEFORE =
  /(?:\b(?:not|never|no longer|stopped using|stop using|dropped|removed|without|instead of|rather than|away from|off of|off)\b|n't\b)[^,;]*$/i;
const PREVIOUS_BEFORE =
  /\b(?:from|replaced|replacing|instead of|rather than|away from|off of|off|retired|dropped|removed|deprecated|migrated off|used to (?:use|be))\s+(?:the\s+|our\s+)?$/i;
const PREVIOUS_AFTER =
  /^\s+(?:was|were|has been|is being|got|is)?\s*(?:replaced|retired|removed|dropped|deprecated|swapped out|decommissioned|sunset)\b|^\s+(?:trial|pilot|experiment|contract)?\s*(?:ended|expired|was (?:shut down|turned off|cancelled|canceled))\b/i;
const FROM_BEFORE = /\bfrom\s+(\d+(?:\.\d+)?)\s*([a-z/%]+)?\s+to\s+$/i;
const FROM_COUNT_BEFORE = /\bfrom\s+(\d+(?:\.\d+)?)(?:[\s-][a-z]+)?\s+to\s+$/i;
/** "is not enabled", "isn't enforced". */
const NEGATED_STATE_RE = /\b(?:is|are|was|were)\s*(?:not|n't)\s+(enabled|disabled|on|off|active|required|enforced)\b/gi;
/** A number right after a noun that names a setting: "minReplicas 3", "cost factor 12", "batch size 500". */
const NOUN_NUMBER_RE =
  /\b(?:[A-Za-z][A-Za-z0-9_.]*)?(?:factor|cost|size|limit|max|min|count|timeout|ttl|threshold|rounds|replicas|concurrency|parallelism|depth|retries|priority|weight|workers|level|Replicas|Count|Size|Limit|Max|Min)\s+(\d+(?:\.\d+)?)(?![\w.%/-])/gi;
/** "don't use a CDN", "no cache in front of", "without a message broker". */
const ABSENT_CATEGORY_RE =
  /\b(?:(?:do|does|did)(?: not|n't)\s+(?:use|put|have|run|need)|(?:there(?:'s| is| are)\s+)?no|without)\s+(?:an?\s+|any\s+)?(cdn|cache|caching layer|message broker|queue|orm|proxy|load balancer)\b/gi;
const CATEGORY_NOUNS: Record<string, string> = {
  cdn: 'cdn', cache: 'cache', 'caching layer': 'cache', 'message broker': 'message_broker', queue: 'message_broker',
  orm: 'orm', proxy: 'proxy', 'load balancer': 'proxy',
};

/** Words that link a value to what it belongs to; skipped when reading the attribute. */
const COPULAS = new Set([
  'is', 'are', 'was', 'were', 'be', 'been', '=', ':', 'equals', 'of', 'to', 'at', 'set', 'defaults', 'limited',
  'maxes', 'uses', 'use', 'using', 'runs', 'run', 'has', 'have', 'takes', 'needs', 'requires', 'stays', 'remains',
  'now', 'currently', 'still', 'on', 'with', 'after', 'for', 'within', 'under', 'over', 'than', 'least', 'most', 'up',
  'as', 'via', 'through', 'in', 'into', 'behind', 'around', 'about', 'out', 'go', 'goes', 'gets', 'get', 'got',
  'receives', 'receive', 'handles', 'handle', 'serves', 'serve', 'served', 'holds', 'hold', 'keeps', 'covers', 'cover',
  'exposed', 'listens', 'listen', 'sent', 'send', 'sends', 'written', 'writes', 'stored', 'done', 'configured',
  'running', 'deployed', 'hosted', 'pinned', 'built', 'builds', 'against', 'only', 'should', 'must', 'can', 'will',
  'between', 'rejects', 'reject', 'fires', 'fire', 'triggers', 'when', 'if', 'sets', 'processes', 'process',
  'processed', 'accepts', 'accept', 'done',
]);
/** Verbs that end an attribute phrase read backwards ("Raised the pool size to 50"). */
const STOP_VERBS = new Set([
  'raised', 'lowered', 'bumped', 'increased', 'decreased', 'reduced', 'changed', 'moved', 'switched', 'updated',
  'upgraded', 'downgraded', 'migrated', 'replaced', 'cut', 'dropped', 'doubled', 'halved', 'tuned', 'made', 'said',
  'says', 'confirmed', 'checked', 'verified', 'noticed', 'found', 'think', 'thinks', 'believe', 'we', 'i',
]);

// Verbs (and nouns after the value) that name the attribute itself.
const VERB_ATTRIBUTES: Record<string, string> = {
  expire: 'ttl',
  expires: 'ttl',
  expired: 'ttl',
  timeout: 'ttl',
  retries: 'retry',
  retry: 'retry',
  retried: 'retry',
  retained: 'retention',
  retain: 'retention',
  retains: 'retention',
  kept: 'retention',
  every: 'interval',
  exceeds: 'max',
  exceed: 'max',
  larger: 'max',
  bigger: 'max',
  greater: 'max',
  longer: 'max',
  more: 'max',
  smaller: 'min',
  shorter: 'min',
  fewer: 'min',
  less: 'min',
  over: 'max',
  above: 'max',
  capped: 'max',
  limited: 'max',
  allows: 'max',
  allow: 'max',
  'rate-limits': 'max',
  'rate-limit': 'max',
  throttles: 'max',
  throttled: 'max',
};
/** How a verb-named attribute reads in a question. */
const VERB_LABELS: Record<string, string> = {
  expire: 'expiry', expires: 'expiry', expired: 'expiry', timeout: 'timeout', retries: 'retry limit', retry: 'retry limit',
  retried: 'retry limit', retained: 'retention', retain: 'retention', retains: 'retention', kept: 'retention',
  every: 'interval', capped: 'limit', limited: 'limit', allows: 'limit', allow: 'limit', throttles: 'rate limit',
  throttled: 'rate limit', 'rate-limits': 'rate limit', 'rate-limit': 'rate limit',
};
const ATTRIBUTE_NOUNS_AFTER = new Set([
  'expiry', 'expiration', 'ttl', 'timeout', 'limit', 'delay', 'interval', 'window', 'retention', 'lifetime', 'budget',
  'cap', 'quota', 'backoff', 'deadline', 'grace', 'period', 'cooldown', 'latency', 'lease', 'heartbeat',
]);

/** Canonical attribute words: spellings of one idea become one word. */
const SYNONYMS: Record<string, string> = {
  maximum: 'max', limit: 'max', cap: 'max', capped: 'max', ceiling: 'max', quota: 'max', allowance: 'max', threshold: 'max',
  minimum: 'min', floor: 'min',
  expiry: 'ttl', expiration: 'ttl', expire: 'ttl', lifetime: 'ttl', timeout: 'ttl', validity: 'ttl',
  retained: 'retention', retain: 'retention', kept: 'retention',
  retries: 'retry', attempt: 'retry', try: 'retry', tries: 'retry', redelivery: 'retry',
  frequency: 'interval', cadence: 'interval',
  conn: 'connection', conns: 'connection',
  env: 'environment', db: 'database', repl: 'replica', replicas: 'replica', thread: 'thread', threads: 'thread',
};
/** Canonical attribute words ("max", "ttl", ...): never a subject. */
const ATTRIBUTE_WORDS = new Set(Object.values(SYNONYMS));
/** Words that name no attribute of their own (the value's kind already says it). */
const GENERIC = new Set([
  'value', 'setting', 'settings', 'default', 'current', 'configured', 'config', 'configuration', 'number', 'amount',
  'count', 'total', 'size', 'duration', 'time', 'period', 'length', 'rate', 'percentage', 'percent', 'share',
  'level', 'target', 'parameter', 'option', 'release', 'rollout', 'deployment', 'all', 'overall', 'global',
  'feature', 'flag', 'toggle', 'factor', 'standard', 'resource', 'entry', 'alert', 'transaction',
]);
/** Generic words that still name an attribute in some kinds ("deployment target" is a region's attribute). */
const KEPT_FOR: Partial<Record<string, Set<string>>> = {
  region: new Set(['target']),
  boolean: new Set(['rate', 'release', 'deployment']),
};

const FILLER = new Set([
  'the', 'a', 'an', 'our', 'its', 'their', 'this', 'that', 'these', 'those', 'it', 'they', 'there', 'and',
  'or', 'per', 'by', 'from', 'roughly', 'approximately', 'actually', 'now', 'still', 'currently', 'also', 'just',
  'each', 'then', 'already', 'again', 'always', 'typically', 'usually', 'really', 'truly', 'indeed', 'so',
]);

/** Environment words that are not an environment in front of these nouns ("production traffic"). */
const NOT_AN_ENVIRONMENT_BEFORE = new Set([
  'traffic', 'data', 'user', 'users', 'customer', 'customers', 'incident', 'incidents', 'issue', 'issues', 'bug', 'bugs',
  'outage', 'outages', 'load', 'readiness', 'ready', 'grade', 'quality', 'code', 'dependencies', 'dependency',
]);

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  fifteen: 15, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, ninety: 90, hundred: 100,
};
const UNIT_OR_COUNT = [...UNIT_SPELLINGS.filter((u) => /^[a-z]{3,}/i.test(u)), ...Object.keys(COUNT_NOUNS)]
  .sort((a, b) => b.length - a.length)
  .map(escape)
  .join('|');
const NUMBER_WORD_RE = new RegExp(String.raw`\b(${Object.keys(NUMBER_WORDS).join('|')})\s+(?=(?:${UNIT_OR_COUNT})(?:e?s)?\b)`, 'gi');

/**
 * Rewrites the ways people write numbers into digits the patterns read: "1,000" → "1000",
 * "2k" → "2000", "half an hour" → "30 minutes", "an hour" → "1 hour", "three replicas" → "3
 * replicas", and "times out" → "timeout".
 */
export function normalizeNumbers(content: string): string {
  return content
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1')
    .replace(/\b(\d+(?:\.\d+)?)\s?k\b(?!i?b)/gi, (_, n: string) => String(Math.round(Number(n) * 1000)))
    .replace(/\bhalf an? hour\b/gi, '30 minutes')
    .replace(/\bhalf a minute\b/gi, '30 seconds')
    .replace(/\bhalf a day\b/gi, '12 hours')
    .replace(/\b(?:an?|one)\s+(second|minute|hour|day|week|month|year)\b/gi, '1 $1')
    .replace(NUMBER_WORD_RE, (_, w: string) => `${NUMBER_WORDS[w.toLowerCase()]} `)
    .replace(/\b(?:times?|timed)\s+out\b/gi, 'timeout');
}

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

/** Singular of a word, so "rate limits" and "rate limit" are one slot. */
export const singular = (word: string) =>
  word.length > 3 && word.endsWith('ies')
    ? `${word.slice(0, -3)}y`
    : word.length > 4 && /(?:ches|shes|sses|xes)$/.test(word)
      ? word.slice(0, -2)
      : word.length > 3 && word.endsWith('s') && !/(?:ss|us|is|os|ms)$/.test(word)
        ? word.slice(0, -1)
        : word;

/** The canonical form of one attribute word, or null when it names nothing by itself. */
export function canonicalWord(word: string, kind: string): string | null {
  const w = word.replace(/[^a-z0-9_-]/g, '');
  if (w.length < 2 || /^\d/.test(w)) return null;
  const canon = SYNONYMS[w] ?? SYNONYMS[singular(w)] ?? singular(w);
  if (GENERIC.has(canon) && !KEPT_FOR[kind]?.has(canon)) return null;
  return canon;
}

/** Canonical attribute words, deduplicated, in reading order. */
function canonicalAttribute(words: readonly string[], kind: string): string[] {
  const out: string[] = [];
  for (const word of words) {
    const canon = canonicalWord(word, kind);
    if (canon && !out.includes(canon)) out.push(canon);
  }
  return out;
}

const isTechnologyWord = (w: string) => lookupTechnology(w) !== undefined;

function isSubjectCandidate(word: string): boolean {
  return (
    /^[a-z][a-z0-9-]*$/.test(word) &&
    !(word.length > 4 && /(?:[^e]ed|ing)$/.test(word)) && // "scheduled jobs", "running services"
    !NON_SUBJECT_ADJECTIVES.has(word) &&
    !ENVIRONMENTS[word] &&
    !FILLER.has(word) &&
    !COPULAS.has(word) &&
    !STOP_VERBS.has(word) &&
    !SYNONYMS[word] &&
    !ATTRIBUTE_WORDS.has(word) &&
    !GENERIC.has(word) &&
    !isTechnologyWord(word)
  );
}

/** The subject named in these words: "the auth service", "Payment gateway", a leading subsystem noun. */
function subjectIn(words: readonly string[]): string | null {
  for (let i = 0; i < words.length; i++) {
    const head = words[i]!;
    if (!SUBJECT_HEADS.has(head)) continue;
    // A head named by an identifier: "Service A is ...", "module 3 uses ...", "db 0 holds ...".
    // (Not a count: "retries the job 3 times" has no verb after the number.)
    const id = words[i + 1];
    const after = words[i + 2];
    if (id && /^(?:\d{1,4}|[a-z])$/.test(id) && (after === undefined || COPULAS.has(after))) return `${singular(head)}-${id}`;
    const candidate = words[i - 1];
    if (candidate && isSubjectCandidate(candidate) && !SUBJECT_HEADS.has(candidate)) return singular(candidate);
    if (candidate && SUBJECT_HEADS.has(candidate) && STANDALONE_SUBJECTS.has(candidate)) return singular(candidate);
    if (STANDALONE_SUBJECTS.has(head)) return singular(head);
  }
  const lead = words.find((w) => !FILLER.has(w));
  if (lead && SUBSYSTEM_NOUNS.has(lead)) return singular(lead);
  return null;
}

/** The subject a fact is about: named in the text, else the scope's first segment. */
export function subjectOf(content: string, scope: string): string {
  return subjectIn(wordsOf(normalizeNumbers(content))) ?? scopeSubject(scope);
}

const scopeSubject = (scope: string) => singular((scope.split('/')[0] ?? scope).toLowerCase());

/** Environment qualifiers a clause states ("in prod", "on staging", "Production API"). */
function environmentsOf(clause: string): string[] {
  const found = new Set<string>();
  const strong = /\b(prod|production|staging|preprod|pre-prod)\b(?:\s+([a-z]+))?/gi;
  const weak = /\b(?:in|on|for|to|at|against)\s+(?:the\s+)?(dev|development|test|testing|qa|sandbox|preview|ci|stage)\b/gi;
  for (let m = strong.exec(clause); m; m = strong.exec(clause)) {
    if (m[2] && NOT_AN_ENVIRONMENT_BEFORE.has(m[2].toLowerCase())) continue;
    const env = ENVIRONMENTS[m[1]!.toLowerCase()];
    if (env) found.add(env);
  }
  for (let m = weak.exec(clause); m; m = weak.exec(clause)) {
    const env = ENVIRONMENTS[m[1]!.toLowerCase()];
    if (env) found.add(env);
  }
  return [...found].sort();
}

/** Text as the attribute reader sees it: parentheticals and backticks dropped, identifiers split into words. */
function readable(text: string): string {
  return text
    .replace(/\([^()]*\)/g, ' ')
    .replace(/`/g, ' ')
    .replace(/[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)*/g, (token) => (lookupTechnology(token) ? token : splitIdentifier(token)));
}

/**
 * Configuration identifiers read as one attribute of several words, joined by "_" ("maxReceiveCount"
 * → "max_Receive_Count", "DB_POOL_SIZE", "resources.limits.memory" → "resources_limits_memory");
 * hyphenated words read as words ("auth-service" → "auth service").
 */
function splitIdentifier(token: string): string {
  if (/[a-z0-9][A-Z]|_|[A-Za-z]{3,}\.[A-Za-z]{3,}/.test(token)) {
    return token
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/([A-Za-z]{3,})\.(?=[A-Za-z]{3,})/g, '$1_')
      .replace(/_+/g, '_');
  }
  return token.replace(/([A-Za-z]{2,})-(?=[A-Za-z]{2,})/g, '$1 ');
}

/** A configuration identifier in parentheses right after a value names its attribute: "after 5 receives (maxReceiveCount)". */
const NAMED_AFTER_RE = /^\s*\(\s*([A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]*)+)\s*\)/;
const PREPOSITIONS = new Set(['for', 'on', 'of']);

/** What the words before a value say about it: its attribute, and the object of "X for/on Y is V". */
interface Reading {
  words: string[];
  label: string[];
  /** Words of "Y" in "X for/on/of Y is V" (where the subject often is). */
  object: string[];
}

/**
 * Reads the attribute of a value from its clause: a configuration identifier named in
 * parentheses after it, a noun right after it that names it ("a 1h expiry"), a verb that does
 * ("tokens expire after"), and the noun phrase before it — "X" rather than "Y" in "X for Y is V".
 * Subject heads, environments and technology names are not attribute words.
 */
function readBefore(before: string, after: string, skip: ReadonlySet<string>): Reading {
  const named = NAMED_AFTER_RE.exec(after)?.[1];
  if (named) {
    const words = splitIdentifier(named).toLowerCase().split(/[_\s]+/).filter(Boolean);
    return { words, label: words, object: [] };
  }
  const following = /^\s*([a-z]+)/i.exec(after)?.[1]?.toLowerCase();
  if (following && ATTRIBUTE_NOUNS_AFTER.has(following)) return { words: [following], label: [following], object: [] };
  // Inside parentheses ("... (DB_POOL_SIZE=20)"), only what the parentheses say; "from 1,000 to"
  // before the value is the old value, not the attribute.
  const open = before.lastIndexOf('(');
  const inside = open > before.lastIndexOf(')') ? before.slice(open + 1) : before;
  const words = wordsOf(readable(inside.replace(/\bfrom\s+\S+\s+to\s*$/i, '')));
  const found: string[] = [];
  const foundLabel: string[] = [];
  let i = words.length - 1;
  for (let k = i; k >= 0 && k >= words.length - 3; k--) {
    const attr = VERB_ATTRIBUTES[words[k]!];
    if (attr) {
      found.push(attr);
      foundLabel.push(VERB_LABELS[words[k]!] ?? attr);
      i = k - 1;
      break;
    }
  }
  while (i >= 0 && (COPULAS.has(words[i]!) || FILLER.has(words[i]!) || STOP_VERBS.has(words[i]!))) i--;
  /** Collects a noun phrase backwards from `start`; returns it and where it stopped. */
  const collect = (start: number): [string[], number] => {
    const phrase: string[] = [];
    let k = start;
    for (; k >= 0 && phrase.length < 5; k--) {
      const w = words[k]!;
      // A number, a verb of change, or a possessive ("the worker's memory limit") ends the phrase.
      if (/^\d/.test(w) || STOP_VERBS.has(w) || w === 's') break;
      if (w.includes('_')) {
        // A configuration identifier names the attribute by itself.
        phrase.unshift(...w.split('_').filter(Boolean));
        continue;
      }
      if (COPULAS.has(w) && !VERB_ATTRIBUTES[w]) {
        if (phrase.length === 0) continue;
        break;
      }
      if (FILLER.has(w) || SUBJECT_HEADS.has(w) || ENVIRONMENTS[w] || skip.has(w) || isTechnologyWord(w)) {
        if (phrase.length > 0 && !FILLER.has(w) && !SUBJECT_HEADS.has(w)) break;
        continue;
      }
      phrase.unshift(w);
    }
    return [phrase, k];
  };
  const [collected, stop] = collect(i);
  let phrase = collected;
  let object: string[] = [];
  if (phrase.length > 0 && stop > 0 && PREPOSITIONS.has(words[stop]!)) {
    let j = stop - 1;
    while (j >= 0 && FILLER.has(words[j]!)) j--;
    const [head] = collect(j);
    if (head.length > 0) {
      object = words.slice(stop + 1, i + 1);
      phrase = head;
    }
  }
  return {
    words: [...phrase.map((w) => VERB_ATTRIBUTES[w] ?? w), ...found],
    label: [...phrase.map((w) => VERB_LABELS[w] ?? w), ...foundLabel],
    object,
  };
}

const snakeCase = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

/** An attribute: canonical words to compare by, and how it reads ("max upload size"). */
interface Attribute {
  words: string[];
  label: string;
}

const without = (attribute: Attribute, word: string): Attribute => ({
  words: attribute.words.filter((w) => w !== word),
  label: attribute.label,
});

/** The old value of "from X to Y": recorded with Y as its previous value, not stated by itself. */
const isFromValue = (clause: string, start: number, length: number) =>
  /\bfrom\s+$/i.test(clause.slice(0, start)) && /^\s+to\b/i.test(clause.slice(start + length));

function overlaps(taken: Mention[], start: number, end: number): boolean {
  return taken.some((m) => start < m.end && end > m.start);
}

/** The kind of value an entity holds, for comparing: plain numbers and counts are one kind. */
export const valueKind = (type: string) => (type === 'number' ? 'count' : type);

/**
 * Reads one fact now, so the first commit after a start does not wait for the language model to
 * load and the reader's code to compile (240-280 ms on a slow core; 10-25 ms for the next fact).
 * The server calls it once it listens.
 */
export function warmFactReading(): void {
  extractEntities('The cache TTL is 30 seconds since the 2.1 release, down from 60.', 'cache');
}

/** Extracts the entities of one fact. */
export function extractEntities(content: string, scope: string): FactEntity[] {
  const text = normalizeNumbers(content);
  const fallbackSubject = scopeSubject(scope);
  const entities: FactEntity[] = [];
  const seen = new Set<string>();
  /** Where each entity was read (offsets into `text`), for its frame. */
  const spans = new Map<FactEntity, [number, number]>();
  let clauseOffset = 0;
  const push = (entity: FactEntity, start?: number, end?: number) => {
    const key = JSON.stringify([entity.slot, entity.type, entity.value, entity.qualifiers ?? [], entity.negated ?? false, entity.previous ?? false]);
    if (!seen.has(key)) {
      seen.add(key);
      entities.push(entity);
      if (start !== undefined) spans.set(entity, [clauseOffset + start, clauseOffset + (end ?? start)]);
    }
  };

  for (const clause of clausesOf(text)) {
    const c = clause.text;
    clauseOffset = clause.offset;
    const earlier = text.slice(0, clause.offset);
    const qualifiers = environmentsOf(c);
    const taken: Mention[] = [];
    const techNames = new Set<string>();

    /** Subject of a value at `position`: named before it in this clause (or `object`), or in earlier clauses. */
    const subjectAt = (position: number, object: readonly string[] = []): { subject: string; implicit: boolean } => {
      const named = subjectIn(object) ?? subjectIn(wordsOf(readable(c.slice(0, position)))) ?? subjectIn(wordsOf(readable(earlier)));
      return named ? { subject: named, implicit: false } : { subject: fallbackSubject, implicit: true };
    };
    /** An entity with its slot: subject, canonical attribute, qualifiers. */
    const make = (
      at: { subject: string; implicit: boolean },
      kind: string,
      attribute: Attribute,
      fields: Omit<FactEntity, 'slot' | 'subject' | 'attribute' | 'implicitSubject' | 'label'>,
      slotName?: string,
    ): FactEntity => ({
      slot: `${at.subject}.${slotName ?? (snakeCase(attribute.label) || attribute.words.join('_') || kind)}`,
      ...fields,
      subject: at.subject,
      ...(at.implicit ? { implicitSubject: true } : {}),
      attribute: [...attribute.words].sort(),
      ...(attribute.label ? { label: attribute.label } : {}),
      ...(qualifiers.length ? { qualifiers } : {}),
    });
    /** Subject and attribute of a value at [start, end). */
    const readAt = (start: number, end: number, kind: string): { at: { subject: string; implicit: boolean }; attribute: Attribute } => {
      const raw = readBefore(c.slice(0, start), c.slice(end), techNames);
      const at = subjectAt(start, raw.object);
      return {
        at,
        attribute: {
          words: canonicalAttribute(raw.words, kind).filter((w) => w !== at.subject),
          label: raw.label.filter((w) => singular(w) !== at.subject).join(' '),
        },
      };
    };
    const plain = (words: string[], label = ''): Attribute => ({ words, label });

    // Technologies: what is used (or explicitly not, or no longer), by category.
    const techs: { name: string; category: string; start: number; end: number }[] = [];
    for (let m = TECH_RE.exec(c); m; m = TECH_RE.exec(c)) {
      const found = lookupTechnology(m[1]!);
      if (!found) continue;
      // Ordinary words that are also product names count only when written like a name.
      if (AMBIGUOUS_NAMES.has(m[1]!.toLowerCase()) && m[1] === m[1]!.toLowerCase()) continue;
      if (found.name === 'rest' && !/^REST/.test(m[1]!)) continue;
      if (c.slice(m.index + m[0].length, m.index + m[0].length + 1) === ':' && /^:\d/.test(c.slice(m.index + m[0].length))) continue;
      techs.push({ ...found, start: m.index, end: m.index + m[0].length });
      for (const w of m[1]!.toLowerCase().split(/\s+/)) techNames.add(w);
    }
    for (const t of techs) {
      const before = c.slice(0, t.start);
      const after = c.slice(t.end);
      const previous = PREVIOUS_BEFORE.test(before) || PREVIOUS_AFTER.test(after);
      const negated = !previous && NEGATION_BEFORE.test(before.split(/\b(?:but|and|while)\b/i).pop() ?? before);
      const at = subjectAt(t.start);
      push(
        make(at, 'technology', plain([t.category]), {
          type: 'technology',
          value: t.name,
          ...(negated ? { negated: true } : {}),
          ...(previous ? { previous: true } : {}),
        }),
        t.start,
        t.end,
      );
      push(make(at, 'usage', plain([t.name]), { type: 'usage', value: !negated && !previous }, `uses.${t.name}`), t.start, t.end);
    }

    // Versions: "Postgres 14", "Node.js v22.3", "node:22-alpine", "Stripe API v2023-10-16", "version 3.2".
    for (const t of techs) {
      const after = c.slice(t.end);
      const change = /^\s*(?:version\s+)?from\s+v?(\d+(?:\.\d+){0,3})\s+to\s+v?(\d+(?:\.\d+){0,3})\b/i.exec(after);
      if (change) {
        taken.push({ start: t.end, end: t.end + change.index + change[0].length });
        const at = subjectAt(t.start);
        push(make(at, 'version', plain([t.name]), { type: 'version', value: change[2]! }, `${t.name}.version`), t.start, t.end);
        push(make(at, 'version', plain([t.name]), { type: 'version', value: change[1]!, previous: true }, `${t.name}.version`), t.start, t.end);
        continue;
      }
      const v = /^\s*(?:(is|runs|at|on)\s+)?(?:api\s+)?(version\s+|v)?(\d{4}-\d{2}-\d{2}|\d+(?:\.\d+){0,3})\b/i.exec(after);
      // After "is" or "on", only what looks like a version ("14", "1.29", "version 3"), not a port.
      if (!v || (v[1] && !v[2] && !v[3]!.includes('.') && Number(v[3]) >= 100)) continue;
      const version = v[3]!;
      const start = t.end + v.index + v[0].length - version.length;
      const unitAfter = new RegExp(String.raw`^\s?(${UNIT_ALTERNATION})(?![\w/])`, 'i').exec(c.slice(start + version.length));
      if (unitAfter) continue; // "Redis 512 MB" is a size, not a version
      taken.push({ start, end: start + version.length });
      push(make(subjectAt(t.start), 'version', plain([t.name]), { type: 'version', value: version }, `${t.name}.version`), start, start + version.length);
    }
    for (let m = IMAGE_TAG_RE.exec(c); m; m = IMAGE_TAG_RE.exec(c)) {
      const tech = lookupTechnology(m[1]!);
      if (!tech) continue;
      taken.push({ start: m.index, end: m.index + m[0].length });
      push(make(subjectAt(m.index), 'version', plain([tech.name]), { type: 'version', value: m[2]! }, `${tech.name}.version`), m.index, m.index + m[0].length);
    }
    for (let m = VERSION_RE.exec(c); m; m = VERSION_RE.exec(c)) {
      const value = m[1] ?? m[2]!;
      const start = m.index + m[0].length - value.length;
      if (overlaps(taken, start, start + value.length)) continue;
      taken.push({ start, end: start + value.length });
      const { at, attribute } = readAt(m.index, m.index, 'version');
      const named = without(attribute, 'version');
      push(make(at, 'version', named, { type: 'version', value }, `${named.words.join('_') || 'app'}.version`), start, start + value.length);
    }

    // Ports: a technology before the port owns it ("Redis runs on port 6379").
    for (let m = PORT_RE.exec(c); m; m = PORT_RE.exec(c)) {
      const value = m[1] ?? m[2]!;
      const start = m.index + m[0].length - value.length;
      if (overlaps(taken, start, start + value.length)) continue;
      const port = Number(value);
      if (port < 1 || port > 65535) continue;
      taken.push({ start, end: start + value.length });
      const owner = techs.filter((t) => t.end <= start).at(-1)?.name ?? techs[0]?.name;
      const read = owner ? { at: { subject: owner, implicit: false }, attribute: plain([]) } : readAt(m.index, m.index, 'port');
      const attribute = without(read.attribute, 'port');
      push(make(read.at, 'port', attribute, { type: 'port', value: port }, [...attribute.words, 'port'].join('_')), start, start + value.length);
    }

    // Dates, regions, header names and enumerated settings ("READ COMMITTED", "allkeys-lru").
    for (let m = DATE_RE.exec(c); m; m = DATE_RE.exec(c)) {
      if (overlaps(taken, m.index, m.index + m[0].length)) continue;
      taken.push({ start: m.index, end: m.index + m[0].length });
      const { at, attribute } = readAt(m.index, m.index, 'date');
      push(make(at, 'date', attribute, { type: 'date', value: m[1]! }), m.index, m.index + m[0].length);
    }
    for (let m = REGION_RE.exec(c); m; m = REGION_RE.exec(c)) {
      taken.push({ start: m.index, end: m.index + m[0].length });
      const { at, attribute } = readAt(m.index, m.index, 'region');
      push(make(at, 'region', attribute, { type: 'region', value: m[1]!.toLowerCase() }), m.index, m.index + m[0].length);
    }
    for (let m = HEADER_RE.exec(c); m; m = HEADER_RE.exec(c)) {
      if (overlaps(taken, m.index, m.index + m[0].length) || lookupTechnology(m[1]!)) continue;
      const following = /^\s*header/i.test(c.slice(m.index + m[0].length));
      if (!/^X-/.test(m[1]!) && !following && !/header\w*\s+(?:\w+\s+){0,3}$/i.test(c.slice(0, m.index))) continue;
      taken.push({ start: m.index, end: m.index + m[0].length });
      const read = readAt(m.index, m.index, 'header');
      const attribute = without(read.attribute, 'header');
      push(make(read.at, 'header', attribute, { type: 'header', value: m[1]!.toLowerCase() }, [...attribute.words, 'header'].join('_')), m.index, m.index + m[0].length);
    }

    // Quantities with units: durations, sizes, rates, percentages (and CPU millicores, "500m").
    for (let m = QUANTITY_RE.exec(c); m; m = QUANTITY_RE.exec(c)) {
      if (overlaps(taken, m.index, m.index + m[0].length)) continue;
      if (isFromValue(c, m.index, m[0].length)) continue;
      const unit = lookupUnit(m[2]!);
      if (!unit) continue;
      taken.push({ start: m.index, end: m.index + m[0].length });
      const value = Number(m[1]);
      const read = readAt(m.index, m.index + m[0].length, unit.family);
      if (m[2] === 'm' && read.attribute.words.includes('cpu')) {
        const cores = value / 1000;
        push(make(read.at, 'count', { words: read.attribute.words, label: read.attribute.label }, { type: 'count', value: cores, unit: 'cpu', normalized: cores }), m.index, m.index + m[0].length);
        continue;
      }
      const family: UnitFamily = unit.family;
      let attribute = read.attribute;
      if (family === 'rate' && !attribute.words.includes('max') && !attribute.words.includes('min')) {
        attribute = { words: [...attribute.words, 'max'], label: attribute.label };
      }
      if (family === 'rate' && !/\brate\b/.test(attribute.label)) {
        attribute = { ...attribute, label: `${attribute.label.replace(/\blimit\b/, '')} rate limit`.replace(/\s+/g, ' ').trim() };
      }
      const fields = { type: family, unit: unit.canonical };
      push(make(read.at, family, attribute, { ...fields, value, normalized: toBase(value, unit) }), m.index, m.index + m[0].length);
      const from = FROM_BEFORE.exec(c.slice(0, m.index));
      const fromUnit = from ? (from[2] ? lookupUnit(from[2]) : unit) : undefined;
      if (from && fromUnit?.family === family) {
        const old = Number(from[1]);
        push(make(read.at, family, attribute, { ...fields, unit: fromUnit.canonical, value: old, normalized: toBase(old, fromUnit), previous: true }), m.index, m.index + m[0].length);
      }
    }

    // Counts: "50 connections", "3 attempts", "4-core".
    for (let m = COUNT_RE.exec(c); m; m = COUNT_RE.exec(c)) {
      if (overlaps(taken, m.index, m.index + m[0].length)) continue;
      if (isFromValue(c, m.index, m[0].length)) continue;
      taken.push({ start: m.index, end: m.index + m[0].length });
      const unit = COUNT_NOUNS[m[2]!.toLowerCase()]!;
      const value = Number(m[1]);
      const unitWord = canonicalWord(unit, 'count') ?? unit;
      const read = readAt(m.index, m.index + m[0].length, 'count');
      const named = without(read.attribute, unitWord);
      // "1,000 records per batch" is a batch size.
      const perBatch = /^\s+per\s+batch\b/i.test(c.slice(m.index + m[0].length)) && !named.words.includes('batch') ? ['batch'] : [];
      const attribute = { words: [...named.words, ...perBatch, unitWord], label: named.label || (perBatch.length ? `${unit}s per batch` : `${unit} count`) };
      push(make(read.at, 'count', attribute, { type: 'count', value, unit, normalized: value }), m.index, m.index + m[0].length);
      const from = FROM_COUNT_BEFORE.exec(c.slice(0, m.index));
      if (from) push(make(read.at, 'count', attribute, { type: 'count', value: Number(from[1]), unit, normalized: Number(from[1]), previous: true }), m.index, m.index + m[0].length);
    }

    // Plain numbers stated as a value: "Max connections is 50", "DB_POOL_SIZE=20", "minReplicas 3".
    for (const re of [BARE_NUMBER_RE, NOUN_NUMBER_RE]) {
      for (let m = re.exec(c); m; m = re.exec(c)) {
        const number = m[m.length - 1]!;
        const start = m.index + m[0].length - number.length;
        if (overlaps(taken, start, start + number.length)) continue;
        const { at, attribute } = readAt(start, start + number.length, 'count');
        if (attribute.words.length === 0) continue;
        taken.push({ start, end: start + number.length });
        const value = Number(number);
        push(make(at, 'count', attribute, { type: 'number', value, normalized: value }), start, start + number.length);
      }
    }

    // Booleans: "Debug mode is enabled in production", "Request signing is not enabled", "no rate limiting".
    for (let m = BOOLEAN_RE.exec(c); m; m = BOOLEAN_RE.exec(c)) {
      const { at, attribute } = readAt(m.index, m.index, 'boolean');
      if (attribute.words.length === 0) continue;
      const negatedVerb = /\b(?:not|n't|never)\s*$/i.test(c.slice(0, m.index + m[0].length - m[1]!.length).replace(/\s+(?:is|are|was|were|be|been)\s*$/i, ' '));
      const state = BOOLEAN_WORDS[m[1]!.toLowerCase()]!;
      push(make(at, 'boolean', attribute, { type: 'boolean', value: negatedVerb ? !state : state }), m.index, m.index + m[0].length);
    }
    for (let m = NEGATED_STATE_RE.exec(c); m; m = NEGATED_STATE_RE.exec(c)) {
      const { at, attribute } = readAt(m.index, m.index, 'boolean');
      if (attribute.words.length) push(make(at, 'boolean', attribute, { type: 'boolean', value: !BOOLEAN_WORDS[m[1]!.toLowerCase()]! }), m.index, m.index + m[0].length);
    }
    for (let m = ABSENT_FEATURE_RE.exec(c); m; m = ABSENT_FEATURE_RE.exec(c)) {
      const words = m[1]!.toLowerCase().split(/\s+/);
      // Only the phrase up to the feature word: "no rate limiting on the endpoint" → rate limiting.
      const end = words.findIndex((w) => /ing$/.test(w) || FEATURE_NOUNS.has(w));
      if (end < 0 || words[0] === 'longer') continue;
      const at = subjectAt(m.index);
      const phrase = words.slice(0, end + 1);
      const attribute = plain(canonicalAttribute(phrase, 'boolean').filter((w) => w !== at.subject), phrase.join(' '));
      if (attribute.words.length) push(make(at, 'boolean', attribute, { type: 'boolean', value: false }), m.index, m.index + m[0].length);
    }
    // "We don't put a CDN in front", "there is no cache": a whole category of technology said to be absent.
    for (let m = ABSENT_CATEGORY_RE.exec(c); m; m = ABSENT_CATEGORY_RE.exec(c)) {
      const category = CATEGORY_NOUNS[m[1]!.toLowerCase()];
      if (!category || techs.some((t) => t.category === category)) continue;
      push(make(subjectAt(m.index), 'technology', plain([category]), { type: 'technology', value: 'none' }), m.index, m.index + m[0].length);
    }
  }

  // Whole statements, so "X does not do Y" meets "X does Y" whatever Y is.
  for (const clause of clausesOf(text)) {
    const assertion = assertionOf(clause.text);
    if (!assertion) continue;
    const subject = subjectIn(wordsOf(readable(clause.text))) ?? fallbackSubject;
    push({
      slot: `${subject}.statement`,
      type: 'assertion',
      value: !assertion.negated,
      subject: '',
      attribute: [assertion.key],
      label: assertion.label,
    });
  }

  // Config keys are named, not valued: they help match facts about the same setting.
  for (let m = CONFIG_KEY_RE.exec(text); m; m = CONFIG_KEY_RE.exec(text)) {
    push({ slot: `config.${m[1]!}`, type: 'config_key', value: m[1]! });
  }
  readMeaning(text, fallbackSubject, entities, spans);
  return entities;
}

/** A frame as stored: anchors, `^`-suffixed noun modifiers, `*`-suffixed names and `@`-prefixed qualifiers. */
const frameKeys = (frame: Frame) => [
  ...frame.anchors.filter((a) => !frame.aliases?.includes(a)),
  ...(frame.aliases ?? []).map((a) => `${a}=`),
  ...frame.modifiers.map((m) => `${m}^`),
  ...frame.names.map((n) => `${n}*`),
  ...frame.qualifiers.map((q) => `@${q}`),
  ...(frame.head ? [`${frame.head}!`] : []),
];

/**
 * What the NLP reader adds (see meaning.ts): a frame for every value read above, open-class
 * values, statements with their polarity, cues, a deletion request and dependencies.
 */
function readMeaning(text: string, scopeSubject: string, entities: FactEntity[], spans: Map<FactEntity, [number, number]>): void {
  const fact = readFact(text);
  // A number inside a written date ("his March 15 event") is the day, not a count of events.
  const dates = writtenDateSpans(text);
  for (const [entity, [start, end]] of [...spans]) {
    if ((entity.type === 'count' || entity.type === 'number') && dates.some(([s, e]) => start < e && end > s)) {
      spans.delete(entity);
      entities.splice(entities.indexOf(entity), 1);
    }
  }
  const values = openValuesOf(fact, [...spans.values()]);
  // Other quantities in the clause end a value's words ("a $40 case and a $60 charger"); names and technologies do not.
  const QUANTITIES = new Set(['duration', 'size', 'rate', 'percentage', 'count', 'number', 'money', 'date', 'port', 'version']);
  const boundaries: [number, number][] = [
    ...[...spans].filter(([e]) => QUANTITIES.has(e.type)).map(([, span]) => span),
    ...values.filter((v) => QUANTITIES.has(v.type)).map((v) => [v.start, v.end] as [number, number]),
  ];
  const others = (start: number, end: number) => boundaries.filter(([s, e]) => !(s === start && e === end));
  for (const [entity, [start, end]] of spans) {
    const skip = new Set([String(entity.value).toLowerCase(), ...(entity.unit ? [entity.unit] : [])]);
    entity.frame = frameKeys(valueFrame(fact, start, end, valueKind(entity.type), others(start, end), skip));
    // "50 event photos": the patterns counted the first noun of a compound; the count is of its head.
    if (entity.type === 'count') {
      const following = fact.reading.words.find((w) => w.start >= end && w.start <= end + 1);
      const counted = fact.reading.words.filter((w) => w.end <= end).at(-1);
      const singular = counted !== undefined && !/s$/.test(counted.lower) && counted.lower !== 'people';
      if (singular && following && following.pos === 'NOUN' && !/^\d/.test(following.text)) {
        entity.unit = unitOf(following);
        entity.frame = entity.frame.filter((f) => f !== entity.unit);
      }
    }
    // "to 1,350 words": a bare number the patterns read, with the noun it counts right after it.
    if (entity.type === 'number') {
      const noun = fact.reading.words.find((w) => w.start >= end && w.start <= end + 1);
      if (noun && (noun.pos === 'NOUN' || noun.pos === 'PROPN') && !/^\d/.test(noun.text)) {
        entity.type = 'count';
        entity.unit = unitOf(noun);
        entity.frame = entity.frame.filter((f) => f !== entity.unit);
      }
    }
  }
  // Values listed together ("A and B", "A, B or C") are one claim about one thing: one frame for all.
  const lists = listsOf(fact, values);
  // A name's frame leaves out the other names (the one it replaced, the person it was handed from).
  const nameWords = new Set(values.filter((v) => v.type === 'name').flatMap((v) => String(v.value).split(/\s+/)));
  for (const v of values) {
    const kind = v.type === 'number' ? 'count' : v.type;
    const skip = new Set([...(v.unit ? [v.unit] : []), ...(v.type === 'name' ? nameWords : [])]);
    const members = lists.get(v) ?? [v];
    const frame = mergeFrames(members.map((m) => valueFrame(fact, m.start, m.end, kind, others(m.start, m.end), skip)));
    const anchors = frame.anchors.filter((a) => a !== v.unit);
    entities.push({
      slot: `${anchors.join('_') || v.type}`,
      type: v.type,
      value: v.type === 'boolean' ? v.value === 'true' : v.value,
      ...(v.unit ? { unit: v.unit } : {}),
      ...(v.normalized !== undefined ? { normalized: v.normalized } : {}),
      ...(v.previous ? { previous: true } : {}),
      ...(v.gone ? { gone: true } : {}),
      subject: scopeSubject,
      implicitSubject: true,
      attribute: anchors,
      label: labelOf(fact, v.start, v.end),
      frame: frameKeys({ ...frame, anchors }),
    });
  }
  for (const cue of ['change', 'tentative', 'correction'] as const) if (fact.cues[cue]) entities.push({ slot: 'cue', type: 'cue', value: cue });
  entities.push({ slot: 'concepts', type: 'concepts', value: true, frame: conceptsOf(fact) });
  for (const statement of statementsOf(fact)) {
    entities.push({
      slot: 'statement',
      type: 'statement',
      value: statement.positive,
      frame: [...statement.anchors, ...statement.aliases.map((a) => `${a}=`)],
      target: statement.target,
      ...(statement.subject.length ? { about: statement.subject } : {}),
      ...(statement.names.length ? { names: statement.names } : {}),
      ...(statement.verb ? { verb: statement.verb } : {}),
      ...(statement.head ? { head: statement.head } : {}),
    });
  }
  const deletion = deletionOf(fact);
  if (deletion) {
    entities.push({
      slot: 'deletion',
      type: 'deletion',
      value: true,
      target: deletion.target,
      ...(deletion.names?.length ? { about: deletion.names } : {}),
      ...(deletion.old ? { ends: true } : {}),
    });
  }
  for (const dependency of dependenciesOf(fact)) {
    entities.push({ slot: 'dependency', type: 'dependency', value: dependency.target.join(' '), target: dependency.target, ...(dependency.until ? { ends: true } : {}) });
  }
}

/** Open values of one type listed together in a clause, each mapped to its whole list. */
function listsOf(fact: FactReading, values: readonly OpenValue[]): Map<OpenValue, OpenValue[]> {
  const lists = new Map<OpenValue, OpenValue[]>();
  const sorted = [...values].sort((a, b) => a.start - b.start);
  let run: OpenValue[] = [];
  const close = () => {
    if (run.length > 1) for (const v of run) lists.set(v, run);
    run = [];
  };
  for (const v of sorted) {
    const last = run.at(-1);
    const between = last ? fact.reading.text.slice(last.end, v.start) : '';
    if (last && last.type === v.type && !v.previous && /^(?:\s*(?:,|\/|&|\+|\band\b|\bor\b|\bplus\b|\bas well as\b)\s*)+$/i.test(between)) run.push(v);
    else {
      close();
      run = [v];
    }
  }
  close();
  return lists;
}

const mergeFrames = (frames: Frame[]): Frame => ({
  ...(frames[0]?.head ? { head: frames[0].head } : {}),
  anchors: [...new Set(frames.flatMap((f) => f.anchors))].sort(),
  aliases: [...new Set(frames.flatMap((f) => f.aliases ?? []))].sort(),
  modifiers: [...new Set(frames.flatMap((f) => f.modifiers))].sort(),
  names: [...new Set(frames.flatMap((f) => f.names))].sort(),
  qualifiers: [...new Set(frames.flatMap((f) => f.qualifiers))].sort(),
});

/** How an open value's attribute reads in a question: the nouns of its clause before it ("security lead", "weekly word count target"). */
function labelOf(fact: FactReading, start: number, end: number): string {
  const clause = fact.reading.clauses.find((c) => start >= c.start && start <= c.end);
  if (!clause) return '';
  const nouns = clause.words.filter((w) => (w.end <= start || w.start >= end) && (w.pos === 'NOUN' || (w.pos === 'ADJ' && !w.stop)) && !/^\d/.test(w.text));
  return nouns.slice(0, 4).map((w) => w.lower).join(' ');
}

const NEGATION = /\b(?:not|never|no longer)\b|n't\b/i;
/** Words a statement and its negation differ by, or that say nothing about what is stated. */
const STATEMENT_NOISE = new Set([
  'not', 'never', 'no', 'longer', 'do', 'does', 'did', 'doesn', 'don', 'didn', 'isn', 'aren', 'wasn', 'weren', 'won',
  'can', 'cannot', 'will', 't', 'the', 'a', 'an', 'our', 'we', 'its', 'their', 'this', 'that', 'any', 'anymore',
  'also', 'still', 'currently', 'now', 'actually', 'always', 'really', 'all', 'is', 'are', 'was', 'were', 'be', 'been',
]);
/** Statements this long or longer are too particular to meet another fact's wording. */
const MAX_STATEMENT_WORDS = 16;

/**
 * A clause as a statement: its words without negation and filler ("The mobile app does not use
 * certificate pinning" → "mobile app use certificate pinning"), a short key of them, and whether
 * the clause negates it. Clauses with values the other tiers read are left to them.
 */
function assertionOf(clause: string): { key: string; label: string; negated: boolean } | null {
  if (/\d/.test(clause)) return null;
  const words = (clause.toLowerCase().match(/[a-z][a-z0-9.-]*/g) ?? []).filter((w) => !STATEMENT_NOISE.has(w)).map(singular);
  if (words.length < 3 || words.length > MAX_STATEMENT_WORDS) return null;
  const negated = NEGATION.test(clause);
  const stated = words.join(' ');
  const label = clause
    .trim()
    .replace(/\b(?:does not|do not|did not|doesn't|don't|didn't)\s+(\w+)/gi, (_, verb: string) => `${verb}s`)
    .replace(/\s*\b(?:not|never|no longer)\b\s*/gi, ' ')
    .replace(/\s+/g, ' ');
  return { key: createHash('sha256').update(stated).digest('hex').slice(0, 16), label, negated };
}

/** Product names that are ordinary words too: they count only when capitalised or technical-looking. */
const AMBIGUOUS_NAMES = new Set([
  'go', 'bun', 'node', 'fly', 'render', 'express', 'spring', 'rails', 'pg', 'elk', 'r2', 'ses', 'ecs', 'bull', 'deno',
  'vector', 'lambda', 'nomad', 'envoy', 'vault', 'consul', 'spark', 'flask', 'sphinx', 'oracle', 'solr', 'unleash',
  'room', 'realm', 'flux', 'chef', 'puppet', 'recoil', 'snowflake', 'synapse', 'neon', 'aurora',
]);

/** Identity of a slot for display and exact comparison: the slot plus its qualifiers. */
export function slotKey(entity: Pick<FactEntity, 'slot' | 'qualifiers'>): string {
  return entity.qualifiers?.length ? `${entity.slot}@${entity.qualifiers.join('+')}` : entity.slot;
}

/** The comparable value of an entity: normalized number when there is one, else the value. */
export function comparableValue(entity: FactEntity): string | number | boolean {
  return entity.normalized ?? entity.value;
}

/** Subject and attribute of an entity (entities stored before EXTRACTOR_VERSION 2 derive them from the slot). */
export function slotParts(entity: FactEntity): { subject: string; implicit: boolean; attribute: string[] } {
  if (entity.subject !== undefined && entity.attribute !== undefined) {
    return { subject: entity.subject, implicit: entity.implicitSubject === true, attribute: entity.attribute };
  }
  const [subject = '', ...rest] = entity.slot.split('.');
  return { subject, implicit: false, attribute: rest.join('_').split('_').filter(Boolean).sort() };
}

/**
 * Keys under which a fact's claims can meet another fact's (stored in `facts.match_keys`, GIN
 * indexed): the kind of value with each attribute word (or `*` when the attribute says nothing
 * beyond the subject), once alone and once with the subject (`rate:max`, `rate:max@auth`). Two
 * claims about one slot always share a key; the subject's keys find a slot's own history even in
 * a workspace where the attribute is common.
 */
export function matchKeysOf(entities: readonly FactEntity[]): string[] {
  const keys = new Set<string>();
  for (const e of entities) {
    if (e.type === 'config_key' || e.type === 'cue' || e.type === 'concepts') continue;
    if (e.type === 'statement') {
      // Denials are found by what they deny, assertions by what they name (see probeKeysOf).
      const nouns = (e.value === false ? (e.target ?? []) : (e.frame ?? [])).filter(isNounConcept);
      for (const w of nouns.slice(0, MAX_STATEMENT_KEYS)) keys.add(`${e.value === false ? 'neg' : 'pos'}:${w}`);
      continue;
    }
    if (e.type === 'dependency') {
      for (const w of (e.target ?? []).filter(isNounConcept)) keys.add(`dep:${w}`);
      continue;
    }
    if (e.type === 'deletion') continue;
    const kind = valueKind(e.type);
    const { subject, attribute } = slotParts(e);
    const core = attribute.filter((w) => w !== subject);
    for (const w of core.length ? core : ['*']) {
      keys.add(`${kind}:${w}`);
      if (subject) keys.add(`${kind}:${w}@${subject}`);
    }
    for (const w of (e.frame ?? []).filter(isNounConcept)) keys.add(`${kind}~${w}`);
    if (IDENTITY_TYPES.has(e.type)) keys.add(identityKey(e));
  }
  return [...keys].sort();
}

/** Values that identify one thing (an address, a channel, a person, a product): facts naming one can be found by it. */
export const IDENTITY_TYPES = new Set(['email', 'url', 'channel', 'name', 'technology']);
/** The key under which facts naming this value are found. */
export const identityKey = (e: Pick<FactEntity, 'type' | 'value'>) => `val:${e.type}:${String(e.value).toLowerCase()}`;

/** Statement keys kept per clause: its first nouns are enough to meet the other side. */
const MAX_STATEMENT_KEYS = 8;
/** A frame entry that is an anchor noun (not a verb, modifier mark or qualifier). */
const isNounConcept = (w: string) => !w.startsWith('v:') && !w.startsWith('@') && !w.endsWith('^');

/**
 * Keys a fact looks facts up by in a detection run, beyond its own: an assertion looks for
 * denials of what it names, a denial and a deletion request for assertions of what they name, a
 * dependency for what changes the thing depended on, and every fact for facts that depend on
 * what it names.
 */
export function probeKeysOf(entities: readonly FactEntity[]): string[] {
  const keys = new Set<string>();
  for (const e of entities) {
    if (e.type === 'statement') {
      const nouns = (e.value === false ? (e.target ?? []) : (e.frame ?? [])).filter(isNounConcept);
      for (const w of nouns.slice(0, MAX_STATEMENT_KEYS)) {
        keys.add(`${e.value === false ? 'pos' : 'neg'}:${w}`);
        keys.add(`dep:${w}`);
      }
    } else if (e.type === 'deletion' || e.type === 'dependency') {
      for (const w of (e.target ?? []).filter(isNounConcept)) keys.add(`pos:${w}`);
    } else if (IDENTITY_TYPES.has(e.type)) {
      keys.add(identityKey(e));
    }
  }
  return [...keys].sort();
}

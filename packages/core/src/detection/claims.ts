/**
 * What a fact claims about one slot, and when two claims disagree or one settles another
 * (SPEC §6 settling rules).
 */
import type { DetectorFact, FactEntity } from '@engram/db';
import { canonicalWord, singular, slotParts, valueKind } from '../facts/entities.ts';
import { NO_WORDS } from '../facts/meaning.ts';
import { lookupTechnology, technologyDisplayName } from '../facts/vocabulary.ts';
import { perFact } from './per-fact.ts';

/** One fact's claim about one slot (subject + attribute + qualifiers). */
export interface SlotClaim {
  fact: DetectorFact;
  /** Within the fact, the claim's identity (kind, subject, attribute, qualifiers). */
  key: string;
  /** Display slot, e.g. `auth.rate_limit`. */
  slot: string;
  /** How the attribute reads ("rate limit", "max upload size"), when the text named one. */
  label: string;
  /** How the subject reads: the word in the text, or the scope's first segment. */
  subjectLabel: string;
  subject: string;
  /** The subject came from the scope, not the text. */
  implicit: boolean;
  attribute: readonly string[];
  qualifiers: string[];
  type: string;
  /** The kind of value compared (plain numbers and counts are one kind). */
  kind: string;
  /** Canonical values it asserts (numbers normalized to the unit family's base). */
  values: ReadonlySet<string>;
  /** How those values read in the fact ("1000 req/s", "Redis"). */
  display: string[];
  /** Values the fact names as replaced ("moved from Memcached to ..."). */
  previous: ReadonlySet<string>;
  /** The fact says the change is planned or underway: it neither settles nor contradicts. */
  tentative: boolean;
  /** Singular words of the fact's text (a subject named anywhere in it). */
  words: ReadonlySet<string>;
  /** What a count counts ("connection"), when it is one. */
  unitWord?: string;
  /** Concepts around the value (see meaning.ts): anchors, nouns among them that modify the next, names, statistic qualifiers. */
  frame: ReadonlySet<string>;
  /** Concepts that stand for anchors (a technology's category, a compound's initials): they meet anchors, but are never extra. */
  aliases: ReadonlySet<string>;
  names: ReadonlySet<string>;
  /** The clause of the value announces a change (or corrects the record). */
  announced: boolean;
  /** The noun the value's phrase is about ("deadline", "interview"), when the extractor found one. */
  head?: string;
  /** A running total ("has uploaded 30 documents"): a larger later one is progress, not a disagreement. */
  progress?: boolean;
  /** Every concept the fact's text names (its statements' anchors). */
  concepts: ReadonlySet<string>;
  modifiers: ReadonlySet<string>;
  statistics: ReadonlySet<string>;
}

/** Entity types that are not values of a slot (statements, cues, requests, dependencies are read by their own tiers). */
const NOT_SLOT_VALUES = new Set(['config_key', 'cue', 'statement', 'deletion', 'dependency', 'concepts']);

/**
 * The fact's cues as the extractor stored them (and, for facts stored before cues existed, its
 * text), read once per fact (the tiers ask for them pair by pair).
 */
export const cuesOfFact = perFact((fact): { change: boolean; tentative: boolean; correction: boolean } => {
  const cues = new Set(fact.entities.filter((e) => e.type === 'cue').map((e) => String(e.value)));
  return {
    change: cues.has('change') || announcesChange(fact.content),
    tentative: cues.has('tentative') || changeInProgress(fact.content),
    correction: cues.has('correction'),
  };
});

const NUMERIC_TYPES = new Set(['duration', 'size', 'rate', 'percentage', 'count', 'number', 'port']);

/** Is the value numeric-like (compared by magnitude, detected by Tier 2)? */
export const isNumericType = (type: string) => NUMERIC_TYPES.has(type);

const canonical = (e: FactEntity) => {
  if (e.type === 'money' && e.normalized !== undefined) return `${Math.round(e.normalized * 100) / 100} ${e.unit ?? ''}`;
  if (e.normalized !== undefined) return String(Math.round(e.normalized * 1e6) / 1e6);
  if (typeof e.value === 'number') return String(Math.round(e.value * 1e6) / 1e6);
  return String(e.value).toLowerCase();
};

const UNIT_NAMES: Record<string, [string, string]> = {
  s: ['second', 'seconds'], min: ['minute', 'minutes'], h: ['hour', 'hours'], d: ['day', 'days'], w: ['week', 'weeks'],
  mo: ['month', 'months'], y: ['year', 'years'],
};

/** How a value reads in a question: "Redis", "30 seconds", "512 MiB", "Postgres 17", "20%". */
export function displayOf(e: FactEntity): string {
  switch (e.type) {
    case 'technology':
      return technologyDisplayName(String(e.value));
    case 'usage':
    case 'boolean':
    case 'assertion':
      return e.value ? 'yes' : 'no';
    case 'version': {
      const tech = e.attribute?.length === 1 && lookupTechnology(e.attribute[0]!) ? e.attribute[0]! : undefined;
      return tech ? `${technologyDisplayName(tech)} ${e.value}` : String(e.value);
    }
    case 'percentage':
      return `${e.value}%`;
    case 'header':
      return String(e.value).replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => `${dash}${c.toUpperCase()}`);
    case 'money': {
      const symbol = ({ usd: '$', eur: '€', gbp: '£', jpy: '¥', inr: '₹' } as Record<string, string>)[e.unit ?? ''];
      const amount = Number(e.value).toLocaleString('en-US', { maximumFractionDigits: 2 });
      return symbol ? `${symbol}${amount}` : `${amount} ${(e.unit ?? '').toUpperCase()}`.trim();
    }
    case 'date': {
      const value = String(e.value);
      const [, year, month, day] = /^(\d{4}|-)-?(\d{2})-(\d{2})$/.exec(value) ?? [];
      if (!month || !day) return value;
      const name = new Date(Date.UTC(2000, Number(month) - 1, Number(day))).toLocaleString('en-US', { month: 'long', day: 'numeric', timeZone: 'UTC' });
      return year && year !== '-' ? `${name}, ${year}` : name;
    }
    case 'name':
      return String(e.value).replace(/\b\p{Ll}/gu, (c) => c.toUpperCase());
    default: {
      if (!e.unit) return String(e.value);
      const named = UNIT_NAMES[e.unit];
      if (named) return `${e.value} ${Number(e.value) === 1 ? named[0] : named[1]}`;
      if (e.type === 'count') return `${e.value} ${e.unit}${Number(e.value) === 1 ? '' : 's'}`;
      return `${e.value} ${e.unit}`;
    }
  }
}

const textWords = (content: string) => new Set((content.toLowerCase().match(/[a-z0-9][a-z0-9-]*/g) ?? []).map(singular));

/**
 * claimsOf, computed once per fact object: a run or a story meets the same facts many times. Keyed
 * by the object, since a claim keeps a reference to its fact (whose window a run may close).
 */
export function cachedClaims(): (fact: DetectorFact) => SlotClaim[] {
  const cache = new Map<DetectorFact, SlotClaim[]>();
  return (fact) => {
    let found = cache.get(fact);
    if (!found) cache.set(fact, (found = claimsOf(fact)));
    return found;
  };
}

/** The claims a fact makes, one per slot. */
export function claimsOf(fact: DetectorFact): SlotClaim[] {
  const byKey = new Map<string, SlotClaim>();
  // Facts read before clause cues existed have no frames: their whole text decides.
  const tentative = !fact.entities.some((e) => e.frame !== undefined) && cuesOfFact(fact).tentative;
  // A request to forget something states nothing itself.
  if (fact.entities.some((e) => e.type === 'deletion')) return [];
  let words: ReadonlySet<string> | undefined;
  const concepts = new Set(
    fact.entities.filter((e) => e.type === 'statement' || e.type === 'concepts').flatMap((e) => (e.frame ?? []).map((f) => f.replace(/^v:|=$/g, ''))),
  );
  for (const e of fact.entities) {
    if (NOT_SLOT_VALUES.has(e.type)) continue;
    const { subject, implicit, attribute } = slotParts(e);
    const kind = valueKind(e.type);
    const qualifiers = [...(e.qualifiers ?? [])].sort();
    const key = JSON.stringify([kind, subject, attribute, qualifiers]);
    let claim = byKey.get(key);
    if (!claim) {
      words ??= textWords(fact.content);
      claim = {
        fact,
        key,
        slot: e.slot,
        label: e.label ?? '',
        subjectLabel: implicit ? (fact.scope.split('/')[0] ?? subject) : subject,
        subject,
        implicit,
        attribute,
        qualifiers,
        type: e.type,
        kind,
        values: new Set(),
        display: [],
        previous: new Set(),
        tentative,
        words,
        ...(e.type === 'count' && e.unit ? { unitWord: canonicalWord(e.unit, 'count') ?? e.unit } : {}),
        frame: new Set(),
        aliases: new Set(),
        names: new Set(),
        concepts,
        modifiers: new Set(),
        statistics: new Set(),
        announced: false,
      };
      byKey.set(key, claim);
    }
    for (const f of e.frame ?? []) {
      if (f === '@tentative') claim.tentative = true;
      else if (f === '@change' || f === '@correction') claim.announced = true;
      else if (f === '@progress') claim.progress = true;
      else if (f.startsWith('@')) (claim.statistics as Set<string>).add(f.slice(1));
      else if (f.endsWith('^')) (claim.modifiers as Set<string>).add(f.slice(0, -1));
      else if (f.endsWith('*')) (claim.names as Set<string>).add(f.slice(0, -1));
      else if (f.endsWith('=')) (claim.aliases as Set<string>).add(f.slice(0, -1));
      else if (f.endsWith('!')) claim.head = f.slice(0, -1);
      else (claim.frame as Set<string>).add(f);
    }
    // What a count counts is part of what it is about ("3 dashboards" meets "the dashboard cap").
    if (claim.unitWord && claim.frame.size > 0) (claim.frame as Set<string>).add(claim.unitWord);
    if (e.previous) {
      (claim.previous as Set<string>).add(canonical(e));
      continue;
    }
    if (e.negated && e.type === 'technology') continue; // "does not use X" is a usage claim, not a value
    const value = canonical(e);
    if (!claim.values.has(value)) {
      (claim.values as Set<string>).add(value);
      claim.display.push(displayOf(e));
    }
  }
  const claims = [...byKey.values()];
  // Most of a claim's sets stay empty: they are the one shared empty set (see NO_WORDS).
  const shared = (set: ReadonlySet<string>) => (set.size === 0 ? NO_WORDS : set);
  for (const c of claims) {
    c.values = shared(c.values);
    c.previous = shared(c.previous);
    c.frame = shared(c.frame);
    c.aliases = shared(c.aliases);
    c.names = shared(c.names);
    c.modifiers = shared(c.modifiers);
    c.statistics = shared(c.statistics);
  }
  return claims;
}

/** A name as code writes it: words joined by hyphens, underscores or dots, not part of a path or a longer name. */
const NAME_TOKEN = /(?<![\w.-])([a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+)(?![\w-]|\.\w)/gi;
/** A name a fact opens with reads as a component's (`billing-api`, `risk_velocity_daily`, `pg-discovery-02`). */
const LEADING_NAME = /^\s*(?:the\s+)?`?([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)`?(?=[\s:'’,]|$)/i;
const FUNCTION_WORDS = new Set(['a', 'an', 'the', 'to', 'of', 'as', 'and', 'or', 'in', 'on', 'by', 'for', 'at', 'per', 'up', 'out', 'off']);
/** The last word of a component's name says what it is: an English compound ("invite-only", "server-rendered") never ends so. */
const COMPONENT_ROLE =
  /[-_](?:api|apis|service|svc|worker|proxy|gateway|indexer|publisher|consumer|producer|scheduler|janitor|loader|exporter|importer|poller|portal|site|app|ui|db|cache|cli|sdk|bot|job|cron|queue|topic|bucket|cluster|server|daemon|runner|router|engine|store|sync|daily|hourly|weekly|monthly|events|stream|table|index|lambda|function|pipeline|dag)$/i;

/** A fact's components, their words and its lower-cased text, read once per fact object (a run compares each fact with many). */
interface Named {
  /** Its components (see readComponents), and their words of three letters or more. */
  names: string[];
  words: string[];
  /** The name it opens with, whatever its words (see leadsApart). */
  lead: string | null;
  text: string;
}
const namedIn = perFact((fact): Named => {
  const text = fact.content.toLowerCase();
  const names = readComponents(fact, text);
  const words = [...new Set(names.flatMap((n) => n.split(/[-_.]/)).filter((w) => w.length >= 3))];
  return { names, words, lead: LEADING_NAME.exec(fact.content)?.[1]?.toLowerCase() ?? null, text };
});

/**
 * The components a fact names: names with a digit or an underscore (`pg-billing-02`,
 * `billing_invoice_daily`), ending in what a component is (`-api`, `-worker`), led by a
 * technology (`mongo-identity`) or of three words (`tidewell-catalog-exports`). Settings
 * (`LEDGER_TIMEOUT_MS`, `retry_delay=15m`) are not components, and a name the fact states as a
 * value ("the model is gpt-4o-mini") is what it claims, not what it is about.
 */
function readComponents(fact: DetectorFact, lower: string): string[] {
  const values = fact.entities.map((e) => String(e.value).toLowerCase());
  const names = new Set<string>();
  for (const match of fact.content.matchAll(NAME_TOKEN)) {
    const token = match[1]!;
    if (token === token.toUpperCase()) continue;
    const name = token.toLowerCase();
    const parts = name.split(/[-_.]/);
    // A setting (`retry_delay=15m`, `LEDGER_TIMEOUT_MS`) is what a value is, not what it belongs to.
    const setting = /^\s*=/.test(fact.content.slice(match.index + match[0].length));
    const named =
      (/[_\d]/.test(name) && !setting) ||
      COMPONENT_ROLE.test(name) ||
      // What does the work (`ledger-reconciler`, `fraud-scorer`).
      (parts.length >= 2 && /^[a-z]{4,}(?:er|or)$/.test(parts.at(-1)!) && !FUNCTION_WORDS.has(parts[0]!)) ||
      // A technology's cluster or a topic (`mongo-identity`, `returns.events.v1`), or three words and no function word (`tidewell-catalog-exports`).
      lookupTechnology(parts[0]!) !== undefined ||
      (parts.length >= 3 && !parts.some((p) => FUNCTION_WORDS.has(p)));
    if (!named) continue;
    if (values.some((v) => v.includes(name) || (v.length > 2 && name.includes(v)))) continue;
    names.add(name);
  }
  // A team or product its scope names, written as a proper name in the text ("Sprints on Identity are 2 weeks long" in team/identity).
  const leaf = fact.scope.includes('/') ? fact.scope.slice(fact.scope.lastIndexOf('/') + 1) : '';
  if (leaf.length >= 3 && /^[a-z]+$/.test(leaf)) {
    const isLetter = (i: number) => /[a-z]/i.test(fact.content[i] ?? '');
    for (let at = lower.indexOf(leaf); at >= 0; at = lower.indexOf(leaf, at + 1)) {
      const word = fact.content.slice(at, at + leaf.length);
      if (word !== leaf && !isLetter(at - 1) && !isLetter(at + leaf.length)) {
        names.add(leaf);
        break;
      }
    }
  }
  return [...names];
}

/**
 * Are two claims about the same subject? The same subject word; or one claim's subject came from
 * its scope and its text names the other's subject ("Billing invoices are kept ..." in scope
 * compliance is about billing).
 */
export function sameSubject(a: SlotClaim, b: SlotClaim): boolean {
  return a.subject === b.subject || (b.implicit && b.words.has(a.subject)) || (a.implicit && a.words.has(b.subject));
}

/**
 * Are two claims about one slot? Same kind of value and qualifiers, compatible subjects, and the
 * same attribute once either subject's word is set aside ("uploads capped at" in scope uploads is
 * the same `max` as "max upload size").
 */
export function sameSlot(a: SlotClaim, b: SlotClaim): boolean {
  // A subject taken from the scope is only where the facts sit: when each names a thing the other
  // never mentions and they share none ("pg-discovery-02 runs Postgres 15.6" / "the primary was
  // upgraded to Postgres 16", both under infra), they are about two things.
  if (a.implicit && b.implicit && namesApart(a, b)) return false;
  // Two named subjects, neither fact mentioning the other's ("Memory limit for ledger-worker ..." / "... for tax-proxy ..."), are two things.
  if (!a.implicit && !b.implicit && a.subject !== b.subject && !a.words.has(b.subject) && !b.words.has(a.subject)) return false;
  // Names last: most pairs a run meets are not one slot by their words already.
  return (sameSlotByWords(a, b) || alignedByMeaning(a, b)) && (a.fact === b.fact || !(leadsApart(a.fact, b.fact) || componentsApart(a.fact, b.fact)));
}


/**
 * Facts that open by naming different components ("spellcheck-worker is owned by Discovery; Vinh is the primary
 * contact" / "preview-env-api is owned by ...; Esteban is ..."), neither naming the other's, are about two things.
 */
function leadsApart(a: DetectorFact, b: DetectorFact): boolean {
  const x = namedIn(a);
  const y = namedIn(b);
  return x.lead !== null && y.lead !== null && x.lead !== y.lead && !y.text.includes(x.lead) && !x.text.includes(y.lead);
}

/**
 * Each fact names a component the other never mentions ("Memory limit for ledger-worker is 1Gi" /
 * "... for tax-proxy is 768Mi", "retries=5 on billing_invoice_daily" / "... on
 * security_key_rotation_daily", "shipment-sync calls shipment-api over REST" / "shipment-api →
 * customs-gateway is a gRPC call"): they are about different components, or different pairs of
 * them, wherever the names stand.
 */
export function componentsApart(a: DetectorFact, b: DetectorFact): boolean {
  const x = namedIn(a);
  const y = namedIn(b);
  return x.names.some((n) => !y.text.includes(n)) && y.names.some((n) => !x.text.includes(n));
}

/** Is a frame word (a stem) a word of a component the claim's fact names, or its subject? */
const namesComponent = (c: SlotClaim, w: string) =>
  w === c.subject || namedIn(c.fact).words.some((part) => part.startsWith(w) || w.startsWith(part));

/** What a count counts must agree ("6 engineers" and "6 servers" are not one slot); a bare number counts anything. */
const unitsMeet = (a: SlotClaim, b: SlotClaim) => a.unitWord === undefined || b.unitWord === undefined || a.unitWord === b.unitWord;

/**
 * Are two claims about one thing by meaning? The same kind of value, qualifiers that meet, and
 * frames that share an anchor where only one side names more — and what it names more is not a
 * word that narrows the thing ("session" in "session timeout", "audit" in "audit logs"), only
 * context ("in Datadog", "on average"). When both name something the other does not ("auth
 * rate limit" / "payments rate limit"), they are different things.
 */
export function alignedByMeaning(a: SlotClaim, b: SlotClaim): boolean {
  if (a.kind !== b.kind || !ALIGNED_KINDS.has(a.kind) || !qualifiersMeet(a, b) || !unitsMeet(a, b)) return false;
  if (a.frame.size === 0 || b.frame.size === 0) return false;
  if (a.statistics.size > 0 && b.statistics.size > 0 && !someIn(a.statistics, b.statistics)) return false;
  // How much something changed ("cut by 45%") is never what it is ("90% accuracy").
  if (a.statistics.has('delta') !== b.statistics.has('delta')) return false;
  // Subjects taken from different scopes ("auth", "search") are different things unless a frame names the other.
  if (a.implicit && b.implicit && a.subject !== b.subject && !a.frame.has(b.subject) && !b.frame.has(a.subject)) return false;
  let shared = 0;
  let about = 0;
  for (const w of a.frame) {
    if (!b.frame.has(w) && !b.aliases.has(w)) continue;
    shared++;
    if (!namesComponent(a, w) && !namesComponent(b, w)) about++;
  }
  for (const w of a.aliases) {
    if (b.frame.has(w) && !a.frame.has(w)) {
      shared++;
      about++;
    }
  }
  // Sharing only the name of what both belong to ("credit" of credit-note-api) is not sharing what is measured.
  if (about === 0) return false;
  if (opposed(a, b) || opposed(b, a)) return false;
  // A word one side names that the other's text names elsewhere (or stands for), or that is its scope, is not extra.
  const extra = (x: SlotClaim, y: SlotClaim) =>
    [...x.frame].filter((w) => !y.frame.has(w) && !y.aliases.has(w) && !(y.implicit && w === y.subject) && !y.concepts.has(w));
  const onlyA = extra(a, b);
  const onlyB = extra(b, a);
  // Different heads: a deadline is not an interview, whatever else the two phrases share.
  const knows = (c: SlotClaim, w: string) => c.frame.has(w) || c.aliases.has(w) || c.unitWord === w;
  if (a.head && b.head && a.head !== b.head && !knows(b, a.head) && !knows(a, b.head)) return false;
  // A noun that narrows what the other side names ("session timeout" vs "timeout", "audit logs" vs "logs").
  if (onlyA.some((w) => a.modifiers.has(w)) || onlyB.some((w) => b.modifiers.has(w))) return false;
  // Each side names someone or something the other does not ("Crystal's target" / "Amy's target").
  if (onlyA.some((w) => a.names.has(w)) && onlyB.some((w) => b.names.has(w))) return false;
  // One side names nothing the other's text does not, and at least two things it does: the terser
  // restates the fuller ("Crystal now has a new April 25 deadline" / "Crystal's draft is due to the
  // writing group on April 20").
  const contained = (x: SlotClaim, onlyX: string[]) => onlyX.length === 0 && x.frame.size >= 2;
  if (contained(a, onlyA) || contained(b, onlyB)) return true;
  const jaccard = shared / (shared + onlyA.length + onlyB.length);
  return shared >= 2 ? jaccard >= MIN_ALIGNMENT : jaccard >= 0.5;
}

/**
 * Kinds of value compared by meaning. Technologies, usage and whole statements have their own
 * (category and statement) slots; versions, ports and headers are named by what they belong to.
 */
const ALIGNED_KINDS = new Set(['duration', 'size', 'rate', 'percentage', 'count', 'money', 'date', 'name', 'channel', 'url', 'email', 'boolean', 'region']);

/** Attribute words that name opposite ends of one thing: a minimum is not a maximum. */
const OPPOSITES: Record<string, string> = {
  min: 'max', max: 'min', read: 'write', write: 'read', inbound: 'outbound', outbound: 'inbound', input: 'output', output: 'input',
  upload: 'download', download: 'upload', request: 'respons', respons: 'request', ingress: 'egress', egress: 'ingress', soft: 'hard',
  hard: 'soft', lower: 'upper', upper: 'lower', start: 'end', end: 'start', first: 'last', last: 'first', sender: 'receiv', receiv: 'sender',
  min_bound: 'max_bound', max_bound: 'min_bound',
};
const claimWords = new WeakMap<SlotClaim, ReadonlySet<string>>();
/** A claim's frame, attribute and bound words (built once per claim: a run compares each claim with many). */
function wordsOf(c: SlotClaim): ReadonlySet<string> {
  let words = claimWords.get(c);
  if (!words) claimWords.set(c, (words = new Set([...c.frame, ...c.attribute, ...[...c.statistics].map((q) => `${q}_bound`)])));
  return words;
}
/** Does `a` name one end of something where `b` names the other ("at least 2 pods" / "capped at 10 pods")? */
function opposed(a: SlotClaim, b: SlotClaim): boolean {
  const theirs = wordsOf(b);
  for (const w of wordsOf(a)) {
    const other = OPPOSITES[w];
    if (other && theirs.has(other) && !theirs.has(w)) return true;
  }
  return false;
}

/** Does `b` hold any of `a`'s words? */
function someIn(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const w of a) if (b.has(w)) return true;
  return false;
}

/** Shared share of two frames' anchors for two claims with two or more anchors in common to be one. */
const MIN_ALIGNMENT = 0.34;

function sameSlotByWords(a: SlotClaim, b: SlotClaim): boolean {
  if (a.kind !== b.kind || !qualifiersMeet(a, b)) return false;
  const subjects = sameSubject(a, b);
  // Two facts that name no subject but the same specific attribute ("password reset link
  // expiry") are about one thing, whichever scope they sit in.
  if (!subjects && !(a.implicit && b.implicit && a.attribute.length >= SPECIFIC_ATTRIBUTE)) return false;
  // The same attribute once both subjects are set aside: as many words on each side, each of
  // one side's on the other's (counted in place: this is asked of most pairs a run meets).
  const left = coreWords(a, b, a, b);
  if (left !== coreWords(b, a, a, b)) return false;
  for (const w of a.attribute) if (inCore(a, b, w, a, b) && !(b.attribute.includes(w) && inCore(b, a, w, a, b))) return false;
  // A measure with no attribute on either side (a technology's is its category): the frames say what is measured,
  // and the name of what both belong to is not that ("Client timeout from subscription-exporter to payout-api" / "Idempotency keys in payout-api are stored for 48h").
  if (left > 0 || !ALIGNED_KINDS.has(a.kind) || (a.frame.size === 0 && b.frame.size === 0)) return true;
  for (const w of a.frame) if (b.frame.has(w) && !namesComponent(a, w) && !namesComponent(b, w)) return true;
  return false;
}

/**
 * Is `w`, a word of `c`'s attribute, part of its core against `other`: not the subject of either
 * claim of the pair, nor the unit a count names that a plain number ("pool max is 25") leaves out
 * ("10 connections") unless the other side names it too.
 */
function inCore(c: SlotClaim, other: SlotClaim, w: string, a: SlotClaim, b: SlotClaim): boolean {
  const unit = c.type === 'count' && other.type === 'number' ? c.unitWord : undefined;
  return w !== a.subject && w !== b.subject && (w !== unit || other.attribute.includes(w));
}

/** How many words of `c`'s attribute are in its core against `other` (see inCore). */
function coreWords(c: SlotClaim, other: SlotClaim, a: SlotClaim, b: SlotClaim): number {
  let n = 0;
  for (const w of c.attribute) if (inCore(c, other, w, a, b)) n++;
  return n;
}

/**
 * Each claim names a thing of its own (a frame word beyond its attribute) that the other's text
 * never mentions, and they name no such thing in common.
 */
function namesApart(a: SlotClaim, b: SlotClaim): boolean {
  const ownA = ownWordsOf(a);
  const ownB = ownWordsOf(b);
  if (ownA.length === 0 || ownB.length === 0) return false;
  return !ownA.some((w) => mentions(b, w)) && !ownB.some((w) => mentions(a, w));
}

const ownWords = new WeakMap<SlotClaim, readonly string[]>();
/** A claim's frame words beyond its attribute (built once per claim: a run compares each claim with many). */
function ownWordsOf(c: SlotClaim): readonly string[] {
  let own = ownWords.get(c);
  if (!own) ownWords.set(c, (own = [...c.frame].filter((w) => !c.attribute.some((x) => x === w || x.startsWith(w) || w.startsWith(x)))));
  return own;
}

/** Frames hold stems ("notifi"), texts words ("notifier"): a word the stem begins is a mention. */
function mentions(c: SlotClaim, w: string): boolean {
  if (c.frame.has(w)) return true;
  for (const x of c.words) if (x.startsWith(w)) return true;
  return false;
}

/** Attribute words that make a slot specific enough to meet across scopes without a named subject. */
const SPECIFIC_ATTRIBUTE = 3;

/**
 * Qualifiers meet when they are the same, or when one claim has none (a statement without an
 * environment is about every environment): "prod" and "staging" never meet.
 */
export const qualifiersMeet = (a: SlotClaim, b: SlotClaim) =>
  a.qualifiers.length === 0 || b.qualifiers.length === 0 || a.qualifiers.join() === b.qualifiers.join();

/**
 * Two claims disagree when neither asserts a value the other does. A tentative claim (a change
 * planned or underway) states no current value, so it disagrees with nothing.
 */
export function disagree(a: SlotClaim, b: SlotClaim): boolean {
  // A plan never disagrees with what is; two plans for one thing can (a goal of 10 books, then of 12).
  if (a.tentative !== b.tentative || a.values.size === 0 || b.values.size === 0 || !qualifiersMeet(a, b)) return false;
  for (const v of a.values) if (b.values.has(v) || (a.kind === 'date' && [...b.values].some((w) => sameDay(v, w)))) return false;
  return !withinBound(a, b) && !withinBound(b, a);
}

const boundOf = (c: SlotClaim) => (c.statistics.has('min') ? 'min' : c.statistics.has('max') ? 'max' : null);

/**
 * A bound and a value inside it agree: "at least 80% accuracy" and "90% accuracy" are both true at
 * once. A limit that is the thing itself ("the rate limit is 2k/min", whose frame names `max`) is
 * a value like any other.
 */
function withinBound(bound: SlotClaim, value: SlotClaim): boolean {
  const end = boundOf(bound);
  if (!end || bound.frame.has(end) || boundOf(value) || !isNumericType(bound.type) || !isNumericType(value.type)) return false;
  const limits = [...bound.values].map(Number);
  return [...value.values].every((v) => limits.every((l) => (end === 'min' ? Number(v) >= l : Number(v) <= l)));
}

/**
 * Does `newer` make the plan `older` history? A goal or plan ("aiming for 10 books") that a later,
 * done change of the same slot replaces with another value ("extended the goal to 12 books"):
 * the plan no longer says what anyone intends. Without a change cue, a plan and a fact never meet.
 */
export function supersedesPlan(older: SlotClaim, newer: SlotClaim): boolean {
  if (!older.tentative || newer.tentative || older.values.size === 0 || newer.values.size === 0 || !qualifiersMeet(older, newer)) return false;
  if (!newer.announced && !cuesOfFact(newer.fact).change) return false;
  for (const v of older.values) if (newer.values.has(v)) return false;
  return true;
}

/** Dates agree when equal, or when one has no year and the month and day match. */
const sameDay = (a: string, b: string) => (a.startsWith('--') || b.startsWith('--')) && a.slice(-6) === b.slice(-6);

// Language that says a fact replaces an earlier state (SPEC §6: "switched to", "migrated",
// "upgraded", "now", "no longer", "replaced", "actually", "from X to Y"), or a hand-over ("took
// over", "passed to", "handed off to").
const CHANGE_LANGUAGE =
  /\b(?:switch(?:ed|ing)?|migrat(?:ed|ing|ion)|mov(?:ed|ing)|upgrad(?:ed|ing)|downgrad(?:ed|ing)|replac(?:ed|ing)|no longer|now|actually|instead|changed|in favou?r of|superseded|corrected|correction|turns? out|revert(?:ed)?|rolled back|went back|back to|took over|taken over|tak(?:es|ing) over|hand(?:ed|s|ing)? (?:it |them )?(?:over|off) to|passed (?:over )?to|transferred to|(?:raised|lowered|increased|decreased|bumped|reduced|dropped|cut|doubled|halved)\b(?:\s+\S+){0,4}?\s+(?:to|from)|from\s+\S+(?:\s+\S+){0,3}\s+to)\b/i;

// Language that says the change is not done yet: such a fact cannot settle anything.
const IN_PROGRESS =
  /\b(?:start(?:ed|ing)?|in progress|underway|under way|plan|planned|planning|plans to|plan to|will|going to|partial(?:ly)?|begun|beginning|about to|propos(?:ed|al)|considering|might|may|eventually|next (?:week|sprint|quarter|month)|wip|not yet|yet to|nothing has|scheduled|upcoming|soon|q[1-4])\b/i;

// Language that says someone means to move a value one way: "wants to reduce it", "aims to cut
// build time", "hoping to raise the limit". A later value moved that way is the change made.
const INTENT_TO_MOVE =
  /\b(?:wants?|wanted|wanting|aims?|aiming|hopes?|hoping|plans?|planning|intends?|intending|trying|tries|looking|would like|needs?|goal is)\s+to\s+(?:\S+\s+){0,2}?(reduce|lower|cut|decrease|shrink|drop|minimi[sz]e|bring (?:it |them )?down|increase|raise|grow|boost|maximi[sz]e|bring (?:it |them )?up)\b/i;
const DOWNWARD = /^(?:reduce|lower|cut|decrease|shrink|drop|minimi[sz]e|bring .*down)$/i;

/** Which way a fact says someone means to move a value ("wants to reduce it": down), if any. */
export function intendedMove(content: string): 'down' | 'up' | null {
  const verb = INTENT_TO_MOVE.exec(content)?.[1];
  if (!verb) return null;
  return DOWNWARD.test(verb) ? 'down' : 'up';
}

/** intendedMove of a fact's text, read once per fact (settling asks it of every pair a fact is the older of). */
const intentOf = perFact((fact) => ({ move: intendedMove(fact.content) }));

/** The claims of a timeline that state a plan or a goal, found once per timeline (settling asks of every pair). */
const plansIn = new WeakMap<readonly SlotClaim[], readonly SlotClaim[]>();
function plansOf(timeline: readonly SlotClaim[]): readonly SlotClaim[] {
  let plans = plansIn.get(timeline);
  if (!plans) plansIn.set(timeline, (plans = timeline.filter((c) => c.tentative)));
  return plans;
}

/**
 * Whether `holds(later, earlier)` is true of every later value against every earlier one, each read
 * as a number by `read` (settling asks it of most numeric pairs; no arrays are made for it).
 */
function everyPair(later: ReadonlySet<string>, earlier: ReadonlySet<string>, holds: (later: number, earlier: number) => boolean, read: (text: string) => number = parseFloat): boolean {
  for (const v of later) {
    const to = read(v);
    for (const was of earlier) if (!holds(to, read(was))) return false;
  }
  return true;
}

/** Does this fact's text say it replaces an earlier state (and is that change done)? */
export function announcesChange(content: string): boolean {
  return CHANGE_LANGUAGE.test(content) && !IN_PROGRESS.test(content);
}

/** Does this fact say its change is still underway? */
export const changeInProgress = (content: string) => CHANGE_LANGUAGE.test(content) && IN_PROGRESS.test(content);

/** Same agent, this close together: one working session evolving its own notes. */
export const SESSION_WINDOW_MS = 30 * 60_000;

/**
 * Why `newer` settles `older` (the older fact becomes history, no conflict), or null:
 * the same lineage, the same agent within a session, or the newer fact announcing the change —
 * by change language, or by naming the older value as the one replaced.
 */
export function settles(older: SlotClaim, newer: SlotClaim, timeline: readonly SlotClaim[] = []): string | null {
  const o = older.fact;
  const n = newer.fact;
  if (n.committed_at.getTime() < o.committed_at.getTime()) return null;
  // A human restored the older fact after this very settlement: the pair is a conflict to settle.
  if (o.retired_by === 'restored' && o.retired_for_fact_id === n.id) return null;
  if (o.lineage_id === n.lineage_id) return 'same lineage';
  if (newer.tentative && !older.tentative) return null;
  if (supersedesPlan(older, newer)) return 'the later fact changes what was planned';
  if (o.agent_id === n.agent_id && n.committed_at.getTime() - o.committed_at.getTime() <= SESSION_WINDOW_MS) {
    return 'same agent within a working session';
  }
  for (const v of older.values) if (newer.previous.has(v)) return 'the later fact names this value as replaced';
  // A running total that grew ("uploaded 25 documents", later "has uploaded 30").
  if ((newer.progress || older.progress) && newer.kind === older.kind && isNumericType(newer.type)) {
    if (everyPair(newer.values, older.values, (v, was) => v > was, Number)) return 'the running total grew';
  }
  if (!newer.tentative && !older.tentative && newer.kind === older.kind && isNumericType(newer.type)) {
    // The earlier fact meant to move this number one way, and the later one has it moved that way.
    const intent = intentOf(o).move;
    if (intent && everyPair(newer.values, older.values, intent === 'down' ? (v, was) => v < was : (v, was) => v > was)) {
      return 'the earlier fact meant to change it, and the later one has it changed';
    }
    // A goal for this number was set before the later fact, and the later value is nearer to it
    // than the earlier one, on the way: progress reported, not a disagreement.
    for (const g of plansOf(timeline)) {
      if (g.kind !== newer.kind || g.fact.committed_at.getTime() > n.committed_at.getTime() || g.fact.id === o.id || g.fact.id === n.id) continue;
      for (const value of g.values) {
        const goal = parseFloat(value);
        if (everyPair(newer.values, older.values, (v, was) => (was < goal ? v > was && v <= goal : was > goal ? v < was && v >= goal : false))) {
          return 'the later value is progress toward a stated goal';
        }
      }
    }
  }
  const cues = cuesOfFact(n);
  if (cues.correction) return 'the later fact corrects the record';
  if (cues.change || newer.announced) return 'the later fact announces the change';
  return null;
}

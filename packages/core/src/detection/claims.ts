/**
 * What a fact claims about one slot, and when two claims disagree or one settles another
 * (SPEC §6 settling rules).
 */
import type { DetectorFact, FactEntity } from '@engram/db';
import { canonicalWord, singular, slotParts, valueKind } from '../facts/entities.ts';
import { lookupTechnology, technologyDisplayName } from '../facts/vocabulary.ts';

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
  values: Set<string>;
  /** How those values read in the fact ("1000 req/s", "Redis"). */
  display: string[];
  /** Values the fact names as replaced ("moved from Memcached to ..."). */
  previous: Set<string>;
  /** The fact says the change is planned or underway: it neither settles nor contradicts. */
  tentative: boolean;
  /** Singular words of the fact's text (a subject named anywhere in it). */
  words: ReadonlySet<string>;
  /** What a count counts ("connection"), when it is one. */
  unitWord?: string;
}

const NUMERIC_TYPES = new Set(['duration', 'size', 'rate', 'percentage', 'count', 'number', 'port']);

/** Is the value numeric-like (compared by magnitude, detected by Tier 2)? */
export const isNumericType = (type: string) => NUMERIC_TYPES.has(type);

const canonical = (e: FactEntity) => {
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

/** The claims a fact makes, one per slot. */
export function claimsOf(fact: DetectorFact): SlotClaim[] {
  const byKey = new Map<string, SlotClaim>();
  const tentative = changeInProgress(fact.content);
  let words: ReadonlySet<string> | undefined;
  for (const e of fact.entities) {
    if (e.type === 'config_key') continue;
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
      };
      byKey.set(key, claim);
    }
    if (e.previous) {
      claim.previous.add(canonical(e));
      continue;
    }
    if (e.negated && e.type === 'technology') continue; // "does not use X" is a usage claim, not a value
    const value = canonical(e);
    if (!claim.values.has(value)) {
      claim.values.add(value);
      claim.display.push(displayOf(e));
    }
  }
  return [...byKey.values()];
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
  if (a.kind !== b.kind || !qualifiersMeet(a, b)) return false;
  const subjects = sameSubject(a, b);
  // Two facts that name no subject but the same specific attribute ("password reset link
  // expiry") are about one thing, whichever scope they sit in.
  if (!subjects && !(a.implicit && b.implicit && a.attribute.length >= SPECIFIC_ATTRIBUTE)) return false;
  // A plain number ("pool max is 25") may leave out the unit a count names ("10 connections").
  const unitOf = (c: SlotClaim, other: SlotClaim) => (c.type === 'count' && other.type === 'number' ? c.unitWord : undefined);
  const core = (c: SlotClaim, other: SlotClaim) => {
    const unit = unitOf(c, other);
    return c.attribute.filter((w) => w !== a.subject && w !== b.subject && (w !== unit || other.attribute.includes(w)));
  };
  const left = core(a, b);
  const right = core(b, a);
  return left.length === right.length && left.every((w) => right.includes(w));
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
  if (a.tentative || b.tentative || a.values.size === 0 || b.values.size === 0 || !qualifiersMeet(a, b)) return false;
  for (const v of a.values) if (b.values.has(v)) return false;
  return true;
}

// Language that says a fact replaces an earlier state (SPEC §6: "switched to", "migrated",
// "upgraded", "now", "no longer", "replaced", "actually", "from X to Y").
const CHANGE_LANGUAGE =
  /\b(?:switch(?:ed|ing)?|migrat(?:ed|ing|ion)|mov(?:ed|ing)|upgrad(?:ed|ing)|downgrad(?:ed|ing)|replac(?:ed|ing)|no longer|now|actually|instead|changed|in favou?r of|superseded|corrected|correction|turns? out|revert(?:ed)?|rolled back|went back|back to|(?:raised|lowered|increased|decreased|bumped|reduced|dropped|cut|doubled|halved)\b(?:\s+\S+){0,4}?\s+(?:to|from)|from\s+\S+(?:\s+\S+){0,3}\s+to)\b/i;

// Language that says the change is not done yet: such a fact cannot settle anything.
const IN_PROGRESS =
  /\b(?:start(?:ed|ing)?|in progress|underway|under way|plan|planned|planning|plans to|plan to|will|going to|partial(?:ly)?|begun|beginning|about to|propos(?:ed|al)|considering|might|may|eventually|next (?:week|sprint|quarter|month)|wip|not yet|yet to|nothing has|scheduled|upcoming|soon|q[1-4])\b/i;

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
export function settles(older: SlotClaim, newer: SlotClaim): string | null {
  const o = older.fact;
  const n = newer.fact;
  if (n.committed_at.getTime() < o.committed_at.getTime()) return null;
  // A human restored the older fact after this very settlement: the pair is a conflict to settle.
  if (o.retired_by === 'restored' && o.retired_for_fact_id === n.id) return null;
  if (o.lineage_id === n.lineage_id) return 'same lineage';
  if (newer.tentative) return null;
  if (o.agent_id === n.agent_id && n.committed_at.getTime() - o.committed_at.getTime() <= SESSION_WINDOW_MS) {
    return 'same agent within a working session';
  }
  for (const v of older.values) if (newer.previous.has(v)) return 'the later fact names this value as replaced';
  if (announcesChange(n.content)) return 'the later fact announces the change';
  return null;
}

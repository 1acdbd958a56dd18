/**
 * The question each conflict carries: the choice that settles it, which a person can answer
 * without reading the facts, naming the thing in dispute and its values in the order the facts
 * are listed (oldest first), so answering it is picking the fact to keep ("Which is the timeout of
 * billing-api now: 30 s or 45 s?").
 */
import type { ConflictRecord } from '@engram/db';
import type { Claim } from '../language/align.ts';

const DATE = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
/** A fact's day as explanations name it ("Nov 22, 2026"), as people read dates on the dashboard. */
export const explanationDate = (date: Date) => DATE.format(date);

const MEASURE_LABELS: Record<string, string> = {
  ttl: 'expiry', retry: 'retry count', oncall: 'on-call', error_rate: 'error rate', payments_provider: 'payments provider',
  error_tracking: 'error tracker', message_broker: 'message broker', job_queue: 'job queue', api_style: 'API style',
  feature_flags: 'feature-flag service', email_provider: 'email provider', object_storage: 'object storage', ci: 'CI system',
  iac: 'infrastructure-as-code tool', orm: 'ORM', cdn: 'CDN',
};
const measureLabel = (c: Claim) =>
  c.measure ? (MEASURE_LABELS[c.measure] ?? c.measure.replace(/_/g, ' ')) : c.kind === 'count' ? `number of ${c.of ?? 'items'}` : c.kind === 'time' ? 'time' : c.kind === 'weekday' ? 'day' : '';

/** "the timeout of billing-api", "the owner of search indexer", "the version of node in prod". */
export function thingOf(c: Claim): string {
  const named = [...c.components, ...c.anchors.filter((a) => !c.components.includes(a))].slice(0, 3).join(' ') || c.fact.scope;
  const label = measureLabel(c);
  const qualifiers = [c.stat && c.stat !== 'p50' ? c.stat : '', c.extreme ? `${c.extreme}imum` : c.bound ? (c.bound === 'max' ? 'at most' : 'at least') : '', c.env ? `in ${c.env}` : ''].filter(Boolean);
  const what = c.kind === 'version' ? `the version of ${c.of ?? named}` : label ? `the ${label} of ${named}` : `${named}`;
  return [what, ...qualifiers].join(' ').replace(/ (minimum|maximum)/, ' ($1)');
}

const shown = (c: Claim) => c.display.join(' and ') || 'none';

/** What makes two claims state the same value: their canonical values ("30 s" is "30 seconds"), else their wording. */
export const valueKey = (c: Claim) => (c.values.length > 0 ? c.values.join('|') : shown(c));

/** The claims stating each value, grouped by value in the order each value was first stated. */
export function byValue(claims: readonly Claim[]): Claim[][] {
  const groups = new Map<string, Claim[]>();
  for (const c of claims) groups.set(valueKey(c), [...(groups.get(valueKey(c)) ?? []), c]);
  return [...groups.values()];
}

/** The question of a conflict over `involved` (oldest first, as the conflict lists its facts). */
export function valueQuestion(kind: ConflictRecord['kind'], involved: readonly Claim[], earlierSame?: Claim): string {
  const latest = involved.at(-1)!;
  const values = byValue(involved).map((same) => shown(same[0]!));
  const thing = thingOf(latest);
  switch (kind) {
    case 'reversal': {
      const moved = [...new Set(involved.filter((c) => c !== latest && shown(c) !== shown(latest)).map(shown))].join(' or ');
      return `Which is ${thing} now: ${moved || 'what the team moved to'} or ${shown(latest)}? The team had moved from ${shown(earlierSame ?? latest)} to ${moved || 'something else'}, and the latest fact says ${shown(latest)} again.`;
    }
    case 'stale':
      return `Which is ${thing} now: ${shown(involved[0]!)} or ${shown(latest)}? The ${shown(involved[0]!)} fact was never updated.`;
    case 'cross_scope': {
      const other = involved.find((c) => c.fact.scope !== latest.fact.scope) ?? involved[0]!;
      return `Which is ${thing}: ${shown(other)} (as scope "${other.fact.scope}" says) or ${shown(latest)} (as scope "${latest.fact.scope}" says)? If each is right for its own scope, dismiss.`;
    }
    default:
      return `Which is ${thing} now: ${values.join(' or ')}?`;
  }
}

/** "Probable update: is the timeout of billing-api still 30 s, or 45 s now?" */
export function probableUpdateQuestion(older: Claim, newer: Claim): string {
  const now = newer.values.length > 0 ? `${shown(newer)} now, as a later fact says` : 'it gone now, as a later fact says';
  return `${PROBABLE_UPDATE_PREFIX}is ${thingOf(older)} still ${shown(older)}, or is ${now}?`;
}

/** How the question of a probable update begins. */
export const PROBABLE_UPDATE_PREFIX = 'Probable update: ';

/** How the question of a conflict over a whole statement begins. */
export const STATEMENT_QUESTION_PREFIX = 'Which is right now: that ';

/** The question over a whole statement one fact states and another denies. */
export const statementQuestion = (statement: string) => `${STATEMENT_QUESTION_PREFIX}${statement}, or that it is not so?`;

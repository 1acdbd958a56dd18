/**
 * The question each conflict carries: the choice that settles it, which a human can answer without
 * reading the facts, naming the thing in dispute and its values in the order the facts are listed
 * (oldest first), so that answering it is picking the fact to keep ("Which is the auth rate limit
 * now: 1000 req/s or 2000 req/s?").
 */
import type { ConflictRecord } from '@engram/db';
import { singular } from '../facts/entities.ts';
import { technologyDisplayName } from '../facts/vocabulary.ts';
import type { SlotClaim } from './claims.ts';

const CATEGORY_LABELS: Record<string, string> = {
  cache: 'cache', database: 'database', search_engine: 'search engine', vector_store: 'vector store',
  message_broker: 'message broker', job_queue: 'job queue', api_style: 'API style', data_format: 'data format',
  auth_token: 'token type', auth_protocol: 'auth protocol', runtime: 'runtime', language: 'language',
  web_framework: 'web framework', frontend_framework: 'frontend framework', bundler: 'bundler',
  test_framework: 'test framework', orm: 'ORM', docs_tool: 'docs tool', container_runtime: 'container runtime',
  orchestrator: 'orchestrator', iac: 'infrastructure-as-code tool', cloud: 'cloud', hosting: 'hosting', proxy: 'proxy',
  object_storage: 'storage', ci: 'CI system', error_tracking: 'error tracker', monitoring: 'monitoring',
  logging: 'logging stack', payments_provider: 'payments provider', email_provider: 'email provider',
  feature_flags: 'feature-flag service', cdn: 'CDN', compute: 'compute platform',
};

const ACRONYMS = new Set(['ttl', 'api', 'jwt', 'ip', 'db', 'url', 'id', 'cpu', 'tls', 'ssl', 'dns', 'cdn', 'sla', 'slo', 'http', 'rps', 'ci', 'ml', 'sso', 'mfa', 'etl']);
const words = (text: string) =>
  text
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w))
    .join(' ');

/** Does the label already say what the subject is ("max upload size" for subject upload)? */
const labelNamesSubject = (claim: SlotClaim) =>
  claim.label.split(/[\s_]+/).some((w) => singular(w) === claim.subject) || claim.subject === 'config';

/** "the auth rate limit", "the max upload size", "the CI system", "the database of orders". */
function thing(claim: SlotClaim): string {
  const subject = words(claim.subjectLabel);
  if (claim.type === 'technology') {
    const category = claim.attribute[0] ?? '';
    const label = CATEGORY_LABELS[category] ?? words(category);
    const redundant = [category, label.toLowerCase(), singular(label.toLowerCase())].includes(claim.subject) || category.startsWith(claim.subject);
    return redundant ? `the ${label}` : `the ${label} of ${subject}`;
  }
  const label = claim.label || words(claim.attribute.join(' ')) || claim.type;
  return labelNamesSubject(claim) ? `the ${words(label)}` : `the ${subject} ${words(label)}`;
}

const DATE = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
/** A fact's day as explanations name it ("Nov 22, 2026"), as people read dates on the dashboard. */
export const explanationDate = (date: Date) => DATE.format(date);

/** How the question of a conflict over a whole statement begins. */
export const STATEMENT_QUESTION_PREFIX = 'Which is right now: that ';

/** The question over a whole statement one fact states and another denies. */
export const statementQuestion = (statement: string) => `${STATEMENT_QUESTION_PREFIX}${statement}, or that it is not so?`;

const where = (claim: SlotClaim) => (claim.qualifiers.length ? ` in ${claim.qualifiers.join(' and ')}` : '');
const shown = (claim: SlotClaim) => claim.display.join(' and ');
/** The distinct values of claims, in their order. */
const valuesOf = (claims: SlotClaim[]) => [...new Set(claims.map(shown))];

/** The question of a conflict over `involved` (oldest first, as the conflict lists its facts). */
export function conflictQuestion(kind: ConflictRecord['kind'], involved: SlotClaim[], earlierSame?: SlotClaim): string {
  const latest = involved.at(-1)!;
  const others = involved.filter((c) => c !== latest && shown(c) !== shown(latest));
  const otherValues = valuesOf(others).join(' or ');
  const subject = words(latest.subjectLabel);

  if (latest.type === 'usage') {
    const tech = technologyDisplayName(latest.attribute[0] ?? 'it');
    const firstUses = involved[0]!.values.has('true');
    return `Which is right now: ${subject}${where(latest)} ${firstUses ? `uses ${tech}, or it does not` : `does not use ${tech}, or it does`}?`;
  }
  if (latest.type === 'assertion') {
    const stated = involved.find((c) => c.values.has('true')) ?? latest;
    const text = stated.label.replace(/[.;:,\s]+$/, '');
    return statementQuestion(`${text.charAt(0).toLowerCase()}${text.slice(1)}`);
  }
  if (latest.type === 'boolean') {
    const states = [...new Set(involved.map((c) => (c.values.has('true') ? 'enabled' : 'disabled')))];
    const first = states[0] ?? 'enabled';
    return `Which is right now: ${thing(latest).replace(/^the /, '')}${where(latest)} is ${first}, or ${first === 'enabled' ? 'disabled' : 'enabled'}?`;
  }
  switch (kind) {
    case 'reversal':
      return `Which is ${thing(latest)}${where(latest)} now: ${otherValues || 'what the team moved to'} or ${shown(latest)}? The team had moved from ${shown(earlierSame ?? latest)} to ${otherValues || 'something else'}, and the latest fact says ${shown(latest)} again.`;
    case 'stale': {
      const oldest = involved[0]!;
      if (oldest.type === 'version') {
        return `Which version is ${words(oldest.subjectLabel)}${where(oldest)} on now: ${shown(oldest)} or ${shown(latest)}? The ${shown(oldest)} fact was never updated.`;
      }
      return `Which is ${thing(oldest)}${where(oldest)} now: ${shown(oldest)} or ${shown(latest)}? The older fact was never updated.`;
    }
    case 'cross_scope': {
      const other = others[0] ?? involved[0]!;
      return `Which is ${thing(latest)}${where(latest)}: ${shown(other)} (as scope "${other.fact.scope}" says) or ${shown(latest)} (as scope "${latest.fact.scope}" says)? If each is right for its own scope, dismiss.`;
    }
    default:
      return `Which is ${thing(latest)}${where(latest)} now: ${valuesOf(involved).join(' or ')}?`;
  }
}

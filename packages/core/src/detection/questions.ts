/**
 * The yes/no question each conflict carries: one a human can answer without reading the facts,
 * naming the thing in dispute and the values at stake ("Is the auth rate limit 2000 req/s, not
 * 1000 req/s?").
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

/** How the question of a conflict over a whole statement begins. */
export const STATEMENT_QUESTION_PREFIX = 'Is it true that ';

const where = (claim: SlotClaim) => (claim.qualifiers.length ? ` in ${claim.qualifiers.join(' and ')}` : '');
const shown = (claim: SlotClaim) => claim.display.join(' and ');

/** The question of a conflict over `involved` (oldest first). */
export function conflictQuestion(kind: ConflictRecord['kind'], involved: SlotClaim[], earlierSame?: SlotClaim): string {
  const latest = involved.at(-1)!;
  const others = involved.filter((c) => c !== latest && shown(c) !== shown(latest));
  const otherValues = [...new Set(others.map(shown))].join(' or ');
  const subject = words(latest.subjectLabel);

  if (latest.type === 'usage') {
    const tech = technologyDisplayName(latest.attribute[0] ?? 'it');
    return `Does ${subject}${where(latest)} use ${tech}? One fact says it does, another says it does not.`;
  }
  if (latest.type === 'assertion') {
    const stated = involved.find((c) => c.values.has('true')) ?? latest;
    const text = stated.label.replace(/[.;:,\s]+$/, '');
    return `${STATEMENT_QUESTION_PREFIX}${text.charAt(0).toLowerCase()}${text.slice(1)}? One fact says so, another says it is not.`;
  }
  if (latest.type === 'boolean') {
    const state = latest.values.has('true') ? 'enabled' : 'disabled';
    const opposite = state === 'enabled' ? 'disabled' : 'enabled';
    return `Is ${thing(latest).replace(/^the /, '')}${where(latest)} ${state}, as the latest fact says (another says ${opposite})?`;
  }
  switch (kind) {
    case 'reversal':
      return `Is ${thing(latest)}${where(latest)} ${shown(latest)} again, after the team had moved from ${shown(earlierSame ?? latest)} to ${otherValues || 'something else'}?`;
    case 'stale': {
      const oldest = involved[0]!;
      if (oldest.type === 'version') {
        return `Is ${words(oldest.subjectLabel)}${where(oldest)} still on ${shown(oldest)}, now that newer facts mention ${shown(latest)}?`;
      }
      return `Is ${thing(oldest)}${where(oldest)} still ${shown(oldest)}, now that newer facts say ${shown(latest)}?`;
    }
    case 'cross_scope': {
      const other = others[0] ?? involved[0]!;
      return `Is ${thing(latest)}${where(latest)} ${shown(latest)} (as scope "${latest.fact.scope}" says) rather than ${shown(other)} (as scope "${other.fact.scope}" says)?`;
    }
    default:
      return `Is ${thing(latest)}${where(latest)} ${shown(latest)}, not ${otherValues || 'what an earlier fact says'}?`;
  }
}

/**
 * Deterministic secret scanning (SPEC §5): a commit that looks like it carries a credential is
 * rejected with the pattern's name. The matched text is never returned, logged or stored.
 */
import { EngramError } from '../errors.ts';

/** One kind of secret the scanner recognises. */
interface SecretPattern {
  name: string;
  /** What the user is told it looks like. */
  label: string;
  regex: RegExp;
  /** Extra check on the match (e.g. entropy), to keep look-alikes out. */
  accept?: (match: RegExpExecArray) => boolean;
}

// Values that stand for a secret in documentation rather than being one.
const PLACEHOLDER =
  /^(?:<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\*+|x+|\.{3}|…|redacted|changeme|change-me|password|passwd|secret|token|example|dummy|placeholder|your[-_a-z]*|null|none|undefined|true|false)$/i;

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const looksRandom = (value: string, minLength: number, minEntropy: number) =>
  value.length >= minLength &&
  !PLACEHOLDER.test(value) &&
  entropy(value) >= minEntropy &&
  /[0-9]/.test(value) &&
  /[A-Za-z]/.test(value);

const SECRET_PATTERNS: SecretPattern[] = [
  { name: 'private_key', label: 'a private key', regex: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { name: 'engram_token', label: 'an Engram member token', regex: /\begm_[A-Za-z0-9_-]{43}\b/ },
  { name: 'engram_invite_key', label: 'an Engram invite key', regex: /\bek_eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_.-]{20,}/ },
  { name: 'anthropic_api_key', label: 'an Anthropic API key', regex: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { name: 'openai_api_key', label: 'an OpenAI API key', regex: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/ },
  { name: 'stripe_key', label: 'a Stripe key', regex: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { name: 'github_token', label: 'a GitHub token', regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/ },
  { name: 'gitlab_token', label: 'a GitLab token', regex: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { name: 'slack_token', label: 'a Slack token', regex: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { name: 'slack_webhook', label: 'a Slack webhook URL', regex: /hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]+/ },
  { name: 'google_api_key', label: 'a Google API key', regex: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { name: 'aws_access_key_id', label: 'an AWS access key id', regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/ },
  {
    name: 'aws_secret_access_key',
    label: 'an AWS secret access key',
    regex: /aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/i,
  },
  { name: 'npm_token', label: 'an npm token', regex: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { name: 'sendgrid_key', label: 'a SendGrid key', regex: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/ },
  {
    name: 'jwt',
    label: 'a JSON Web Token',
    regex: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
  },
  {
    name: 'connection_string_password',
    label: 'a connection string with a password',
    regex: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s/:@]+:([^\s@/]+)@[^\s]+/i,
    accept: (m) => !PLACEHOLDER.test(decodeURIComponentSafe(m[1] ?? '')),
  },
  {
    name: 'bearer_token',
    label: 'a bearer token',
    regex: /\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)/i,
    accept: (m) => looksRandom(m[1] ?? '', 20, 3.5),
  },
  {
    name: 'basic_auth_header',
    label: 'a Basic authorization header',
    regex: /\bauthorization:\s*basic\s+([A-Za-z0-9+/]{12,}={0,2})/i,
  },
  {
    name: 'secret_assignment',
    label: 'a secret assigned to a variable',
    regex:
      /\b[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?key|credentials?)["']?\s*(?:=|:|=>)\s*["']?([^\s"'`,;]{8,})/i,
    accept: (m) => looksRandom(m[1] ?? '', 12, 3.0),
  },
  {
    name: 'high_entropy_assignment',
    label: 'a high-entropy value assigned to a variable',
    regex: /\b[A-Z][A-Z0-9_]{2,}\s*=\s*["']?([A-Za-z0-9+/_=-]{24,})/,
    accept: (m) => looksRandom(m[1] ?? '', 24, 4.0),
  },
];

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The first secret pattern found in `text`, or null. */
export function findSecret(text: string): { name: string; label: string } | null {
  for (const pattern of SECRET_PATTERNS) {
    const global = new RegExp(pattern.regex.source, pattern.regex.flags.includes('g') ? pattern.regex.flags : `${pattern.regex.flags}g`);
    for (let match = global.exec(text); match; match = global.exec(text)) {
      if (!pattern.accept || pattern.accept(match)) return { name: pattern.name, label: pattern.label };
    }
  }
  return null;
}

/** Names of every pattern, for documentation and tests. */
export const SECRET_PATTERN_NAMES: readonly string[] = SECRET_PATTERNS.map((p) => p.name);

/**
 * Rejects input that appears to contain a secret, naming the field and the pattern but never the
 * matched text.
 */
export function assertNoSecrets(fields: Record<string, string | null | undefined>): void {
  for (const [field, value] of Object.entries(fields)) {
    if (!value) continue;
    const found = findSecret(value);
    if (found) {
      throw new EngramError(
        'secret_detected',
        `Commit rejected: ${field} appears to contain ${found.label} (pattern: ${found.name}). ` +
          'Remove the secret and commit again; say where it lives instead (e.g. "the key is read from STRIPE_API_KEY").',
        { field, pattern: found.name },
      );
    }
  }
}

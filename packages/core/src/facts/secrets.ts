/**
 * Deterministic secret scanning (SPEC §5): a commit that looks like it carries a credential is
 * rejected with the pattern's name. The matched text is never returned, logged or stored.
 */
import { EngramError } from '../errors.ts';
import gitleaks from './gitleaks-rules.json' with { type: 'json' };

/** One kind of secret the scanner recognises. */
interface SecretPattern {
  name: string;
  /** What the user is told it looks like. */
  label: string;
  regex: RegExp;
  /** Lowercase; when given, the rule runs only on text containing one of them (cheap prefilter). */
  keywords?: readonly string[];
  /** Extra check on the match (e.g. entropy), to keep look-alikes out. */
  accept?: (match: RegExpExecArray, text: string) => boolean;
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

// A vendor prefix followed by `xxxx…` or `your-bot-token` is documentation, not a credential.
const FILLER = /x{4,}|your[-_]|[-_]here\b|example|placeholder|redacted|changeme|dummy|sample/i;
const notFiller = (m: RegExpExecArray) => entropy(m[0]) >= 3 && !FILLER.test(m[0]);

// Dash-, dot- or underscore-separated words and numbers (`rotation-2024-q3`, `v2.deploy.bucket`).
const SLUG = /^[A-Za-z]+(?:[-_.](?:[A-Za-z]+|[0-9]+))*$|^(?:[A-Za-z]+|[0-9]+)(?:[-_.](?:[A-Za-z]+|[0-9]+))+$/;

/** Base64 that decodes to readable text is an encoded word, not a key. */
function decodesToText(value: string): boolean {
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length < 8) return false;
  let printable = 0;
  for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x0d || b === 0x09) printable++;
  return printable / bytes.length > 0.9;
}

// What a secret is called. Bare `key` is too common (cache key, primary key, sort key) to count.
const SECRET_NAME = String.raw`(?:pass(?:word|wd|phrase)|pwd|secret|token|credentials?|api[_ -]?key|apikey|(?:access|private|secret|signing|hmac|encryption|master|auth|client|account|app|admin|session|license|webhook|shared|service|deploy|bot)[_ -]?key|key[_-]?base)`;
// Names that say the value is an identifier or a digest, whatever entropy it has.
const NOT_SECRET_NAME = /(?:_ID|_IDS|_SHA|_HASH|_DIGEST|_CHECKSUM|_SUM|_VERSION|_REF|_COMMIT|_REVISION|_URL|_PATH|_FILE)$/;
// The same, at the end of what precedes a value: `heroku app id is …`, `monitor_id: …`, `appId: …`.
const IDENTIFIER_WORDS = ['id', 'ids', 'sha', 'hash', 'digest', 'checksum', 'version', 'revision', 'commit', 'url', 'uri', 'arn', 'endpoint', 'path', 'name'];
const BEFORE_VALUE = String.raw`["']?\s*(?:=|:|=>|,|is|was|are)?[\s"'\x60=]*$`;
const IDENTIFIER_BEFORE_VALUE = [
  new RegExp(String.raw`(?:\b|_)(?:${IDENTIFIER_WORDS.join('|')})${BEFORE_VALUE}`, 'i'),
  new RegExp(String.raw`[a-z](?:${IDENTIFIER_WORDS.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('|')})${BEFORE_VALUE}`),
];
const namedAsIdentifier = (m: RegExpExecArray, secret: string) => {
  const at = m[0].lastIndexOf(secret);
  const before = m[0].slice(0, at);
  return at > 0 && IDENTIFIER_BEFORE_VALUE.some((r) => r.test(before));
};

// Engram's own tokens and formats gitleaks does not cover (or covers only next to a name), first,
// so the error names them precisely.
const SPECIFIC_PATTERNS: SecretPattern[] = [
  { name: 'private_key', label: 'a private key', regex: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { name: 'engram_token', label: 'an Engram member token', regex: /\begm_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/, keywords: ['egm_'] },
  // Compact keys (ek_ + 88), and the JWE keys issued before them.
  { name: 'engram_invite_key', label: 'an Engram invite key', regex: /\bek_(?:[A-Za-z0-9_-]{88}(?![A-Za-z0-9_-])|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_.-]{20,})/, keywords: ['ek_'] },
  { name: 'anthropic_api_key', label: 'an Anthropic API key', regex: /\bsk-ant-[A-Za-z0-9_-]{20,}/, keywords: ['sk-ant-'], accept: notFiller },
  { name: 'openai_api_key', label: 'an OpenAI API key', regex: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/, keywords: ['sk-'], accept: notFiller },
  { name: 'stripe_key', label: 'a Stripe key', regex: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/, keywords: ['_live_', '_test_'], accept: notFiller },
  { name: 'stripe_webhook_secret', label: 'a Stripe webhook signing secret', regex: /\bwhsec_[A-Za-z0-9+/=]{24,}/, keywords: ['whsec_'], accept: notFiller },
  {
    name: 'github_token',
    label: 'a GitHub token',
    regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/,
    keywords: ['gh', 'github_pat_'],
    accept: notFiller,
  },
  { name: 'gitlab_token', label: 'a GitLab token', regex: /\bglpat-[A-Za-z0-9_-]{20,}/, keywords: ['glpat-'], accept: notFiller },
  { name: 'slack_token', label: 'a Slack token', regex: /\bxox[abposr]-[A-Za-z0-9-]{10,}/, keywords: ['xox'], accept: notFiller },
  {
    name: 'slack_webhook',
    label: 'a Slack webhook URL',
    regex: /hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]+/,
    keywords: ['hooks.slack.com'],
  },
  {
    name: 'discord_webhook',
    label: 'a Discord webhook URL',
    regex: /\bdiscord(?:app)?\.com\/api\/webhooks\/[0-9]{17,20}\/[A-Za-z0-9_-]{60,}/,
    keywords: ['discord'],
  },
  { name: 'google_api_key', label: 'a Google API key', regex: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/, keywords: ['aiza'] },
  {
    name: 'google_oauth_client_secret',
    label: 'a Google OAuth client secret',
    regex: /\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/,
    keywords: ['gocspx-'],
  },
  {
    name: 'aws_access_key_id',
    label: 'an AWS access key id',
    regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/,
  },
  {
    name: 'aws_secret_access_key',
    label: 'an AWS secret access key',
    regex: /aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/i,
    keywords: ['aws'],
  },
  {
    // Forty base64 characters in a text about AWS, mixed case and digits, not encoded words.
    name: 'aws_secret_access_key_unlabelled',
    label: 'an AWS secret access key',
    regex: /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/,
    keywords: ['aws', 'amazon'],
    accept: (m) =>
      /[a-z]/.test(m[0]) && /[A-Z]/.test(m[0]) && /[0-9]/.test(m[0]) && entropy(m[0]) >= 4.2 && !decodesToText(m[0]),
  },
  {
    name: 'azure_storage_key',
    label: 'an Azure storage or Service Bus key',
    regex: /\b(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,}={0,2})/i,
    keywords: ['accountkey', 'sharedaccesskey'],
  },
  { name: 'npm_token', label: 'an npm token', regex: /\bnpm_[A-Za-z0-9]{36}\b/, keywords: ['npm_'], accept: notFiller },
  { name: 'sendgrid_key', label: 'a SendGrid key', regex: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/, keywords: ['sg.'] },
  { name: 'mailgun_api_key', label: 'a Mailgun API key', regex: /\bkey-[0-9a-f]{32}\b/, keywords: ['key-'] },
  {
    name: 'doppler_token',
    label: 'a Doppler token',
    regex: /\bdp\.(?:st|sa|ct|pt|scim|audit)\.(?:[A-Za-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}\b/,
    keywords: ['dp.'],
  },
  { name: 'vault_token', label: 'a HashiCorp Vault token', regex: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/, keywords: ['hvs.', 'hvb.', 'hvr.'], accept: notFiller },
  {
    name: 'telegram_bot_token',
    label: 'a Telegram bot token',
    regex: /(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/,
    keywords: [':aa'],
  },
  {
    name: 'discord_bot_token',
    label: 'a Discord bot token',
    regex: /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/,
    accept: (m) => entropy(m[0]) >= 4,
  },
  {
    // Twilio's auth token (and others of its kind) is 32 hex digits with no prefix of its own, so
    // only the name before it gives it away: `auth token 9f3c…`, `TWILIO_AUTH_TOKEN (prod) - 9f3c…`.
    name: 'auth_token_hex',
    label: 'an auth token',
    regex: /(?:\b|_)auth[_ -]?token\b[ \t\w()-]{0,30}?[\s:=("'\x60-]+([0-9a-f]{32})(?![0-9a-z])/i,
    keywords: ['auth'],
    accept: (m) => looksRandom(m[1] ?? '', 32, 3.0) && !namedAsIdentifier(m, m[1] ?? ''),
  },
  { name: 'mapbox_secret_token', label: 'a Mapbox secret token', regex: /\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/, keywords: ['sk.eyj'] },
  { name: 'groq_api_key', label: 'a Groq API key', regex: /\bgsk_[A-Za-z0-9]{52}\b/, keywords: ['gsk_'], accept: notFiller },
  { name: 'replicate_api_token', label: 'a Replicate API token', regex: /\br8_[A-Za-z0-9]{37}\b/, keywords: ['r8_'], accept: notFiller },
  { name: 'mailchimp_api_key', label: 'a Mailchimp API key', regex: /\b[0-9a-f]{32}-us[0-9]{1,2}\b/, keywords: ['-us'] },
  { name: 'new_relic_api_key', label: 'a New Relic API key', regex: /\bNRAK-[A-Z0-9]{27}\b/, keywords: ['nrak-'] },
  { name: 'airtable_token', label: 'an Airtable personal access token', regex: /\bpat[A-Za-z0-9]{14}\.[0-9a-f]{64}\b/, keywords: ['pat'] },
  { name: 'supabase_access_token', label: 'a Supabase access token', regex: /\bsbp_[0-9a-f]{40}\b/, keywords: ['sbp_'] },
  { name: 'docker_hub_token', label: 'a Docker Hub access token', regex: /\bdckr_pat_[A-Za-z0-9_-]{27}(?![A-Za-z0-9_-])/, keywords: ['dckr_pat_'] },
  { name: 'netlify_token', label: 'a Netlify access token', regex: /\bnfp_[A-Za-z0-9]{36}\b/, keywords: ['nfp_'], accept: notFiller },
  {
    name: 'jwt',
    label: 'a JSON Web Token',
    regex: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
    keywords: ['eyj'],
  },
  {
    name: 'connection_string_password',
    label: 'a connection string with a password',
    // The user may be empty (`redis://:password@host`).
    regex: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s/:@]*:([^\s@/]+)@[^\s]+/i,
    keywords: ['://'],
    accept: (m) => !PLACEHOLDER.test(decodeURIComponentSafe(m[1] ?? '')),
  },
  {
    name: 'bearer_token',
    label: 'a bearer token',
    regex: /\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)/i,
    keywords: ['bearer'],
    accept: (m) => looksRandom(m[1] ?? '', 20, 3.5),
  },
  {
    name: 'basic_auth_header',
    label: 'a Basic authorization header',
    regex: /\bauthorization:\s*basic\s+([A-Za-z0-9+/]{12,}={0,2})/i,
    keywords: ['basic'],
  },
];

// Engram's rules that go by a secret-ish name rather than the value's shape; after the vendor
// rules, so a recognisable credential is named for what it is.
const GENERIC_PATTERNS: SecretPattern[] = [
  {
    name: 'secret_assignment',
    label: 'a secret assigned to a variable',
    // `name = v`, `name: v`, `"name": "v"`, `name := "v"`, `os.environ["name"] = "v"`,
    // `name (prod) = v`, and Dockerfile's `ENV name v`. The name is matched by its ending
    // (`DB_PASSWORD`, `stripeApiKey`); reaching back for the rest of it would cost quadratic time.
    regex: new RegExp(
      String.raw`(?:${SECRET_NAME}["'\]]{0,2}(?:\s*\([^()\n]{1,20}\))?\s*(?:=|:=|:|=>)|\bENV\s+[A-Za-z0-9_]*${SECRET_NAME}\s)\s*["'\x60]?([^\s"'\x60,;]{8,})`,
      'i',
    ),
    accept: (m) => looksRandom(m[1] ?? '', 12, 3.0) && !namedAsIdentifier(m, m[1] ?? ''),
  },
  {
    // A name and a value given as two fields: Kubernetes `- name: API_TOKEN` / `value: "…"`, ECS
    // `{"name": "API_TOKEN", "value": "…"}`, .NET `<add key="API_TOKEN" value="…" />`.
    name: 'secret_name_value_pair',
    label: 'a secret assigned to a variable',
    regex: new RegExp(
      String.raw`\b(?:name|key)["']?\s*[:=]\s*["']?[A-Za-z0-9_.-]*${SECRET_NAME}["']?\s*,?\s*["']?value["']?\s*[:=]\s*["']?([^\s"'\x60,;]{8,})`,
      'i',
    ),
    accept: (m) => looksRandom(m[1] ?? '', 12, 3.0),
  },
  {
    // "The Twilio auth token for staging is 9f3c…": a name, a few words, `is`/`was`, a random value.
    name: 'secret_in_prose',
    label: 'a secret named in a sentence',
    regex: new RegExp(String.raw`\b${SECRET_NAME}\b[ \t\w.-]{0,40}?\s(?:is|was|are)\s+["'\x60]?([^\s"'\x60,;]{16,}?)["'\x60]?(?=[\s,;)]|[.!?]?$|[.!?]\s)`, 'i'),
    accept: (m) => looksRandom(m[1] ?? '', 16, 3.0) && !SLUG.test(m[1] ?? '') && !m[1]!.includes('://') && !namedAsIdentifier(m, m[1] ?? ''),
  },
  {
    // "I set the Datadog API key to 2b13…", "rotated the webhook secret to …".
    name: 'secret_set_in_prose',
    label: 'a secret named in a sentence',
    regex: new RegExp(
      String.raw`\b(?:set|sets|setting|changed?|rotated?|updated?|reset)\s+[ \t\w.-]{0,40}?\b${SECRET_NAME}\s+to\s+["'\x60]?([^\s"'\x60,;]{16,}?)["'\x60]?(?=[\s,;)]|[.!?]?$|[.!?]\s)`,
      'i',
    ),
    accept: (m) => looksRandom(m[1] ?? '', 16, 3.0) && !SLUG.test(m[1] ?? '') && !m[1]!.includes('://'),
  },
  {
    name: 'high_entropy_assignment',
    label: 'a high-entropy value assigned to a variable',
    regex: /\b([A-Z][A-Z0-9_]{2,})\s*=\s*["']?([A-Za-z0-9+/_=-]{24,})/,
    accept: (m) => !NOT_SECRET_NAME.test(m[1] ?? '') && looksRandom(m[2] ?? '', 24, 4.0),
  },
];

/**
 * One rule of gitleaks' default configuration (vendored in gitleaks-rules.json by
 * infra/vendor-gitleaks-rules.ts): `regex` finds a candidate; entropy and allowlists veto it.
 */
interface GitleaksRule {
  id: string;
  regex: string;
  /** Lowercase; the rule runs only on text containing one of them. */
  keywords: string[];
  /** The secret must carry more Shannon entropy (bits per character) than this. */
  entropy?: number;
  /** Which capture group is the secret; otherwise the first non-empty one, else the match. */
  secretGroup?: number;
  /** `target` is what `regexes` test: `secret` (the default), `match` or `line`. */
  allowlists?: { target: string; regexes: string[]; stopwords: string[] }[];
}

const GITLEAKS_RULES: GitleaksRule[] = gitleaks.rules;
const GITLEAKS_ALLOWED = gitleaks.allowlist.regexes.map((r) => new RegExp(r));
const GITLEAKS_STOPWORDS = gitleaks.allowlist.stopwords;

// Where a vendored rule rejects ordinary facts, the value it should let through.
const VENDOR_EXCEPTIONS: Record<string, (secret: string) => boolean> = {
  // Any 40 hex digits in a text mentioning Sourcegraph, which indexes commits by their SHA.
  'sourcegraph-access-token': (secret) => !secret.startsWith('sgp_'),
};

function gitleaksPattern(rule: GitleaksRule): SecretPattern {
  const allowlists = (rule.allowlists ?? []).map((a) => ({ target: a.target, regexes: a.regexes.map((r) => new RegExp(r)), stopwords: a.stopwords }));
  return {
    name: `gitleaks:${rule.id}`,
    label: `a credential gitleaks recognises as ${rule.id}`,
    regex: new RegExp(rule.regex, 'g'),
    keywords: rule.keywords,
    // gitleaks' own checks, in its order: the secret is a capture group (or the match), it must
    // carry enough entropy, and neither the global nor the rule's allowlists may excuse it.
    accept: (m, text) => {
      const secret = (rule.secretGroup ? m[rule.secretGroup] : m.slice(1).find((g) => g)) ?? m[0];
      if (rule.entropy !== undefined && entropy(secret) <= rule.entropy) return false;
      if (namedAsIdentifier(m, secret) || VENDOR_EXCEPTIONS[rule.id]?.(secret)) return false;
      const lower = secret.toLowerCase();
      if (GITLEAKS_ALLOWED.some((r) => r.test(secret)) || GITLEAKS_STOPWORDS.some((w) => lower.includes(w))) return false;
      return !allowlists.some((a) => {
        let target = secret;
        if (a.target === 'match') target = m[0];
        else if (a.target === 'line') {
          const end = text.indexOf('\n', m.index + m[0].length);
          target = text.slice(text.lastIndexOf('\n', m.index) + 1, end < 0 ? text.length : end);
        }
        return a.regexes.some((r) => r.test(target)) || a.stopwords.some((w) => lower.includes(w));
      });
    },
  };
}

// gitleaks' catch-all generic-api-key is left out: on the test corpus it caught no secret Engram's
// own name-based rules miss, and it flagged a public-key fingerprint.
const VENDORED_PATTERNS = GITLEAKS_RULES.filter((r) => r.id !== 'generic-api-key').map(gitleaksPattern);

const SECRET_PATTERNS: SecretPattern[] = [
  ...SPECIFIC_PATTERNS.map((p) => ({ ...p, regex: new RegExp(p.regex.source, `${p.regex.flags}g`) })),
  ...VENDORED_PATTERNS,
  ...GENERIC_PATTERNS.map((p) => ({ ...p, regex: new RegExp(p.regex.source, `${p.regex.flags}g`) })),
];

// Keyword prefilter. Testing ~250 keywords one by one with `includes` would cost more than all
// the regular expressions together, so keywords are indexed by their first two characters and
// the text is walked once.
const KEYWORDS = [...new Set(SECRET_PATTERNS.flatMap((p) => p.keywords ?? []))];
const KEYWORD_BY_PAIR = new Map<number, { keyword: string; id: number }[]>();
KEYWORDS.forEach((keyword, id) => {
  if (keyword.length < 2) throw new Error(`secret keyword too short: ${keyword}`);
  const pair = (keyword.charCodeAt(0) << 16) | keyword.charCodeAt(1);
  KEYWORD_BY_PAIR.set(pair, [...(KEYWORD_BY_PAIR.get(pair) ?? []), { keyword, id }]);
});
const PATTERN_KEYWORD_IDS = SECRET_PATTERNS.map((p) => p.keywords?.map((k) => KEYWORDS.indexOf(k)));
const keywordSeen = new Uint8Array(KEYWORDS.length);

function markKeywords(lower: string): void {
  keywordSeen.fill(0);
  for (let i = 0; i + 1 < lower.length; i++) {
    const candidates = KEYWORD_BY_PAIR.get((lower.charCodeAt(i) << 16) | lower.charCodeAt(i + 1));
    if (!candidates) continue;
    for (const { keyword, id } of candidates) if (lower.startsWith(keyword, i)) keywordSeen[id] = 1;
  }
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The first secret pattern found in `text`, or null. Synchronous and allocation-light: it runs on
 * every commit. The patterns' regular expressions are shared, which is safe because nothing here
 * yields between resetting and using one.
 */
export function findSecret(text: string): { name: string; label: string } | null {
  markKeywords(text.toLowerCase());
  for (let p = 0; p < SECRET_PATTERNS.length; p++) {
    const pattern = SECRET_PATTERNS[p]!;
    const keywordIds = PATTERN_KEYWORD_IDS[p];
    if (keywordIds && !keywordIds.some((id) => keywordSeen[id] === 1)) continue;
    const regex = pattern.regex;
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match; match = regex.exec(text)) {
      if (match[0] === '') regex.lastIndex++;
      if (!pattern.accept || pattern.accept(match, text)) return { name: pattern.name, label: pattern.label };
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

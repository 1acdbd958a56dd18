import { assertNoSecrets, EngramError, findSecret, sealInviteKey, SECRET_PATTERN_NAMES } from '@engram/core';
import { describe, expect, it } from 'vitest';
import { re2ToJs } from '../../infra/vendor-gitleaks-rules.ts';
import gitleaks from '../../packages/core/src/facts/gitleaks-rules.json' with { type: 'json' };
import { lookAlikeCorpus, secretCorpus } from '../support/secret-corpus.ts';

// Fake credentials, assembled at run time so no secret-shaped literal sits in the repository.
const rand = (alphabet: string, n: number, seed = 7) =>
  Array.from({ length: n }, (_, i) => alphabet[(i * 31 + seed * 17 + ((i * i) % 13)) % alphabet.length]).join('');
const ALNUM = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = `${ALNUM}+/`;
const b64url = (s: string) => Buffer.from(s).toString('base64url');

const SAMPLES: Record<string, string> = {
  private_key: `The deploy key is -----BEGIN ${'OPENSSH'} PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA`,
  engram_token: `use egm_${rand(ALNUM, 43)} for the bot`,
  engram_invite_key: `invite: ek_${b64url('{"alg":"dir","enc":"A256GCM"}')}..${rand(ALNUM, 22)}.${rand(ALNUM, 40)}.${rand(ALNUM, 22)}`,
  anthropic_api_key: `key sk-ant-${'api03'}-${rand(ALNUM, 40)}`,
  openai_api_key: `OPENAI key is sk-${'proj'}-${rand(ALNUM, 48)}`,
  stripe_key: `stripe ${'sk'}_${'live'}_${rand(ALNUM, 24)}`,
  github_token: `token ${'ghp'}_${rand(ALNUM, 36)}`,
  gitlab_token: `${'glpat'}-${rand(ALNUM, 20)}`,
  slack_token: `${'xoxb'}-${rand('0123456789', 12)}-${rand(ALNUM, 24)}`,
  slack_webhook: `posts to https://hooks.slack.com/services/T${rand(UPPER, 8)}/B${rand(UPPER, 8)}/${rand(ALNUM, 24)}`,
  google_api_key: `maps key AIza${rand(ALNUM, 35)}`,
  aws_access_key_id: `AWS id ${'AKIA'}${rand(UPPER, 16)}`,
  aws_secret_access_key: `aws_secret_access_key = ${rand(B64, 40, 3)}`,
  npm_token: `npm_${rand(ALNUM, 36)}`,
  sendgrid_key: `SG.${rand(ALNUM, 22)}.${rand(ALNUM, 43)}`,
  jwt: `sample token eyJ${rand(ALNUM, 20)}.eyJ${rand(ALNUM, 30)}.${rand(ALNUM, 30)}`,
  connection_string_password: `DB is postgres://app:${rand(ALNUM, 14)}@db.internal:5432/app`,
  bearer_token: `curl -H "Authorization: Bearer ${rand(ALNUM, 32)}"`,
  basic_auth_header: `Authorization: Basic ${Buffer.from('admin:s3cr3t-pass').toString('base64')}`,
  secret_assignment: `set DB_PASSWORD="${rand(ALNUM, 18)}" in the env`,
  high_entropy_assignment: `FEATURE_SIGNING=${rand(B64, 40, 5)}`,
  stripe_webhook_secret: `webhook signing uses ${'whsec'}_${rand(ALNUM, 32)}`,
  discord_webhook: `alerts go to https://discord.com/api/webhooks/${rand('0123456789', 19)}/${rand(ALNUM, 68)}`,
  google_oauth_client_secret: `client secret ${'GOCSPX'}-${rand(ALNUM, 28)}`,
  aws_secret_access_key_unlabelled: `the AWS backup user signs with ${rand(B64, 40, 11)}`,
  azure_storage_key: `AccountName=engram;AccountKey=${rand(B64, 86, 4)}==;EndpointSuffix=core.windows.net`,
  auth_token_hex: `Twilio auth token ${rand('0123456789abcdef', 32)}`,
  mailgun_api_key: `mail goes through ${'key'}-${rand('0123456789abcdef', 32)}`,
  doppler_token: `${'dp'}.st.prd.${rand(ALNUM, 43)}`,
  vault_token: `VAULT_TOKEN is ${'hvs'}.${rand(ALNUM, 24)}`,
  telegram_bot_token: `the bot is ${rand('0123456789', 10)}:AA${rand(ALNUM, 33)}`,
  discord_bot_token: `bot login MT${rand(ALNUM, 24)}.${rand(ALNUM, 6)}.${rand(ALNUM, 38)}`,
  mapbox_secret_token: `maps use ${'sk'}.eyJ${rand(ALNUM, 40)}.${rand(ALNUM, 22)}`,
  groq_api_key: `${'gsk'}_${rand(ALNUM, 52)}`,
  replicate_api_token: `${'r8'}_${rand(ALNUM, 37)}`,
  mailchimp_api_key: `newsletter key ${rand('0123456789abcdef', 32)}-us21`,
  new_relic_api_key: `${'NRAK'}-${rand(UPPER, 27)}`,
  airtable_token: `${'pat'}${rand(ALNUM, 14)}.${rand('0123456789abcdef', 64)}`,
  supabase_access_token: `${'sbp'}_${rand('0123456789abcdef', 40)}`,
  docker_hub_token: `${'dckr_pat'}_${rand(ALNUM, 27)}`,
  netlify_token: `${'nfp'}_${rand(ALNUM, 36)}`,
  secret_name_value_pair: `- name: API_TOKEN\n  value: "${rand(ALNUM, 24, 9)}"`,
  secret_in_prose: `The webhook secret for staging is ${rand(ALNUM, 24, 9)}.`,
  secret_set_in_prose: `I set the session secret to ${rand(ALNUM, 24, 9)} yesterday.`,
};
// Engram's own rules; the vendored gitleaks rules are exercised by the corpus below.
const OWN_PATTERN_NAMES = SECRET_PATTERN_NAMES.filter((name) => !name.startsWith('gitleaks:'));

const BENIGN = [
  'The auth service rate-limits to 1000 req/s per IP using a sliding window in Redis, configured via AUTH_RATE_LIMIT in .env',
  'JWT_SECRET is read from the environment; rotate it with the runbook in docs/security.md',
  'The Stripe API key lives in STRIPE_API_KEY (1Password vault "payments")',
  'Fixed in commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 on main',
  'Workspace ids look like 5f0c1a9e-4b7e-4c55-9f0a-2d1e3c4b5a69',
  'Connect with postgres://app:<password>@db.internal:5432/app (password from the vault)',
  'DATABASE_URL=postgres://user:${DB_PASSWORD}@localhost/app in .env.example',
  'The public docs are at https://docs.example.com/api/v2/auth',
  'Tokens are sent as Authorization: Bearer <token>',
  'password = "changeme" only in the local docker-compose',
  'The sk-learn pipeline trains nightly',
  'Redis runs on port 6379 and Postgres on 5432',
  'Session cookies are signed with HMAC-SHA256',
  'max_token_length = 4096 for the embedding model',
  'The GitHub Actions workflow uses secrets.GITHUB_TOKEN to publish',
];

describe('secret scanner', () => {
  it('has a sample for every rule of its own', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...OWN_PATTERN_NAMES].sort());
  });

  it.each(Object.entries(SAMPLES))('recognises %s', (name, text) => {
    expect(findSecret(text)?.name).toBe(name);
  });

  it('recognises a compact invite key as sealed by the server', async () => {
    const key = await sealInviteKey('unit-test-secret-0123456789-abcdefghijklmnop', {
      workspace_id: '5f0c1a9e-4b7e-4c55-9f0a-2d1e3c4b5a69',
      invite_id: '0b9e6c1d-2f3a-4b5c-8d7e-6f5a4b3c2d1e',
      role: 'member',
      exp: Math.floor(Date.now() / 1000) + 86_400,
    });
    expect(findSecret(`join with ${key} please`)?.name).toBe('engram_invite_key');
    expect(findSecret(`the key is ${key}.`)?.name).toBe('engram_invite_key');
  });

  // A 32-hex value after the name `auth token`, however the name is spelled and joined to it.
  const HEX32 = rand('0123456789abcdef', 32, 5);
  it.each([
    `the Twilio auth token ${HEX32} is for staging`,
    `auth_token ${HEX32}`,
    `TWILIO_AUTH_TOKEN (prod) - ${HEX32}`,
    `authToken "${HEX32}"`,
    `auth-token for staging: ${HEX32}`,
    `Auth Token ${HEX32.toUpperCase()}`,
  ])('recognises a hex auth token: %s', (text) => {
    expect(findSecret(text)).not.toBeNull();
  });

  it.each([`the auth token hash is ${HEX32}`, `auth token ${HEX32}ff (a 34-digit id)`, 'auth token 00000000000000000000000000000000'])(
    'lets a hex value that is not an auth token through: %s',
    (text) => {
      expect(findSecret(text)).toBeNull();
    },
  );

  it.each(BENIGN)('lets ordinary facts through: %s', (text) => {
    expect(findSecret(text)).toBeNull();
  });

  it('rejects with the field and pattern, never the secret', () => {
    const secret = SAMPLES.github_token!;
    let error: unknown;
    try {
      assertNoSecrets({ content: 'fine', provenance: secret });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EngramError);
    const engram = error as EngramError;
    expect(engram.code).toBe('secret_detected');
    expect(engram.message).toMatch(/provenance appears to contain a GitHub token \(pattern: github_token\)/);
    expect(engram.message).not.toContain(secret.split(' ')[1]);
    expect(JSON.stringify(engram.details)).not.toContain(secret.split(' ')[1]);
  });
});

describe('secret scanner on the corpus', () => {
  const secrets = secretCorpus();
  const lookAlikes = lookAlikeCorpus();

  it('catches at least 95% of ≥150 fake secrets from ≥40 providers', () => {
    const providers = new Set(secrets.map((s) => s.provider));
    expect(secrets.length).toBeGreaterThanOrEqual(150);
    expect(providers.size).toBeGreaterThanOrEqual(40);
    // Misses are reported by provider and kind only: the text holds the (fake) secret.
    const missed = secrets.filter((s) => !findSecret(s.text)).map((s) => `${s.provider} ${s.kind}`);
    const recall = 1 - missed.length / secrets.length;
    expect(recall, `missed ${missed.length} of ${secrets.length}: ${missed.join('; ')}`).toBeGreaterThanOrEqual(0.95);
  });

  it('flags at most 1% of ≥150 look-alikes', () => {
    expect(lookAlikes.length).toBeGreaterThanOrEqual(150);
    const flagged = lookAlikes.flatMap((l) => {
      const found = findSecret(l.text);
      return found ? [`${l.kind} → ${found.name}: ${l.text}`] : [];
    });
    expect(flagged.length / lookAlikes.length, flagged.join('\n')).toBeLessThanOrEqual(0.01);
  });

  it('never repeats the secret when rejecting it', () => {
    for (const sample of secrets) {
      let error: unknown;
      try {
        assertNoSecrets({ content: sample.text });
      } catch (e) {
        error = e;
      }
      if (!(error instanceof EngramError)) continue;
      const pattern = (error.details as { pattern: string }).pattern;
      const found = findSecret(sample.text)!;
      expect(error.details).toEqual({ field: 'content', pattern });
      expect(error.message.startsWith(`Commit rejected: content appears to contain ${found.label} (pattern: ${found.name}). `)).toBe(true);
      expect(error.message.length).toBeLessThan(400);
    }
  });
});

describe('gitleaks rules', () => {
  it('are vendored with their provenance and all compile', () => {
    expect(gitleaks.source).toMatch(/^https:\/\/github\.com\/gitleaks\/gitleaks\/blob\/[0-9a-f]{40}\/config\/gitleaks\.toml$/);
    expect(gitleaks.license).toMatch(/^MIT/);
    expect(gitleaks.rules.length).toBeGreaterThan(200);
    const sources = [
      ...gitleaks.rules.flatMap((r) => [r.regex, ...(r.allowlists ?? []).flatMap((a) => a.regexes)]),
      ...gitleaks.allowlist.regexes,
    ];
    for (const source of sources) expect(() => new RegExp(source), source).not.toThrow();
    // Every rule the scanner keeps is one of them (all but the catch-all generic-api-key).
    const vendored = SECRET_PATTERN_NAMES.filter((name) => name.startsWith('gitleaks:'));
    expect(vendored).toHaveLength(gitleaks.rules.length - 1);
  });

  it('converts RE2 syntax to JavaScript without flags', () => {
    const match = (re2: string, text: string) => new RegExp(re2ToJs(re2)).test(text);
    // (?i) for the rest of the group only, (?-i:...) back to exact case.
    expect(match('\\b(p8e-(?i)[a-z0-9]{4})x', 'p8e-AbC1x')).toBe(true);
    expect(match('\\b(p8e-(?i)[a-z0-9]{4})x', 'P8E-abc1x')).toBe(false);
    expect(match('\\b(p8e-(?i)[a-z0-9]{4})x', 'p8e-abc1X')).toBe(false);
    expect(match('(?i)key(?-i:[Aa]pi)', 'KEYApi')).toBe(true);
    expect(match('(?i)key(?-i:[Aa]pi)', 'KEYAPI')).toBe(false);
    // POSIX classes, `]` first in a class, (?s:.), \z, \x escapes, literal braces.
    expect(match('^pat[[:alnum:]]{3}$', 'patA1z')).toBe(true);
    expect(match('^[^]]+$', 'ab]')).toBe(false);
    expect(match('a(?s:.)b', 'a\nb')).toBe(true);
    expect(match('a.b', 'a\nb')).toBe(false);
    expect(match('ab\\z', 'xab')).toBe(true);
    expect(match('[\\x60]', '`')).toBe(true);
    expect(match('^\\$?{{[^}]+}}$', '{{ token }}')).toBe(true);
    expect(() => re2ToJs('\\Qliteral\\E')).toThrow();
  });
});

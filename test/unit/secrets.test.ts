import { assertNoSecrets, EngramError, findSecret, SECRET_PATTERN_NAMES } from '@engram/core';
import { describe, expect, it } from 'vitest';

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
};

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
  it('has a sample for every pattern', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...SECRET_PATTERN_NAMES].sort());
  });

  it.each(Object.entries(SAMPLES))('recognises %s', (name, text) => {
    expect(findSecret(text)?.name).toBe(name);
  });

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

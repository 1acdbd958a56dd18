import { hkdfSync } from 'node:crypto';
import {
  EngramError,
  generateEngramId,
  generateToken,
  hashToken,
  looksLikeToken,
  openInviteKey,
  sealInviteKey,
  secretsEqual,
} from '@engram/core';
import { EncryptJWT } from 'jose';
import { describe, expect, it } from 'vitest';

const SECRET = 'unit-test-secret-0123456789-abcdefghijklmnop';
const WORKSPACE = '5f0c1a9e-4b7e-4c55-9f0a-2d1e3c4b5a69';
const INVITE = '0b9e6c1d-2f3a-4b5c-8d7e-6f5a4b3c2d1e';
const inAWeek = () => Math.floor(Date.now() / 1000) + 7 * 86_400;

async function rejection(promise: Promise<unknown>): Promise<EngramError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngramError);
  return error as EngramError;
}

describe('member tokens', () => {
  it('are egm_ + 32 random bytes and hash to hex SHA-256', () => {
    const token = generateToken();
    expect(looksLikeToken(token)).toBe(true);
    expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(generateToken()).not.toBe(token);
  });

  it('compares secrets in constant time whatever their lengths', () => {
    expect(secretsEqual('abc', 'abc')).toBe(true);
    expect(secretsEqual('abc', 'abcd')).toBe(false);
  });
});

describe('engram ids', () => {
  it('look like ENG-XXXX-XXXX without ambiguous characters', () => {
    for (let i = 0; i < 200; i++) expect(generateEngramId()).toMatch(/^ENG-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
  });
});

describe('invite keys', () => {
  const payload = { workspace_id: WORKSPACE, invite_id: INVITE, role: 'member' as const, exp: inAWeek() };

  it('round-trip through a JWE that hides the payload', async () => {
    const key = await sealInviteKey(SECRET, payload);
    expect(key.startsWith('ek_')).toBe(true);
    expect(key.slice(3).split('.')).toHaveLength(5);
    expect(key).not.toContain(WORKSPACE);
    expect(Buffer.from(key.slice(3).split('.')[2] ?? '', 'base64url').toString()).not.toContain(INVITE);
    await expect(openInviteKey(SECRET, key)).resolves.toEqual(payload);
  });

  it('reject a key sealed with another secret', async () => {
    const key = await sealInviteKey('another-secret-0123456789-abcdefghijklmnop', payload);
    expect((await rejection(openInviteKey(SECRET, key))).code).toBe('invite_invalid');
  });

  it('reject an edited ciphertext or header', async () => {
    const key = await sealInviteKey(SECRET, payload);
    const parts = key.slice(3).split('.');
    const ciphertext = Buffer.from(parts[3] ?? '', 'base64url');
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 0x01;
    const edited = ['ek_' + parts[0], parts[1], parts[2], ciphertext.toString('base64url'), parts[4]].join('.');
    expect((await rejection(openInviteKey(SECRET, edited))).code).toBe('invite_invalid');

    const header = JSON.parse(Buffer.from(parts[0] ?? '', 'base64url').toString()) as Record<string, unknown>;
    const reheaded = [
      'ek_' + Buffer.from(JSON.stringify({ ...header, kid: 'other' })).toString('base64url'),
      ...parts.slice(1),
    ].join('.');
    expect((await rejection(openInviteKey(SECRET, reheaded))).code).toBe('invite_invalid');
  });

  it('reject a truncated key and something that is not an invite key', async () => {
    const key = await sealInviteKey(SECRET, payload);
    expect((await rejection(openInviteKey(SECRET, key.slice(0, -5)))).code).toBe('invite_invalid');
    const notAKey = await rejection(openInviteKey(SECRET, 'egm_abc'));
    expect(notAKey.code).toBe('invite_invalid');
    expect(notAKey.message).toMatch(/start with `ek_`/);
  });

  it('reject an expired key with its own message', async () => {
    const key = await sealInviteKey(SECRET, { ...payload, exp: Math.floor(Date.now() / 1000) - 10 });
    const error = await rejection(openInviteKey(SECRET, key));
    expect(error.code).toBe('invite_expired');
    expect(error.message).toMatch(/expired/);
  });

  it('reject a correctly encrypted token whose claims are not an invite', async () => {
    // Same key derivation as the server: only a holder of the secret could produce this.
    const key = new Uint8Array(hkdfSync('sha256', SECRET, 'engram', 'engram invite key v1', 32));
    const jwe = await new EncryptJWT({ workspace_id: WORKSPACE, role: 'admin' })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setExpirationTime(inAWeek())
      .encrypt(key);
    expect((await rejection(openInviteKey(SECRET, `ek_${jwe}`))).code).toBe('invite_invalid');
  });
});

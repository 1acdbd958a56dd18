import { hkdfSync } from 'node:crypto';
import {
  EngramError,
  generateEngramId,
  generateToken,
  hashToken,
  looksLikeToken,
  INVITE_KEY_LENGTH,
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

  it('round-trip through a key of 91 characters that hides the payload', async () => {
    const key = await sealInviteKey(SECRET, payload);
    expect(key).toMatch(/^ek_[A-Za-z0-9_-]{88}$/);
    expect(key).toHaveLength(INVITE_KEY_LENGTH);
    expect(INVITE_KEY_LENGTH).toBeLessThanOrEqual(100);
    const body = Buffer.from(key.slice(3), 'base64url').toString('hex');
    expect(body).not.toContain(WORKSPACE.replace(/-/g, ''));
    expect(body).not.toContain(INVITE.replace(/-/g, ''));
    await expect(openInviteKey(SECRET, key)).resolves.toEqual(payload);
    // Two keys for the same invite differ (a fresh IV each time).
    expect(await sealInviteKey(SECRET, payload)).not.toBe(key);
  });

  it('still honour the longer JWE keys issued before compact keys', async () => {
    const jwe = await new EncryptJWT({ workspace_id: WORKSPACE, invite_id: INVITE, role: 'member' })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'invite-v1' })
      .setIssuedAt()
      .setExpirationTime(payload.exp)
      .encrypt(new Uint8Array(hkdfSync('sha256', SECRET, 'engram', 'engram invite key v1', 32)));
    await expect(openInviteKey(SECRET, `ek_${jwe}`)).resolves.toEqual(payload);
  });

  it('reject a key sealed with another secret', async () => {
    const key = await sealInviteKey('another-secret-0123456789-abcdefghijklmnop', payload);
    expect((await rejection(openInviteKey(SECRET, key))).code).toBe('invite_invalid');
  });

  it('reject an edited key, byte by byte', async () => {
    const key = await sealInviteKey(SECRET, payload);
    const bytes = Buffer.from(key.slice(3), 'base64url');
    for (const at of [0, 1, 20, 40, bytes.length - 1]) {
      const edited = Buffer.from(bytes);
      edited[at] = (edited[at] ?? 0) ^ 0x01;
      expect((await rejection(openInviteKey(SECRET, `ek_${edited.toString('base64url')}`))).code, `byte ${at}`).toBe('invite_invalid');
    }
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

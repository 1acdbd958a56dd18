import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { errors as joseErrors, jwtDecrypt } from 'jose';
import { z } from 'zod';
import { EngramError } from './errors.ts';

const TOKEN_PREFIX = 'egm_';
const INVITE_PREFIX = 'ek_';

/** A new opaque bearer token: `egm_` + 32 random bytes, base64url. Shown once, stored as a hash. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** SHA-256 (hex) of a bearer token: what the database stores and looks up. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** True when `token` has the shape of an Engram member token. */
export function looksLikeToken(token: string): boolean {
  return /^egm_[A-Za-z0-9_-]{43}$/.test(token);
}

/** Compares two secrets in constant time (by their hashes, so lengths may differ). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

// No 0/O or 1/I: an engram id is read aloud and typed by hand.
const ENGRAM_ID_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A human-friendly workspace id such as `ENG-X7K2-P9M4` (40 random bits). */
export function generateEngramId(): string {
  const pick = () => Array.from({ length: 4 }, () => ENGRAM_ID_ALPHABET[randomInt(ENGRAM_ID_ALPHABET.length)]).join('');
  return `ENG-${pick()}-${pick()}`;
}

/** What an invite key carries (encrypted; never readable without the server secret). */
export interface InvitePayload {
  workspace_id: string;
  invite_id: string;
  role: 'owner' | 'member' | 'reader';
  /** Expiry, seconds since the epoch. */
  exp: number;
}

const InviteClaims = z.object({
  workspace_id: z.uuid(),
  invite_id: z.uuid(),
  role: z.enum(['owner', 'member', 'reader']),
  exp: z.number().int(),
});

/** The 256-bit content key of the JWE invite keys issued before compact ones, derived from the server secret. */
function inviteKey(secret: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'engram', 'engram invite key v1', 32));
}

// Compact invite keys (v2): `ek_` + base64url(version · iv · AES-256-GCM(workspace, invite, role, exp) · tag).
const COMPACT_VERSION = 2;
const ROLES = ['owner', 'member', 'reader'] as const;
const COMPACT_AAD = Buffer.from('engram invite v2');
const COMPACT_BYTES = 1 + 12 + 16 + 16 + 1 + 4 + 16;
/** Length of a compact invite key: 3 + 88 characters. */
export const INVITE_KEY_LENGTH = INVITE_PREFIX.length + Math.ceil((COMPACT_BYTES * 4) / 3);

const uuidBytes = (uuid: string) => Buffer.from(uuid.replace(/-/g, ''), 'hex');
const uuidOf = (bytes: Buffer) => bytes.toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/**
 * AES-256-GCM under a key derived from the server secret for one purpose (`info`): iv · ciphertext
 * · tag. Neither readable nor alterable without `ENGRAM_SECRET`.
 */
export function sealBytes(secret: string, info: string, aad: Buffer, plain: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derivedKey(secret, info), iv).setAAD(aad);
  return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/** Opens what {@link sealBytes} sealed with the same secret, purpose and `aad`; null for anything else. */
export function openBytes(secret: string, info: string, aad: Buffer, sealed: Buffer): Buffer | null {
  if (sealed.length < 12 + 16) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', derivedKey(secret, info), sealed.subarray(0, 12)).setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
  } catch {
    return null;
  }
}

const derivedKey = (secret: string, info: string) => Buffer.from(hkdfSync('sha256', secret, 'engram', info, 32));
const COMPACT_INFO = 'engram invite key v2';

/**
 * Seals an invite as `ek_` + 88 characters: the workspace, the invite, its role and expiry,
 * encrypted and authenticated (AES-256-GCM) with a key derived from `ENGRAM_SECRET`, so it can be
 * neither read nor altered without it. Short enough to paste into a chat; uses, revocation and
 * expiry stay on the server's invite row.
 */
export async function sealInviteKey(secret: string, payload: InvitePayload): Promise<string> {
  const plain = Buffer.alloc(16 + 16 + 1 + 4);
  uuidBytes(payload.workspace_id).copy(plain, 0);
  uuidBytes(payload.invite_id).copy(plain, 16);
  plain.writeUInt8(ROLES.indexOf(payload.role), 32);
  plain.writeUInt32BE(payload.exp, 33);
  const sealed = Buffer.concat([Buffer.of(COMPACT_VERSION), sealBytes(secret, COMPACT_INFO, COMPACT_AAD, plain)]);
  return INVITE_PREFIX + sealed.toString('base64url');
}

/** A compact key's claims, or null when it was not sealed by this secret. */
function openCompact(secret: string, body: string): InvitePayload | null {
  const sealed = Buffer.from(body, 'base64url');
  if (sealed.length !== COMPACT_BYTES || sealed[0] !== COMPACT_VERSION || sealed.toString('base64url') !== body) return null;
  const plain = openBytes(secret, COMPACT_INFO, COMPACT_AAD, sealed.subarray(1));
  const role = plain && ROLES[plain.readUInt8(32)];
  if (!plain || !role) return null;
  return { workspace_id: uuidOf(plain.subarray(0, 16)), invite_id: uuidOf(plain.subarray(16, 32)), role, exp: plain.readUInt32BE(33) };
}

/** True when the string has the shape of an invite key (it may still be forged or expired). */
export function looksLikeInviteKey(value: string): boolean {
  if (!value.startsWith(INVITE_PREFIX)) return false;
  const body = value.slice(INVITE_PREFIX.length);
  // Compact keys, and the longer JWE keys issued before them (still honoured).
  return /^[A-Za-z0-9_-]{88}$/.test(body) || body.split('.').length === 5;
}

/**
 * Opens an invite key. Throws `invite_invalid` for anything not sealed by this server's secret
 * (tampered, re-encrypted elsewhere, truncated) and `invite_expired` past its expiry. Whether the
 * invite is still redeemable (revoked, used up) is the database's to say.
 */
export async function openInviteKey(
  secret: string,
  key: string,
  options: { ignoreExpiry?: boolean } = {},
): Promise<InvitePayload> {
  const invalid = new EngramError(
    'invite_invalid',
    'This invite key is not valid: it was altered, truncated, or issued by another Engram server. Ask a workspace owner for a new one.',
  );
  if (!key.startsWith(INVITE_PREFIX)) {
    throw new EngramError(
      'invite_invalid',
      'This is not an Engram invite key: invite keys start with `ek_`. Copy the whole key the workspace owner sent.',
    );
  }
  if (!looksLikeInviteKey(key)) throw invalid;
  const body = key.slice(INVITE_PREFIX.length);
  if (!body.includes('.')) {
    const claims = openCompact(secret, body);
    if (!claims) throw invalid;
    if (!options.ignoreExpiry && claims.exp * 1000 <= Date.now()) {
      throw new EngramError('invite_expired', 'This invite key has expired. Ask a workspace owner for a new one.');
    }
    return claims;
  }
  try {
    // A key issued before compact keys: a JWE (`dir`, A256GCM).
    const { payload } = await jwtDecrypt(body, inviteKey(secret), {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
      // Reading an expired key's claims (to explain which invite it was) checks it as of the epoch.
      ...(options.ignoreExpiry ? { currentDate: new Date(0) } : {}),
    });
    const claims = InviteClaims.safeParse(payload);
    if (!claims.success) throw invalid;
    return claims.data;
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) {
      throw new EngramError('invite_expired', 'This invite key has expired. Ask a workspace owner for a new one.');
    }
    if (error instanceof EngramError) throw error;
    throw invalid;
  }
}

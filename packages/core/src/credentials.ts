import { createHash, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { EncryptJWT, errors as joseErrors, jwtDecrypt } from 'jose';
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

const INVITE_KEY_ID = 'invite-v1';

/** The 256-bit content key for invite JWEs, derived from the server secret. */
function inviteKey(secret: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'engram', 'engram invite key v1', 32));
}

/**
 * Seals an invite as `ek_` + a compact JWE (`dir`, A256GCM): encrypted and authenticated with a key
 * derived from `ENGRAM_SECRET`, so it can be neither read nor altered without it.
 */
export async function sealInviteKey(secret: string, payload: InvitePayload): Promise<string> {
  const jwe = await new EncryptJWT({
    workspace_id: payload.workspace_id,
    invite_id: payload.invite_id,
    role: payload.role,
  })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: INVITE_KEY_ID })
    .setIssuedAt()
    .setExpirationTime(payload.exp)
    .encrypt(inviteKey(secret));
  return INVITE_PREFIX + jwe;
}

/** True when the string has the shape of an invite key (it may still be forged or expired). */
export function looksLikeInviteKey(value: string): boolean {
  return value.startsWith(INVITE_PREFIX) && value.slice(INVITE_PREFIX.length).split('.').length === 5;
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
  if (!looksLikeInviteKey(key)) {
    throw new EngramError(
      'invite_invalid',
      'This is not an Engram invite key: invite keys start with `ek_`. Copy the whole key the workspace owner sent.',
    );
  }
  try {
    const { payload } = await jwtDecrypt(key.slice(INVITE_PREFIX.length), inviteKey(secret), {
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

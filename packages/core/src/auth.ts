import { findTokenOwnerByHash, touchToken, type Database, type TokenOwner } from '@engram/db';
import { hashToken, looksLikeToken } from './credentials.ts';
import { invalidToken } from './errors.ts';

/** A caller authenticated with a member token: the token's owner as resolved from the database. */
export interface MemberPrincipal extends Omit<TokenOwner, 'lastUsedAt'> {
  kind: 'member';
}

/** Who is calling. Invite-key and anonymous callers arrive with onboarding. */
export type Principal = MemberPrincipal;

// last_used_at is tracked to the minute: a write per request would double the cost of reads.
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Resolves a bearer token to its member. Throws `invalid_token` for an unknown, revoked or
 * malformed token — without saying which, so tokens cannot be probed.
 */
export async function authenticateToken(db: Database, token: string): Promise<MemberPrincipal> {
  if (!looksLikeToken(token)) throw invalidToken();
  const owner = await findTokenOwnerByHash(db, hashToken(token));
  if (!owner) throw invalidToken();
  if (!owner.lastUsedAt || Date.now() - owner.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    await touchToken(db, owner.tokenId, TOUCH_INTERVAL_MS);
  }
  const { lastUsedAt: _lastUsedAt, ...identity } = owner;
  return { kind: 'member', ...identity };
}

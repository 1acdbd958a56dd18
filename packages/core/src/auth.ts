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
 * A short-lived, bounded cache of resolved tokens, so a burst of MCP calls does not re-read the
 * token, member and workspace rows on every request. Revoking a token clears this process's
 * cache at once; other instances see a revocation within `ttlMs`.
 */
export class TokenCache {
  private readonly entries = new Map<string, { principal: MemberPrincipal; expires: number }>();
  readonly ttlMs: number;
  private readonly max: number;

  constructor(options: { ttlMs?: number; max?: number } = {}) {
    this.ttlMs = options.ttlMs ?? 5_000;
    this.max = options.max ?? 10_000;
  }

  get(hash: string, now = Date.now()): MemberPrincipal | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.principal;
  }

  set(hash: string, principal: MemberPrincipal, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.max) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { principal, expires: now + this.ttlMs });
  }

  /** Forgets every cached token (after a revocation, a role change, a member's removal). */
  clear(): void {
    this.entries.clear();
  }
}

/**
 * Resolves a bearer token to its member. Throws `invalid_token` for an unknown, revoked or
 * malformed token — without saying which, so tokens cannot be probed.
 */
export async function authenticateToken(db: Database, token: string, cache?: TokenCache): Promise<MemberPrincipal> {
  if (!looksLikeToken(token)) throw invalidToken();
  const hash = hashToken(token);
  const cached = cache?.get(hash);
  if (cached) return cached;
  const owner = await findTokenOwnerByHash(db, hash);
  if (!owner) throw invalidToken();
  if (!owner.lastUsedAt || Date.now() - owner.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    await touchToken(db, owner.tokenId, TOUCH_INTERVAL_MS);
  }
  const { lastUsedAt: _lastUsedAt, ...identity } = owner;
  const principal: MemberPrincipal = { kind: 'member', ...identity };
  cache?.set(hash, principal);
  return principal;
}

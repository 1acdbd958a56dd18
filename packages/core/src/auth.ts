import {
  findEndedMembershipByTokenHash,
  findInviteForKey,
  findTokenOwnerByHash,
  touchToken,
  type Database,
  type MemberRole,
  type TokenOwner,
} from '@engram/db';
import { hashToken, looksLikeInviteKey, looksLikeToken, openInviteKey } from './credentials.ts';
import { EngramError, invalidToken, membershipEnded } from './errors.ts';

/** A caller authenticated with a member token: the token's owner as resolved from the database. */
export interface MemberPrincipal extends Omit<TokenOwner, 'lastUsedAt' | 'expiresAt'> {
  kind: 'member';
}

/**
 * A caller presenting an invite key as its bearer (SPEC §3): it may check its status and join.
 * `problem` says why the key cannot be redeemed (expired, revoked, used up), if it cannot.
 */
export interface InvitePrincipal {
  kind: 'invite';
  inviteKey: string;
  inviteId: string;
  workspaceId: string;
  engramId: string;
  workspaceName: string;
  role: MemberRole;
  problem: EngramError | null;
}

/** A caller without credentials: it may check its status, join, and (with open signup) init. */
export interface AnonymousPrincipal {
  kind: 'anonymous';
  /** Client address, for the anonymous rate limits. */
  address: string;
}

/** Who is calling. */
export type Principal = MemberPrincipal | InvitePrincipal | AnonymousPrincipal;

// last_used_at is tracked to the minute: a write per request would double the cost of reads.
const TOUCH_INTERVAL_MS = 60_000;

/**
 * How long a resolved token is trusted without reading the database again. It bounds how late
 * another instance honours a revocation or a member's removal (this instance clears its cache at
 * once): a burst of MCP calls costs one lookup per token per 5 s, and a revoked token works on
 * another instance for at most 5 s after the revocation.
 */
export const TOKEN_CACHE_TTL_MS = 5_000;

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
    this.ttlMs = options.ttlMs ?? TOKEN_CACHE_TTL_MS;
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

  /** Caches a principal for `ttlMs`, or only until `expiresAt` when the token expires sooner. */
  set(hash: string, principal: MemberPrincipal, now = Date.now(), expiresAt: Date | null = null): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.max) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { principal, expires: Math.min(now + this.ttlMs, expiresAt?.getTime() ?? Infinity) });
  }

  /** Forgets every cached token (after a revocation, a role change, a member's removal). */
  clear(): void {
    this.entries.clear();
  }
}

/**
 * Resolves a member token. Throws `invalid_token` for an unknown, revoked or malformed token —
 * without saying which, so tokens cannot be probed; only the holder of a removed member's real
 * token is told that the membership ended.
 */
export async function authenticateToken(db: Database, token: string, cache?: TokenCache): Promise<MemberPrincipal> {
  if (!looksLikeToken(token)) throw invalidToken();
  const hash = hashToken(token);
  const cached = cache?.get(hash);
  if (cached) return cached;
  const owner = await findTokenOwnerByHash(db, hash);
  if (!owner) {
    const ended = await findEndedMembershipByTokenHash(db, hash);
    throw ended ? membershipEnded(ended) : invalidToken();
  }
  if (!owner.lastUsedAt || Date.now() - owner.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    await touchToken(db, owner.tokenId, TOUCH_INTERVAL_MS);
  }
  const { lastUsedAt: _lastUsedAt, expiresAt, ...identity } = owner;
  const principal: MemberPrincipal = { kind: 'member', ...identity };
  cache?.set(hash, principal, Date.now(), expiresAt);
  return principal;
}

/**
 * Opens an invite key and reads its invite's state. Throws for a key this server did not seal
 * (`invite_invalid`) or whose invite or workspace does not exist; an expired, revoked or used-up
 * invite comes back with its `problem` set, so `engram_status` can say what happened.
 */
export async function inspectInviteKey(db: Database, secret: string, key: string, now = new Date()): Promise<InvitePrincipal> {
  let problem: EngramError | null = null;
  let claims;
  try {
    claims = await openInviteKey(secret, key);
  } catch (error) {
    if (!(error instanceof EngramError) || error.code !== 'invite_expired') throw error;
    problem = error;
    // Expired keys still name their invite; read it without the expiry check to report well.
    claims = await openInviteKey(secret, key, { ignoreExpiry: true });
  }
  const invite = await findInviteForKey(db, claims.workspace_id, claims.invite_id);
  if (!invite || invite.role !== claims.role) {
    throw new EngramError('invite_invalid', 'This invite key does not match any invite on this server. Ask a workspace owner for a new one.');
  }
  if (invite.workspaceDeletedAt) {
    throw new EngramError('invite_workspace_deleted', 'The workspace this invite key belongs to has been deleted.');
  }
  if (!problem) problem = inviteProblem(invite, now);
  return {
    kind: 'invite',
    inviteKey: key,
    inviteId: invite.inviteId,
    workspaceId: invite.workspaceId,
    engramId: invite.engramId,
    workspaceName: invite.workspaceName,
    role: invite.role,
    problem,
  };
}

/** Why an invite row cannot be redeemed now, or null when it can. */
export function inviteProblem(
  invite: { revokedAt: Date | null; expiresAt: Date; usesRemaining: number },
  now = new Date(),
): EngramError | null {
  if (invite.revokedAt) {
    return new EngramError('invite_revoked', 'This invite key has been revoked by a workspace owner. Ask them for a new one.');
  }
  if (invite.expiresAt.getTime() <= now.getTime()) {
    return new EngramError('invite_expired', 'This invite key has expired. Ask a workspace owner for a new one.');
  }
  if (invite.usesRemaining <= 0) {
    return new EngramError('invite_used_up', 'This invite key has been used as many times as it allows. Ask a workspace owner for a new one.');
  }
  return null;
}

/**
 * Resolves a request's bearer credential to a principal: none → anonymous, `ek_...` → invite,
 * anything else must be a valid member token (401 otherwise).
 */
export async function resolveBearer(
  db: Database,
  secret: string,
  bearer: string | undefined,
  context: { address: string; cache?: TokenCache },
): Promise<Principal> {
  if (!bearer) return { kind: 'anonymous', address: context.address };
  if (looksLikeInviteKey(bearer)) {
    try {
      return await inspectInviteKey(db, secret, bearer);
    } catch (error) {
      if (error instanceof EngramError && error.status === 400) {
        throw new EngramError('invalid_token', `${error.message} (The bearer looked like an invite key.)`);
      }
      if (error instanceof EngramError && error.code === 'invite_workspace_deleted') {
        throw new EngramError('invalid_token', error.message);
      }
      throw error;
    }
  }
  return authenticateToken(db, bearer, context.cache);
}

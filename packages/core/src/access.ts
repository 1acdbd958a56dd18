/**
 * What a member may do where: the role first (readers never write), then scope permissions
 * (SPEC §3). A scope permission governs its subtree (`payments` covers `payments/webhooks`; `*`
 * covers everything); the most specific one that matches decides, and outside its validity window
 * it grants nothing. Scopes no permission covers keep the role's full access.
 */
import type { ScopeGrant, ScopeReadRule } from '@engram/db';
import type { MemberPrincipal } from './auth.ts';
import { EngramError } from './errors.ts';

export interface ScopeAccess {
  read: boolean;
  write: boolean;
}

/** True when `prefix` covers `scope` (itself, a parent path, or `*`). */
export function coversScope(prefix: string, scope: string): boolean {
  return prefix === '*' || scope === prefix || scope.startsWith(`${prefix}/`);
}

/** The grant that decides for a scope: the longest prefix covering it. */
function decidingGrant(grants: readonly ScopeGrant[], scope: string): ScopeGrant | undefined {
  let best: ScopeGrant | undefined;
  for (const grant of grants) {
    if (!coversScope(grant.scopePrefix, scope)) continue;
    const length = grant.scopePrefix === '*' ? 0 : grant.scopePrefix.length;
    const bestLength = best ? (best.scopePrefix === '*' ? 0 : best.scopePrefix.length) : -1;
    if (length > bestLength) best = grant;
  }
  return best;
}

/** True while a grant's validity window is open. */
const isActive = (grant: ScopeGrant, now: Date) =>
  (!grant.validFrom || new Date(grant.validFrom).getTime() <= now.getTime()) &&
  (!grant.validUntil || new Date(grant.validUntil).getTime() > now.getTime());

/** What the member may do in `scope` now. */
export function scopeAccess(principal: Pick<MemberPrincipal, 'role' | 'grants'>, scope: string, now = new Date()): ScopeAccess {
  const roleWrite = principal.role !== 'reader';
  const grant = decidingGrant(principal.grants, scope);
  if (!grant) return { read: true, write: roleWrite };
  const active = isActive(grant, now);
  return { read: active && grant.canRead, write: active && grant.canWrite && roleWrite };
}

/**
 * The member's read permissions as rules a query can apply (`readableScopeSql` in @engram/db), so
 * lists and totals count only readable facts. Same precedence as {@link scopeAccess}.
 */
export function scopeReadRules(principal: Pick<MemberPrincipal, 'grants'>, now = new Date()): ScopeReadRule[] {
  return principal.grants.map((g) => ({ prefix: g.scopePrefix, readable: isActive(g, now) && g.canRead }));
}

/** True when the member may read facts of `scope`. */
export const canRead = (principal: Pick<MemberPrincipal, 'role' | 'grants'>, scope: string, now?: Date) =>
  scopeAccess(principal, scope, now).read;

/** Throws `forbidden` unless the member may write to `scope`. */
export function assertCanWrite(principal: Pick<MemberPrincipal, 'role' | 'grants'>, scope: string, now?: Date): void {
  if (principal.role === 'reader') {
    throw new EngramError('forbidden', 'Your token is read-only (reader role): it cannot write to team memory.');
  }
  if (!scopeAccess(principal, scope, now).write) {
    throw new EngramError('forbidden', `Your scope permissions do not allow writing to "${scope}". Ask a workspace owner.`);
  }
}

/** Throws `forbidden` unless the member is an owner. */
export function assertOwner(principal: Pick<MemberPrincipal, 'role'>, action: string): void {
  if (principal.role !== 'owner') throw new EngramError('forbidden', `Only workspace owners can ${action}.`);
}

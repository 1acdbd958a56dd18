/**
 * Ending a membership (SPEC §3). In one transaction the member is marked removed, every token of
 * theirs is revoked and every dashboard session opened with one of them ends. What they wrote
 * stays: facts keep their agent and member attribution, and conflicts and audit entries are
 * untouched. To take part again they redeem a new invite, as a new member.
 */
import {
  expireTokenSessions,
  forWorkspace,
  lockMemberAndOwners,
  markMemberRemoved,
  revokeMemberTokens,
  workspaceRow,
  type Database,
  type MemberRole,
} from '@engram/db';
import type { MemberPrincipal } from './auth.ts';
import { EngramError, forbidden, notFound } from './errors.ts';

/** What removing a member did. */
export interface MemberRemoval {
  member_id: string;
  role: MemberRole;
  display_name: string | null;
  /** When the membership ended: the first removal's time, on every later call too. */
  removed_at: string;
  /** False when the member had already been removed (the call is idempotent). */
  removed_now: boolean;
  tokens_revoked: number;
  sessions_ended: number;
}

/**
 * Removes a member: owners remove anyone, and anyone may remove themselves (leave the workspace).
 * The last owner cannot be removed. Idempotent: removing a removed member reports the first removal.
 */
export async function removeMember(db: Database, principal: MemberPrincipal, memberId: string): Promise<MemberRemoval> {
  if (memberId !== principal.memberId && principal.role !== 'owner') {
    throw forbidden('Only workspace owners can remove other members. You can remove yourself (leave the workspace) with your own member id.');
  }
  return endMembership(db, principal.workspaceId, memberId);
}

/**
 * Ends a membership without asking who may (the operator's `engram member remove`; callers check
 * permission first). Refuses to remove the workspace's last live owner.
 */
export async function endMembership(db: Database, workspaceId: string, memberId: string, now = new Date()): Promise<MemberRemoval> {
  return forWorkspace(db, workspaceId).transaction(async (tenant) => {
    // The member and every live owner, locked: two owners removing each other at the same moment
    // must not leave the workspace without one (the second waits, then sees the first's removal).
    const locked = await lockMemberAndOwners(tenant, memberId);
    const member = locked.find((m) => m.id === memberId);
    if (!member) throw notFound(`Member ${memberId}`);
    if (!member.removedAt && member.role === 'owner' && !locked.some((m) => m.id !== memberId && m.role === 'owner' && !m.removedAt)) {
      const workspace = await workspaceRow(tenant);
      throw lastOwner(member.displayName, workspace?.engramId ?? 'ENG-XXXX-XXXX');
    }
    const removedAt = member.removedAt ?? now;
    if (!member.removedAt) await markMemberRemoved(tenant, memberId, removedAt);
    // Also on a repeated call: a token issued to a removed member (none should exist) ends too.
    const revoked = await revokeMemberTokens(tenant, memberId, now);
    // Sessions are ended by expiry rather than deleted, so the browser's next request can still be
    // told why (`findEndedMembershipBySessionHash`); the next sign-in in the workspace sweeps them.
    const sessionsEnded = await expireTokenSessions(tenant, revoked, now);
    return {
      member_id: member.id,
      role: member.role,
      display_name: member.displayName,
      removed_at: removedAt.toISOString(),
      removed_now: !member.removedAt,
      tokens_revoked: revoked.length,
      sessions_ended: sessionsEnded,
    };
  });
}

function lastOwner(displayName: string | null, engramId: string): EngramError {
  return new EngramError(
    'conflict',
    `${displayName ? `"${displayName}"` : 'This member'} is the last owner of the workspace, and a workspace always keeps an owner, so nothing was removed. ` +
      `To hand the workspace to someone else, have an operator issue them an owner token (engram token create --workspace ${engramId}) and then revoke your own tokens; ` +
      'to close the workspace, an operator deletes it (DELETE /api/v1/admin/workspaces/:id).',
  );
}


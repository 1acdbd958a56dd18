/**
 * Members' names and the end of a membership (SPEC §3).
 *
 * A member's display name is what people see beside their agents' facts, so two live members of a
 * workspace never share one (ignoring case and surrounding spaces; the database's
 * `members_display_name_key` decides, so two renames at once cannot both win). Anyone may rename
 * themselves, owners anyone.
 *
 * Ending a membership: in one transaction the member is marked removed, every token of theirs is
 * revoked and every dashboard session opened with one of them ends. What they wrote stays: facts
 * keep their agent and member attribution, and conflicts and audit entries are untouched. To take
 * part again they redeem a new invite, as a new member.
 */
import {
  expireTokenSessions,
  forWorkspace,
  lockMemberAndOwners,
  markMemberRemoved,
  memberRow,
  revokeMemberTokens,
  updateMemberName,
  workspaceRow,
  type Database,
  type MemberRole,
} from '@engram/db';
import { z } from 'zod';
import type { MemberPrincipal } from './auth.ts';
import { EngramError, forbidden, InvalidInputError, notFound, problemsFromZod } from './errors.ts';

/** A member's display name as people type it: trimmed, 1 to 100 characters. */
export const DisplayName = z
  .string({ error: 'must be text' })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(100, { error: 'must be at most 100 characters' });

/** The name a workspace's first owner gets when nobody gave one (renamable like any other). */
export const DEFAULT_OWNER_NAME = 'Owner';

export const RenameMemberInput = z.object({ display_name: DisplayName.describe('The new name, unique in the workspace (ignoring case).') }).strict();

/** Whether `error` (or its cause) is the database refusing a second live member with the same name. */
function isNameTaken(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    const fault = e as { code?: unknown; constraint_name?: unknown; constraint?: unknown; message?: unknown };
    if (fault.code !== '23505') continue;
    const names = [fault.constraint_name, fault.constraint, fault.message].filter((v): v is string => typeof v === 'string');
    if (names.some((n) => n.includes('members_display_name_key'))) return true;
  }
  return false;
}

/** The 409 for a name another live member holds: says which name and what to do instead. */
export function nameTaken(name: string): EngramError {
  return new EngramError(
    'conflict',
    `Another member of this workspace is already called "${name}" (names are compared ignoring case), and each name must say whose facts are whose. ` +
      'Choose a different display_name, for example with a surname or initial added.',
    { field: 'display_name' },
  );
}

/** Runs a write that stores `name` as a member's name; the database's refusal of a taken name becomes {@link nameTaken}. */
export async function withUniqueName<T>(name: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (name && isNameTaken(error)) throw nameTaken(name);
    throw error;
  }
}

/** What renaming a member did. */
export interface MemberRename {
  member_id: string;
  role: MemberRole;
  display_name: string;
  previous_display_name: string | null;
}

/**
 * Renames a member: anyone renames themselves, owners rename anyone. A removed member keeps the
 * name they had. Renaming to the name one already has (any case) changes only its spelling.
 */
export async function renameMember(db: Database, principal: MemberPrincipal, memberId: string, displayName: string): Promise<MemberRename> {
  if (memberId !== principal.memberId && principal.role !== 'owner') {
    throw forbidden('Only workspace owners can rename other members. You can rename yourself with your own member id.');
  }
  return renameMemberAs(db, principal.workspaceId, memberId, displayName);
}

/** Renames a member without asking who may (the operator's `engram member rename`; callers check permission first). */
export async function renameMemberAs(db: Database, workspaceId: string, memberId: string, displayName: string): Promise<MemberRename> {
  const parsed = DisplayName.safeParse(displayName);
  if (!parsed.success) throw new InvalidInputError(problemsFromZod(parsed.error.issues).map((p) => ({ ...p, field: 'display_name' })));
  const name = parsed.data;
  return forWorkspace(db, workspaceId).transaction(async (tenant) => {
    const before = await memberRow(tenant, memberId);
    if (!before) throw notFound(`Member ${memberId}`);
    if (before.removedAt) {
      throw new EngramError('conflict', `Member ${memberId} was removed from the workspace at ${before.removedAt.toISOString()}; a removed member keeps the name they had.`);
    }
    const after = await withUniqueName(name, () => updateMemberName(tenant, memberId, name));
    if (!after) throw notFound(`Member ${memberId}`);
    return { member_id: after.id, role: after.role, display_name: name, previous_display_name: before.displayName };
  });
}

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


/**
 * What the operator tools do to a workspace named by its ENG id, without a member principal: the
 * `engram member` and `engram token` commands with database access, and the admin API they ask
 * instead while `engram start` holds the embedded database. One implementation, so both ways list
 * the same members, issue the same tokens and end memberships the same way.
 */
import { findWorkspaceByEngramId, forWorkspace, listMemberRows, liveMemberRow, markTokenRevoked, memberRow, oldestLiveOwner, type Database, type TenantDb } from '@engram/db';
import { z } from 'zod';
import { EngramError } from './errors.ts';
import { endMembership, type MemberRemoval } from './members.ts';
import { issueToken } from './workspaces.ts';

const EngramIdField = z.string().regex(/^ENG-[A-Z0-9]{4}-[A-Z0-9]{4}$/i, { error: 'must be a workspace id like ENG-X7K2-P9M4' });

/** Which workspace's members to list. */
export const OperatorMembersQuery = z.object({ engram_id: EngramIdField }).strict();

/** A token for a member of a workspace (its oldest owner when no member is named). */
export const OperatorTokenInput = z
  .object({
    engram_id: EngramIdField,
    member_id: z.uuid({ error: 'must be a member id (UUID); list them with engram member list' }).optional(),
    label: z.string().trim().min(1).max(100).optional(),
  })
  .strict();
export type OperatorTokenInput = z.infer<typeof OperatorTokenInput>;

/** A workspace's members as operators see them, removed ones included. */
export const OperatorMembersBody = z.object({
  engram_id: z.string(),
  name: z.string(),
  members: z.array(
    z.object({
      id: z.string(),
      role: z.string(),
      display_name: z.string().nullable(),
      active_tokens: z.number().int(),
      removed_at: z.string().nullable(),
    }),
  ),
});
export type OperatorMembersBody = z.infer<typeof OperatorMembersBody>;

/** A token issued by an operator: shown once. */
export const OperatorTokenBody = z.object({
  workspace_id: z.string(),
  token_id: z.string(),
  token: z.string(),
  member: z.object({ id: z.string(), role: z.string(), display_name: z.string().nullable() }),
});
export type OperatorTokenBody = z.infer<typeof OperatorTokenBody>;

async function workspaceByEngramId(db: Database, engramId: string): Promise<{ id: string; engramId: string; name: string; tenant: TenantDb }> {
  const workspace = await findWorkspaceByEngramId(db, engramId);
  if (!workspace) throw new EngramError('not_found', `No workspace ${engramId} on this database.`);
  return { id: workspace.id, engramId: workspace.engramId, name: workspace.name, tenant: forWorkspace(db, workspace.id) };
}

/** The command line passes what was typed; only an id can name a row. */
const isId = (value: string) => z.uuid().safeParse(value).success;

const noMember = (memberId: string, engramId: string) =>
  new EngramError('not_found', `No member ${memberId} in ${engramId}. List them with: engram member list --workspace ${engramId}`);

/** Every member of the workspace, with their live token count. */
export async function listMembersForOperator(db: Database, engramId: string): Promise<OperatorMembersBody> {
  const workspace = await workspaceByEngramId(db, engramId);
  const rows = await listMemberRows(workspace.tenant);
  return {
    engram_id: workspace.engramId,
    name: workspace.name,
    members: rows.map((m) => ({
      id: m.id,
      role: m.role,
      display_name: m.displayName,
      active_tokens: m.activeTokens,
      removed_at: m.removedAt?.toISOString() ?? null,
    })),
  };
}

/** Issues a token for a live member, or for the workspace's oldest owner (a lost owner token). */
export async function issueTokenForOperator(db: Database, input: OperatorTokenInput): Promise<OperatorTokenBody> {
  const { id, tenant } = await workspaceByEngramId(db, input.engram_id);
  const member = input.member_id ? (isId(input.member_id) ? await liveMemberRow(tenant, input.member_id) : undefined) : await oldestLiveOwner(tenant);
  if (!member) throw input.member_id ? noMember(input.member_id, input.engram_id) : new EngramError('not_found', `${input.engram_id} has no owner.`);
  const { token, tokenId } = await issueToken(tenant, member.id, input.label ?? 'created with engram token create');
  return { workspace_id: id, token_id: tokenId, token, member: { id: member.id, role: member.role, display_name: member.displayName } };
}

/** Revokes a token of the workspace; `revoked` is false when no live token has that id. */
export async function revokeTokenForOperator(db: Database, engramId: string, tokenId: string): Promise<{ workspace_id: string; token_id: string; revoked: boolean }> {
  const { id, tenant } = await workspaceByEngramId(db, engramId);
  return { workspace_id: id, token_id: tokenId, revoked: isId(tokenId) && (await markTokenRevoked(tenant, tokenId)) };
}

/** Ends a membership ({@link endMembership}: tokens revoked, sessions ended, facts kept; never the last owner). */
export async function removeMemberForOperator(db: Database, engramId: string, memberId: string): Promise<MemberRemoval & { workspace_id: string }> {
  const { id, tenant } = await workspaceByEngramId(db, engramId);
  if (!isId(memberId) || !(await memberRow(tenant, memberId))) throw noMember(memberId, engramId);
  return { ...(await endMembership(db, id, memberId)), workspace_id: id };
}

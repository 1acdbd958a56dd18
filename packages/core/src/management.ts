/**
 * Workspace management for owners and members (REST API, dashboard): invites, members, tokens,
 * scope permissions, settings. Every function works through the caller's TenantDb, so an id from
 * another workspace is simply not found — with the same message as an id that does not exist.
 */
import {
  countActiveInvites,
  countLiveMembers,
  deleteScopePermission,
  forWorkspace,
  insertScopePermission,
  inviteRow,
  listInviteRows,
  listMemberRows,
  listScopePermissionRows,
  listTokenRows,
  liveMemberRow,
  markInviteRevoked,
  markTokenRevoked,
  memberRow,
  revokeOpenInvites,
  tokenRow,
  updateWorkspaceRow,
  workspaceRow,
  type Database,
  type InviteRecord,
  type ScopePermissionRecord,
  type WorkspaceSettings,
} from '@engram/db';
import { z } from 'zod';
import { assertOwner } from './access.ts';
import type { MemberPrincipal } from './auth.ts';
import { notFound } from './errors.ts';
import { Scope } from './facts/schemas.ts';
import { Instant } from './input.ts';
import { createInvite, DEFAULT_INVITE, InviteLabel, issueToken } from './workspaces.ts';

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

// --- invites -------------------------------------------------------------------------------------

export const CreateInviteInput = z
  .object({
    role: z.enum(['member', 'reader'], { error: 'must be "member" or "reader"' }).default('member'),
    max_uses: z.number().int().min(1, { error: 'must be at least 1' }).max(1000, { error: 'must be at most 1000' }).default(DEFAULT_INVITE.maxUses),
    expires_in_days: z.number().int().min(1, { error: 'must be at least 1' }).max(365, { error: 'must be at most 365' }).default(DEFAULT_INVITE.expiresInDays),
    label: InviteLabel.optional(),
  })
  .strict();
export type CreateInviteInput = z.output<typeof CreateInviteInput>;

export interface InviteView {
  invite_id: string;
  /** What the owner called it (null: no label). */
  label: string | null;
  role: string;
  uses_remaining: number;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
  status: 'active' | 'revoked' | 'expired' | 'used_up';
}

function inviteView(row: InviteRecord, now = new Date()): InviteView {
  const status = row.revokedAt
    ? 'revoked'
    : row.expiresAt.getTime() <= now.getTime()
      ? 'expired'
      : row.usesRemaining <= 0
        ? 'used_up'
        : 'active';
  return {
    invite_id: row.id,
    label: row.label,
    role: row.role,
    uses_remaining: row.usesRemaining,
    expires_at: row.expiresAt.toISOString(),
    revoked_at: iso(row.revokedAt),
    created_at: row.createdAt.toISOString(),
    status,
  };
}

/** A new invite; with `rotate`, every other active invite is revoked first (one live key). */
export async function createInviteFor(
  db: Database,
  secret: string,
  principal: MemberPrincipal,
  input: CreateInviteInput,
  options: { rotate?: boolean } = {},
) {
  assertOwner(principal, 'create invites');
  return forWorkspace(db, principal.workspaceId).transaction(async (tenant) => {
    const revoked = options.rotate ? await revokeOpenInvites(tenant) : 0;
    const created = await createInvite(tenant, secret, {
      role: input.role,
      maxUses: input.max_uses,
      expiresInDays: input.expires_in_days,
      createdByMemberId: principal.memberId,
      ...(input.label ? { label: input.label } : {}),
    });
    const row = await inviteRow(tenant, created.inviteId);
    return { ...inviteView(row!), invite_key: created.inviteKey, revoked_invites: revoked };
  });
}

export async function listInvites(db: Database, principal: MemberPrincipal): Promise<InviteView[]> {
  assertOwner(principal, 'list invites');
  const rows = await listInviteRows(forWorkspace(db, principal.workspaceId));
  return rows.map((r) => inviteView(r));
}

/** Revokes an invite (idempotent: revoking twice keeps the first time). */
export async function revokeInvite(db: Database, principal: MemberPrincipal, inviteId: string): Promise<InviteView> {
  assertOwner(principal, 'revoke invites');
  const tenant = forWorkspace(db, principal.workspaceId);
  await markInviteRevoked(tenant, inviteId);
  const row = await inviteRow(tenant, inviteId);
  if (!row) throw notFound(`Invite ${inviteId}`);
  return inviteView(row);
}

// --- members and tokens ----------------------------------------------------------------------

export async function listMembers(db: Database, principal: MemberPrincipal) {
  const rows = await listMemberRows(forWorkspace(db, principal.workspaceId));
  return rows.map((m) => ({
    member_id: m.id,
    role: m.role,
    display_name: m.displayName,
    created_at: m.createdAt.toISOString(),
    removed_at: iso(m.removedAt),
    active_tokens: Number(m.activeTokens),
    you: m.id === principal.memberId,
  }));
}

export const CreateTokenInput = z
  .object({
    member_id: z.uuid({ error: 'must be a member id (UUID)' }).optional().describe('Whose token; default yourself. Owners only for others.'),
    label: z.string().trim().min(1).max(100, { error: 'must be at most 100 characters' }).optional(),
  })
  .strict();

/** Issues a token for the caller, or (owners) for another member of the workspace. */
export async function createTokenFor(db: Database, principal: MemberPrincipal, input: z.output<typeof CreateTokenInput>) {
  const memberId = input.member_id ?? principal.memberId;
  if (memberId !== principal.memberId) assertOwner(principal, "create tokens for other members");
  const tenant = forWorkspace(db, principal.workspaceId);
  const member = await liveMemberRow(tenant, memberId);
  if (!member) throw notFound(`Member ${memberId}`);
  const { token, tokenId } = await issueToken(tenant, memberId, input.label);
  return { token_id: tokenId, token, member_id: memberId, label: input.label ?? null };
}

/** Tokens the caller may see: their own, or (owners) every token of the workspace. */
export async function listTokens(db: Database, principal: MemberPrincipal) {
  const rows = await listTokenRows(forWorkspace(db, principal.workspaceId), principal.role === 'owner' ? undefined : principal.memberId);
  return rows.map((t) => ({
    token_id: t.id,
    member_id: t.memberId,
    label: t.label,
    created_at: t.createdAt.toISOString(),
    last_used_at: iso(t.lastUsedAt),
    revoked_at: iso(t.revokedAt),
    /** The OAuth client this grant was given to (null: a token an owner issued). */
    oauth_client_id: t.clientId,
    /** When an OAuth grant ends unless its client refreshes it (null: never). */
    expires_at: iso(t.refreshExpiresAt),
    current: t.id === principal.tokenId,
  }));
}

/** Revokes a token: one's own, or (owners) any in the workspace. Idempotent. */
export async function revokeToken(db: Database, principal: MemberPrincipal, tokenId: string) {
  const tenant = forWorkspace(db, principal.workspaceId);
  const row = await tokenRow(tenant, tokenId, principal.role === 'owner' ? undefined : principal.memberId);
  if (!row) throw notFound(`Token ${tokenId}`);
  if (!row.revokedAt) await markTokenRevoked(tenant, tokenId);
  const after = await tokenRow(tenant, tokenId);
  return { token_id: tokenId, member_id: row.memberId, revoked_at: iso(after?.revokedAt) };
}

// --- scope permissions -------------------------------------------------------------------------


export const ScopePermissionInput = z
  .object({
    member_id: z.uuid({ error: 'must be a member id (UUID)' }),
    scope_prefix: z.union([z.literal('*'), Scope], { error: 'must be a scope like "payments" (covers its sub-scopes) or "*"' }),
    can_read: z.boolean().default(true),
    can_write: z.boolean().default(true),
    valid_from: Instant.optional(),
    valid_until: Instant.optional(),
  })
  .strict()
  .refine((p) => !p.valid_from || !p.valid_until || new Date(p.valid_until) > new Date(p.valid_from), {
    path: ['valid_until'],
    error: 'must be after valid_from',
  });

export async function addScopePermission(db: Database, principal: MemberPrincipal, input: z.output<typeof ScopePermissionInput>) {
  assertOwner(principal, 'set scope permissions');
  const tenant = forWorkspace(db, principal.workspaceId);
  const member = await memberRow(tenant, input.member_id);
  if (!member) throw notFound(`Member ${input.member_id}`);
  const row = await insertScopePermission(tenant, {
    memberId: input.member_id,
    scopePrefix: input.scope_prefix,
    canRead: input.can_read,
    canWrite: input.can_write,
    validFrom: input.valid_from ? new Date(input.valid_from) : null,
    validUntil: input.valid_until ? new Date(input.valid_until) : null,
  });
  return scopePermissionView(row);
}

function scopePermissionView(row: ScopePermissionRecord) {
  return {
    permission_id: row.id,
    member_id: row.memberId,
    scope_prefix: row.scopePrefix,
    can_read: row.canRead,
    can_write: row.canWrite,
    valid_from: iso(row.validFrom),
    valid_until: iso(row.validUntil),
  };
}

export async function listScopePermissions(db: Database, principal: MemberPrincipal) {
  const rows = await listScopePermissionRows(forWorkspace(db, principal.workspaceId), principal.role === 'owner' ? undefined : principal.memberId);
  return rows.map(scopePermissionView);
}

export async function removeScopePermission(db: Database, principal: MemberPrincipal, permissionId: string) {
  assertOwner(principal, 'remove scope permissions');
  const removed = await deleteScopePermission(forWorkspace(db, principal.workspaceId), permissionId);
  if (!removed) throw notFound(`Scope permission ${permissionId}`);
  return { permission_id: permissionId, removed: true };
}

// --- workspace ----------------------------------------------------------------------------------

/** Defaults of the settings a workspace can change. */
export const DEFAULT_SETTINGS = {
  anonymous_mode: false,
  anon_agents: false,
  commits_per_agent_per_hour: 50,
  requests_per_token_per_minute: 600,
  detective_daily_token_budget: 2_000_000,
} as const satisfies Required<WorkspaceSettings>;

export const WorkspaceUpdate = z
  .object({
    name: z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }).optional(),
    settings: z
      .object({
        anonymous_mode: z.boolean().optional(),
        anon_agents: z.boolean().optional(),
        commits_per_agent_per_hour: z.number().int().min(1, { error: 'must be at least 1' }).max(1_000_000, { error: 'must be at most 1000000' }).optional(),
        requests_per_token_per_minute: z.number().int().min(1, { error: 'must be at least 1' }).max(1_000_000, { error: 'must be at most 1000000' }).optional(),
        detective_daily_token_budget: z.number().int().min(0, { error: 'must be at least 0' }).max(1_000_000_000).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export async function describeWorkspace(db: Database, principal: MemberPrincipal) {
  const tenant = forWorkspace(db, principal.workspaceId);
  const [row, memberCount] = await Promise.all([workspaceRow(tenant), countLiveMembers(tenant)]);
  if (!row) throw notFound('Workspace');
  return {
    workspace_id: row.id,
    engram_id: row.engramId,
    name: row.name,
    settings: { ...DEFAULT_SETTINGS, ...row.settings },
    members: memberCount,
    created_at: row.createdAt.toISOString(),
  };
}

export async function updateWorkspace(db: Database, principal: MemberPrincipal, input: z.output<typeof WorkspaceUpdate>) {
  assertOwner(principal, 'change workspace settings');
  const updated = await updateWorkspaceRow(forWorkspace(db, principal.workspaceId), { name: input.name, settings: input.settings });
  if (!updated) throw notFound('Workspace');
  return describeWorkspace(db, principal);
}

/** Active invites (for status texts): count of unrevoked, unexpired invites with uses left. */
export async function activeInviteCount(db: Database, workspaceId: string): Promise<number> {
  return countActiveInvites(forWorkspace(db, workspaceId));
}

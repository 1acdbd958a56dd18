import { forWorkspace, insertInvite, insertMember, insertToken, insertWorkspace, type Database, type MemberRole, type TenantDb } from '@engram/db';
import { z } from 'zod';
import { generateEngramId, generateToken, hashToken, sealInviteKey } from './credentials.ts';
import { DEFAULT_OWNER_NAME } from './members.ts';

/** What an owner calls an invite, to tell it apart in lists ("backend team", "Sam's laptop"). */
export const InviteLabel = z
  .string({ error: 'must be text' })
  .trim()
  .min(1, { error: 'must not be empty (leave it out for no label)' })
  .max(100, { error: 'must be at most 100 characters' })
  .describe('A label to tell this invite apart in lists, e.g. "backend team".');

/** Input for creating a workspace (admin API, `engram workspace create`, later `engram_init`). */
export const ProvisionWorkspaceInput = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(100, { error: 'must be at most 100 characters' })
      .optional(),
    owner_display_name: z.string().trim().min(1).max(100, { error: 'must be at most 100 characters' }).optional(),
    anonymous_mode: z.boolean({ error: 'must be true or false' }).optional(),
    anon_agents: z.boolean({ error: 'must be true or false' }).optional(),
    invite: z
      .object({
        role: z.enum(['member', 'reader'], { error: 'must be "member" or "reader"' }).optional(),
        max_uses: z.number().int().min(1, { error: 'must be at least 1' }).max(1000, { error: 'must be at most 1000' }).optional(),
        expires_in_days: z
          .number()
          .int()
          .min(1, { error: 'must be at least 1' })
          .max(365, { error: 'must be at most 365' })
          .optional(),
        label: InviteLabel.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ProvisionWorkspaceInput = z.infer<typeof ProvisionWorkspaceInput>;

/** Defaults for a new workspace's first invite. */
export const DEFAULT_INVITE = { role: 'member', maxUses: 10, expiresInDays: 7 } as const;

export interface ProvisionedWorkspace {
  workspaceId: string;
  engramId: string;
  name: string;
  ownerMemberId: string;
  /** The owner's display name: the one given, or DEFAULT_OWNER_NAME. */
  ownerName: string;
  /** Shown once; only its hash is stored. */
  ownerToken: string;
  inviteId: string;
  /** `ek_...`; shown once. */
  inviteKey: string;
  inviteExpiresAt: Date;
}

/** The wire shape of a provisioned workspace (admin API, CLI): snake_case, secrets shown once. */
export const ProvisionedWorkspaceBody = z.object({
  workspace_id: z.uuid(),
  engram_id: z.string(),
  name: z.string(),
  owner_token: z.string().describe('Bearer token of the workspace owner. Shown once.'),
  invite_key: z.string().describe('Invite key for teammates. Shown once.'),
  invite_expires_at: z.iso.datetime(),
  mcp_url: z.url(),
});
export type ProvisionedWorkspaceBody = z.infer<typeof ProvisionedWorkspaceBody>;

export function toProvisionedWorkspaceBody(created: ProvisionedWorkspace, mcpUrl: string): ProvisionedWorkspaceBody {
  return {
    workspace_id: created.workspaceId,
    engram_id: created.engramId,
    name: created.name,
    owner_token: created.ownerToken,
    invite_key: created.inviteKey,
    invite_expires_at: created.inviteExpiresAt.toISOString(),
    mcp_url: mcpUrl,
  };
}

/** Issues a new bearer token for a member and returns it; only the hash is stored. */
export async function issueToken(tenant: TenantDb, memberId: string, label?: string): Promise<{ token: string; tokenId: string }> {
  const token = generateToken();
  const tokenId = await insertToken(tenant, { memberId, tokenHash: hashToken(token), label: label ?? null });
  return { token, tokenId };
}

/** Creates an invite row and its sealed key. */
export async function createInvite(
  tenant: TenantDb,
  secret: string,
  options: { role: MemberRole; maxUses: number; expiresInDays: number; createdByMemberId?: string; label?: string },
): Promise<{ inviteId: string; inviteKey: string; expiresAt: Date }> {
  // Whole seconds: the key's `exp` claim and the row's expiry must agree exactly.
  const expSeconds = Math.floor(Date.now() / 1000) + options.expiresInDays * 86_400;
  const expiresAt = new Date(expSeconds * 1000);
  const inviteId = await insertInvite(tenant, {
    role: options.role,
    label: options.label ?? null,
    usesRemaining: options.maxUses,
    expiresAt,
    createdByMemberId: options.createdByMemberId ?? null,
  });
  const inviteKey = await sealInviteKey(secret, {
    workspace_id: tenant.workspaceId,
    invite_id: inviteId,
    role: options.role,
    exp: expSeconds,
  });
  return { inviteId, inviteKey, expiresAt };
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

/**
 * Creates a workspace with its owner, the owner's token and a first invite, in one transaction.
 * The engram id is random; a (very unlikely) collision is retried.
 */
export async function provisionWorkspace(
  db: Database,
  secret: string,
  input: ProvisionWorkspaceInput = {},
): Promise<ProvisionedWorkspace> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        const engramId = generateEngramId();
        const workspace = await insertWorkspace(tx, {
          engramId,
          name: input.name ?? `Workspace ${engramId}`,
          settings: {
            anonymous_mode: input.anonymous_mode ?? false,
            anon_agents: input.anon_agents ?? false,
          },
        });
        const tenant = forWorkspace(tx, workspace.id);
        const ownerId = await insertMember(tenant, { role: 'owner', displayName: input.owner_display_name ?? DEFAULT_OWNER_NAME });
        const { token } = await issueToken(tenant, ownerId, 'owner token');
        const invite = await createInvite(tenant, secret, {
          role: input.invite?.role ?? DEFAULT_INVITE.role,
          maxUses: input.invite?.max_uses ?? DEFAULT_INVITE.maxUses,
          expiresInDays: input.invite?.expires_in_days ?? DEFAULT_INVITE.expiresInDays,
          createdByMemberId: ownerId,
          ...(input.invite?.label ? { label: input.invite.label } : {}),
        });
        return {
          workspaceId: workspace.id,
          engramId,
          name: workspace.name,
          ownerMemberId: ownerId,
          ownerName: input.owner_display_name ?? DEFAULT_OWNER_NAME,
          ownerToken: token,
          inviteId: invite.inviteId,
          inviteKey: invite.inviteKey,
          inviteExpiresAt: invite.expiresAt,
        };
      });
    } catch (error) {
      if (attempt < 5 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

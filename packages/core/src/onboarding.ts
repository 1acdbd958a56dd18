/**
 * Agent-native onboarding (SPEC §3, §5): `engram_status`, `engram_init` and `engram_join`, whose
 * `next_prompt` texts walk a user through setup inside their agent's conversation, and the client
 * configuration a new token needs.
 */
import { findInviteForKey, forWorkspace, insertMember, takeInviteUse, type Database, type MemberRole, type TenantDb } from '@engram/db';
import { z } from 'zod';
import { inspectInviteKey, inviteProblem, type AnonymousPrincipal, type InvitePrincipal } from './auth.ts';
import { EngramError } from './errors.ts';
import { withUniqueName } from './members.ts';
import type { JoinOutput } from './responses.ts';
import { issueToken, provisionWorkspace } from './workspaces.ts';

/** Ready-to-paste configuration of the four common MCP clients for a URL and token. */
export function clientSetup(mcpUrl: string, token: string): string {
  const cursor = JSON.stringify({ mcpServers: { engram: { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } }, null, 2);
  const vscode = JSON.stringify({ servers: { engram: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } }, null, 2);
  const desktop = JSON.stringify(
    {
      mcpServers: {
        engram: {
          command: 'npx',
          args: ['-y', 'mcp-remote', mcpUrl, '--header', 'Authorization:${ENGRAM_AUTH}'],
          env: { ENGRAM_AUTH: `Bearer ${token}` },
        },
      },
    },
    null,
    2,
  );
  return [
    'Claude Code (run in a terminal):',
    `  claude mcp add --transport http engram ${mcpUrl} --header "Authorization: Bearer ${token}"`,
    '',
    'Cursor (~/.cursor/mcp.json, or .cursor/mcp.json in the project):',
    cursor,
    '',
    'VS Code (.vscode/mcp.json):',
    vscode,
    '',
    'Claude Desktop (Settings → Developer → Edit Config, claude_desktop_config.json):',
    desktop,
  ].join('\n');
}

/** The status of a caller who has no workspace yet. */
export function anonymousStatus(_principal: AnonymousPrincipal, options: { openSignup: boolean }) {
  const start = options.openSignup
    ? 'If they want to set up a new workspace for their team, ask two questions first: should commits show who made them, or stay anonymous (anonymous_mode)? Should agent ids be stored, or randomized per session (anon_agents)? Then call engram_init with their answers and a workspace name.'
    : 'New workspaces on this server are created by its operator, so if they have no invite key, they should ask a teammate or the operator for one.';
  return {
    status: 'unconfigured' as const,
    next_prompt: `Engram (shared team memory for coding agents) is not connected to a workspace yet. Ask the user whether they have an invite key from a teammate (it starts with "ek_"). If they do, call engram_join with it and their display name. ${start}`,
  };
}

/** The status of a caller presenting an invite key. */
export function invitedStatus(principal: InvitePrincipal) {
  return {
    status: 'joining' as const,
    engram_id: principal.engramId,
    workspace: { id: principal.workspaceId, name: principal.workspaceName },
    next_prompt: principal.problem
      ? `This connection uses an invite key for workspace "${principal.workspaceName}" (${principal.engramId}), but it cannot be used: ${principal.problem.message}`
      : `This connection uses an invite key for workspace "${principal.workspaceName}" (${principal.engramId}). Ask the user for the display name teammates should see, then call engram_join to get their own ${principal.role} token.`,
  };
}

export const InitInput = z
  .object({
    name: z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }).optional().describe('Name of the team or project workspace.'),
    display_name: z.string().trim().min(1).max(100, { error: 'must be at most 100 characters' }).optional().describe('How the founder appears to teammates.'),
    anonymous_mode: z.boolean({ error: 'must be true or false' }).optional().describe('true: commits never record who made them.'),
    anon_agents: z.boolean({ error: 'must be true or false' }).optional().describe('true: agent ids are replaced by random per-session ids.'),
  })
  .strict();
export type InitInput = z.output<typeof InitInput>;

export const InitOutput = z.object({
  status: z.literal('initialized'),
  engram_id: z.string(),
  workspace_id: z.string(),
  owner_token: z.string().describe('The founder\'s token. Shown once.'),
  invite_key: z.string().describe('Share with teammates. Shown once.'),
  invite_expires_at: z.string(),
  mcp_url: z.string(),
  next_prompt: z.string(),
});

/** `engram_init`: a new workspace for a caller without one (open signup only). */
export async function initWorkspace(db: Database, secret: string, input: InitInput, mcpUrl: string) {
  const created = await provisionWorkspace(db, secret, {
    name: input.name,
    owner_display_name: input.display_name,
    anonymous_mode: input.anonymous_mode,
    anon_agents: input.anon_agents,
  });
  const privacy = [
    input.anonymous_mode ? 'commits are anonymous' : 'commits show who made them',
    input.anon_agents ? 'agent ids are randomized per session' : 'agent ids are stored',
  ].join('; ');
  return {
    status: 'initialized' as const,
    engram_id: created.engramId,
    workspace_id: created.workspaceId,
    owner_token: created.ownerToken,
    invite_key: created.inviteKey,
    invite_expires_at: created.inviteExpiresAt.toISOString(),
    mcp_url: mcpUrl,
    next_prompt: [
      `Your Engram workspace "${created.name}" (${created.engramId}) is ready (${privacy}).`,
      'First, put your own token into this client so you stay connected (it is shown only now, keep it private):',
      '',
      clientSetup(mcpUrl, created.ownerToken),
      '',
      `Then share this invite key with teammates (valid until ${created.inviteExpiresAt.toISOString().slice(0, 10)}, up to 10 people); it is all they need:`,
      `  ${created.inviteKey}`,
      'A teammate adds Engram to their agent: a client with OAuth sign-in opens a page where they paste this key; with any other client they use the key as the bearer token, say "join Engram with this key", and their agent calls engram_join.',
    ].join('\n'),
  };
}

export const JoinInput = z
  .object({
    invite_key: z
      .string()
      .trim()
      .min(1, { error: 'must not be empty' })
      .optional()
      .describe('The invite key (ek_...). Optional only when this connection already uses it as its bearer token.'),
    display_name: z
      .string()
      .trim()
      .min(1)
      .max(100, { error: 'must be at most 100 characters' })
      .optional()
      .describe('How you appear to teammates, beside your facts; unique in the workspace (ignoring case).'),
  })
  .strict();
export type JoinInput = z.output<typeof JoinInput>;


/** The member an invite key admitted, and what was done for them in the same transaction. */
export interface Admission<T> {
  invite: InvitePrincipal;
  memberId: string;
  role: MemberRole;
  result: T;
}

/**
 * Redeems an invite key for a new member, then runs `andThen` for that member in the same
 * transaction (issuing their token, or an OAuth code). The key must be sealed by this server, its
 * invite unrevoked, unexpired and not used up, and its workspace alive; taking the use and creating
 * the member happen together, so a one-use key admits exactly one member.
 */
export async function admitWithInvite<T>(
  db: Database,
  secret: string,
  input: { invite_key: string; display_name?: string },
  andThen: (tenant: TenantDb, member: { memberId: string; role: MemberRole }) => Promise<T>,
  now = new Date(),
): Promise<Admission<T>> {
  const invite = await inspectInviteKey(db, secret, input.invite_key, now);
  if (invite.problem) throw invite.problem;
  // A name another member holds refuses the whole admission, so the invite's use is not spent.
  return withUniqueName(input.display_name, () => db.transaction(async (tx) => {
    const tenant = forWorkspace(tx, invite.workspaceId);
    const taken = await takeInviteUse(tenant, invite.inviteId, now);
    if (!taken) {
      // Someone else took the last use (or the invite changed) between the check and now.
      const current = await findInviteForKey(tx, invite.workspaceId, invite.inviteId);
      throw (current && inviteProblem(current, now)) ?? new EngramError('invite_used_up', 'This invite key has been used as many times as it allows.');
    }
    const memberId = await insertMember(tenant, { role: taken.role, displayName: input.display_name ?? null });
    const result = await andThen(tenant, { memberId, role: taken.role });
    return { invite, memberId, role: taken.role, result };
  }));
}

/** Redeems an invite key for a new member with its own token (`engram_join`, `POST /api/v1/join`). */
export async function joinWorkspace(
  db: Database,
  secret: string,
  input: { invite_key: string; display_name?: string },
  mcpUrl: string,
  now = new Date(),
): Promise<JoinOutput> {
  const { invite, result: token, ...joined } = await admitWithInvite(
    db,
    secret,
    input,
    async (tenant, member) => (await issueToken(tenant, member.memberId, 'joined with invite')).token,
    now,
  );
  return {
    status: 'joined',
    engram_id: invite.engramId,
    workspace_id: invite.workspaceId,
    workspace_name: invite.workspaceName,
    member_id: joined.memberId,
    role: joined.role,
    token,
    mcp_url: mcpUrl,
    next_prompt: [
      `You joined "${invite.workspaceName}" (${invite.engramId}) as ${joined.role === 'owner' ? 'an owner' : `a ${joined.role}`}.`,
      'Replace the invite key in your MCP configuration with your own token (shown only now; keep it private), then restart or reconnect the client:',
      '',
      clientSetup(mcpUrl, token),
      '',
      'After reconnecting, call engram_status: it should say "ready".',
    ].join('\n'),
  };
}

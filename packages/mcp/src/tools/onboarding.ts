import { EngramError, initWorkspace, InitInput, InitOutput, joinWorkspace, JoinInput, JoinOutput } from '@engram/core';
import { defineTool } from '../tool.ts';

/** `engram_init`: a founder creates the team's workspace from their agent (open signup only). */
export const initTool = defineTool({
  name: 'engram_init',
  title: 'Create an Engram workspace',
  description: [
    'Create a new Engram workspace for the user\'s team and get its owner token and invite key.',
    '',
    'Call this only when engram_status says "unconfigured", the user has no invite key, and they',
    'want to set up shared memory for their team. Ask them first, once:',
    '  1. Should commits show who made them, or stay anonymous? (anonymous_mode)',
    '  2. Should agent identifiers be stored, or randomized per session? (anon_agents)',
    'and what to call the workspace.',
    '',
    'Then tell the user what next_prompt says: it contains their own token (to put in their MCP',
    'configuration) and the invite key to share with teammates. Both are shown only once.',
  ].join('\n'),
  input: InitInput,
  output: InitOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  availableTo: (principal, options) => options.openSignup && principal.kind !== 'invite',
  handler: async (args, ctx) => {
    if (!ctx.openSignup) {
      throw new EngramError('forbidden', 'This server does not allow creating workspaces here; ask its operator for an invite key.');
    }
    const address = ctx.principal.kind === 'anonymous' ? ctx.principal.address : `principal:${ctx.principal.workspaceId}`;
    await ctx.limits?.signup(address, ctx.anonymousLimits);
    return initWorkspace(ctx.db, ctx.secret, args, ctx.mcpUrl);
  },
});

/** `engram_join`: a teammate redeems an invite key for their own token. */
export const joinTool = defineTool({
  name: 'engram_join',
  title: 'Join a team\'s Engram workspace',
  description: [
    'Join an existing Engram workspace with an invite key from a teammate (it starts with "ek_").',
    '',
    'Call this when the user has an invite key, or when engram_status says "joining". Ask the user',
    'how teammates should see them (display_name) if they have not said.',
    '',
    'The result contains the user\'s own token and exact instructions for putting it into Claude',
    'Code, Cursor, VS Code or Claude Desktop. Tell the user what next_prompt says, keeping the',
    'token and commands exact; the token is shown only once.',
  ].join('\n'),
  input: JoinInput,
  output: JoinOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  availableTo: () => true,
  handler: async (args, ctx) => {
    const key = args.invite_key ?? (ctx.principal.kind === 'invite' ? ctx.principal.inviteKey : undefined);
    if (!key) {
      throw new EngramError('invalid_input', 'invite_key: is required — ask the user for the invite key (it starts with "ek_").');
    }
    return joinWorkspace(ctx.db, ctx.secret, { invite_key: key, display_name: args.display_name }, ctx.mcpUrl);
  },
});

import { Scope, type Principal } from '@engram/core';
import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { parseArgument, protocolErrorFor } from './errors.ts';
import { forMembers, type ToolAccess, type ToolContext } from './tool.ts';
import { COMMIT_GUIDANCE } from './tools/facts.ts';

/**
 * An Engram prompt (SPEC §2): a message a user picks from their client (often as a slash command)
 * that starts a conversation with the agent about Engram. Prompt arguments are strings.
 */
export interface EngramPrompt<A extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  args: A;
  /** Who may list and get it, as for tools (SPEC §3). */
  availableTo: ToolAccess;
  /** The user message the prompt puts in the conversation. */
  text(args: z.output<A>, principal: Principal): string;
}

const definePrompt = <A extends z.ZodObject>(prompt: EngramPrompt<A>): EngramPrompt<A> => prompt;

/** An optional argument; an empty string (what a cleared form field sends) means "not given". */
const optionalText = (max: number, description: string) =>
  z
    .string()
    .max(max, { error: `must be at most ${max} characters` })
    .optional()
    .transform((value) => value?.trim() || undefined)
    .describe(description);

const quoted = (value: string) => JSON.stringify(value);

/** `onboard`: status → join → configure, for a teammate whose agent is not a member yet. */
export const onboardPrompt = definePrompt({
  name: 'onboard',
  title: 'Join your team\'s Engram',
  description:
    'Connect this agent to the team\'s shared memory: check the status, join the workspace with an invite key, and configure the client with your own member token.',
  args: z.object({
    invite_key: optionalText(4000, 'The invite key a teammate shared (it starts with "ek_"). Not needed when this connection already uses it as its bearer token.'),
    display_name: optionalText(100, 'How teammates should see you.'),
  }),
  availableTo: () => true,
  text: (args, principal) => {
    const key =
      principal.kind === 'invite'
        ? 'This connection already presents the invite key, so engram_join needs no invite_key.'
        : args.invite_key
          ? `Use the invite key ${quoted(args.invite_key)}.`
          : 'Ask me for the invite key a teammate shared (it starts with "ek_"); if I have none, follow what next_prompt says instead.';
    const name = args.display_name
      ? `Use the display name ${quoted(args.display_name)}.`
      : 'Ask me how teammates should see me (display_name) first.';
    return [
      'Set me up with Engram, my team\'s shared memory for coding agents.',
      '',
      '1. Call engram_status and tell me what its next_prompt says.',
      '2. If the status is "ready", this connection already belongs to a workspace: tell me which one and my role, and stop here.',
      `3. Otherwise, join the workspace with engram_join. ${key} ${name}`,
      '4. engram_join returns my own member token, shown only once, and how to configure Claude Code, Cursor, VS Code and Claude Desktop with it. Give me the steps for the client I use exactly as returned, keeping the token, commands and JSON unchanged.',
      '5. Once I have reconnected with that token, call engram_status again and confirm that it says "ready".',
    ].join('\n');
  },
});

/** `review-conflicts`: go through the open conflicts with the user, who decides. */
export const reviewConflictsPrompt = definePrompt({
  name: 'review-conflicts',
  title: 'Review open conflicts',
  description:
    'Go through the places where the team\'s memory disagrees, one at a time: the agent asks you each conflict\'s question and settles it the way you decide.',
  args: z.object({
    scope: optionalText(200, 'Only conflicts in this scope and below, e.g. "payments" or "payments/webhooks".'),
  }),
  availableTo: forMembers({ write: false }),
  text: (args, principal) => {
    const scope = args.scope === undefined ? undefined : parseArgument(Scope, args.scope, 'scope');
    const settle =
      principal.kind === 'member' && principal.role === 'reader'
        ? [
            'This token is read-only (reader role), so it cannot settle conflicts: note what I decide for each one; a member or owner can settle it with engram_resolve or in the Engram dashboard.',
          ]
        : [
            'When I decide, settle it with engram_resolve, with my reason in resolution:',
            '- "winner", with the fact_id of the right fact as winning_claim_id;',
            '- "merge", when the truth combines them or is something else: first commit the correct claim with engram_commit, then resolve with its fact_id;',
            '- "dismissed", when both are true in different contexts (that set of facts is not raised again).',
            'If I skip one, leave it open.',
          ];
    return [
      `Review the open conflicts in our team's Engram memory with me${scope ? ` in scope ${quoted(scope)} and below` : ''}.`,
      '',
      `Call engram_conflicts${scope ? ` with scope ${quoted(scope)}` : ''}; if there are none, say so and stop. Take them one at a time, most severe first: show me the question, the facts involved (what each says, which agent, when) and how it was detected, then ask me the question. Do not answer it yourself or prefer the newer fact; if the code can settle it, check and tell me what you found.`,
      '',
      ...settle,
      '',
      'At the end, sum up what was settled and what is still open.',
    ].join('\n');
  },
});

/** `record-learnings`: what a session verified, committed as a few good facts. */
export const recordLearningsPrompt = definePrompt({
  name: 'record-learnings',
  title: 'Record what this session learned',
  description:
    'Before ending a session: the agent lists what it verified, checks what the team already knows, and commits the rest to Engram as a few specific facts, following engram_commit\'s guidance.',
  args: z.object({
    scope: optionalText(200, 'The scope most of it belongs to, e.g. "payments/webhooks".'),
  }),
  availableTo: forMembers({ write: true }),
  text: (args) => {
    const scope = args.scope === undefined ? undefined : parseArgument(Scope, args.scope, 'scope');
    return [
      'Before we finish, record what this session learned in our team\'s Engram memory, as facts.',
      '',
      '1. List what you verified this session that a teammate\'s agent would want to know: hidden side effects, failed approaches, undocumented constraints, decisions and why they were made, configuration details. Leave out guesses and anything you did not check.',
      '2. Check what the team already knows with engram_query. Skip what is already there; where a stored fact is wrong, correct it (corrects_lineage: its lineage_id) instead of adding a second version.',
      '3. Show me the list, and let me drop or change items before you commit.',
      `4. Commit them with engram_commit${scope ? `, in scope ${quoted(scope)} unless a fact belongs elsewhere` : ', each in the scope it is about (e.g. "auth" or "payments/webhooks")'}. Put the evidence (file and line, test, command) in provenance, and use fact_type "decision" for a choice someone made. From engram_commit's description:`,
      '',
      ...COMMIT_GUIDANCE.map((line) => (line ? `   ${line}` : '')),
      '',
      '5. Tell me what was stored, what was a duplicate, and what corroborated a teammate\'s fact.',
    ].join('\n');
  },
});

/** Every Engram prompt, in the order clients list them. */
export const ALL_PROMPTS: readonly EngramPrompt[] = [onboardPrompt, reviewConflictsPrompt, recordLearningsPrompt];

/** Registers the prompts this caller may get. */
export function registerPrompts(server: McpServer, prompts: readonly EngramPrompt[], ctx: ToolContext): void {
  for (const prompt of prompts) {
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: prompt.args },
      (args): GetPromptResult => {
        try {
          return {
            description: prompt.description,
            messages: [{ role: 'user', content: { type: 'text', text: prompt.text(args, ctx.principal) } }],
          };
        } catch (error) {
          throw protocolErrorFor(error, { prompt: prompt.name }, ctx.log);
        }
      },
    );
  }
}

/**
 * Registers prompts this caller may not get, for a request that gets them: each is answered with
 * `refusal(prompt)` (why, and what to do instead) rather than "not found".
 */
export function registerPromptRefusals(server: McpServer, prompts: readonly EngramPrompt[], refusal: (prompt: EngramPrompt) => Error, ctx: ToolContext): void {
  for (const prompt of prompts) {
    server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description }, () => {
      throw protocolErrorFor(refusal(prompt), { prompt: prompt.name }, ctx.log);
    });
  }
}

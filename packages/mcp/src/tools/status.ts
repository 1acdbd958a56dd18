import { anonymousStatus, getStatus, invitedStatus } from '@engram/core';
import { z } from 'zod';
import { defineTool } from '../tool.ts';

const StatusOutput = z.object({
  status: z.enum(['unconfigured', 'joining', 'ready']).describe('Where this caller stands with Engram.'),
  engram_id: z.string().optional().describe('The workspace id, e.g. ENG-X7K2-P9M4.'),
  workspace: z.object({ id: z.string(), name: z.string() }).optional(),
  member: z
    .object({ id: z.string(), role: z.string(), display_name: z.string().nullable() })
    .optional()
    .describe('The member this token belongs to.'),
  memory: z
    .object({ current_facts: z.number().int(), open_conflicts: z.number().int() })
    .optional()
    .describe('Size of the team memory right now.'),
  detective: z
    .object({ narrative: z.enum(['on', 'off', 'paused']), model: z.string().nullable(), note: z.string() })
    .optional()
    .describe('Whether the LLM narrative detective is running on this server (paused: this workspace spent its daily token budget).'),
  detection: z
    .object({
      pending_jobs: z.number().int(),
      failed_jobs: z.number().int(),
      stuck_jobs: z.number().int(),
      note: z.string().nullable(),
    })
    .optional()
    .describe(
      'Conflict checks not done yet: failed jobs (given up after their retries; an owner or operator can requeue them) and stuck ones (no worker is taking them). note says what to do, or is null when nothing is wrong.',
    ),
  next_prompt: z.string().describe('What to tell the user next, in your own words.'),
});

/** `engram_status`: the entry point an agent calls first, whatever its credential. */
export const statusTool = defineTool({
  name: 'engram_status',
  title: 'Engram status',
  description: [
    'Check whether Engram (the team\'s shared memory for this codebase) is set up and what to do next.',
    '',
    'Call this FIRST in every session, before any other engram_* tool, and again whenever another tool',
    'says setup is incomplete. It is cheap and changes nothing.',
    '',
    'Read `next_prompt` in the result and tell the user what it says (in your own words, keeping every',
    'command, key and URL exact). "unconfigured" and "joining" mean setup is not finished: follow',
    'next_prompt. When `status` is "ready", no setup is needed: carry on with the task.',
  ].join('\n'),
  input: z.object({}).strict(),
  output: StatusOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  availableTo: () => true,
  handler: async (_args, ctx) => {
    switch (ctx.principal.kind) {
      case 'member':
        return getStatus(ctx.db, ctx.principal, { llm: ctx.llm, tools: ctx.tools });
      case 'invite':
        return invitedStatus(ctx.principal);
      case 'anonymous':
        return anonymousStatus(ctx.principal, { openSignup: ctx.openSignup });
    }
  },
});

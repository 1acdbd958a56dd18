import { resolveConflict, ResolveInput, ResolveOutput } from '@engram/core';
import { defineTool, factServices, forMembers, memberOf } from '../tool.ts';

/** `engram_resolve`: settle a conflict the way a human decided. */
export const resolveTool = defineTool({
  name: 'engram_resolve',
  title: 'Settle a conflict in team memory',
  description: [
    'Settle a conflict from engram_conflicts, the way the user decided.',
    '',
    'IMPORTANT: Only call this after the user answered the conflict\'s question or told you how to',
    'settle it, or after you verified the answer in the code yourself and say so in `resolution`.',
    'Never pick a side because it is newer or because it suits your task; ask.',
    '',
    'resolution_type:',
    '- "winner": one of the conflict\'s facts is right. Pass its fact_id as winning_claim_id; every',
    '  other current fact of the conflict is closed (kept in history, no longer current).',
    '- "merge": the truth combines them or is something else. FIRST commit the correct claim with',
    '  engram_commit, then call this with that fact_id as winning_claim_id; all the conflict\'s facts',
    '  are closed in its favour.',
    '- "dismissed": not a real conflict (different contexts, both true). Nothing is closed and the',
    '  detector never raises this set of facts again.',
    '',
    'resolution: one or two sentences on why, e.g. "User confirmed prod uses 30 s (config/prod.yaml)".',
    '',
    'A settlement the detector made (resolution_type "detector") can be overruled the same way: another',
    'winner, or "dismissed" to make the closed fact current again next to the later one.',
    '',
    'Safe to retry: resolving again the same way returns the same result and changes nothing;',
    'resolving an already settled conflict another way is refused with how it was settled. You need',
    'write access to the scopes of the facts it closes.',
  ].join('\n'),
  input: ResolveInput,
  output: ResolveOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  availableTo: forMembers({ write: true }),
  handler: (args, ctx) => resolveConflict(factServices(ctx), memberOf(ctx), args),
});

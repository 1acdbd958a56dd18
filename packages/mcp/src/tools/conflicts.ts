import { ConflictsInput, ConflictsOutput, listConflicts } from '@engram/core';
import { CONFLICT_APP_TOOL_META } from '../conflict-app.ts';
import { defineTool, forMembers, memberOf } from '../tool.ts';

/** `engram_conflicts`: where the team's memory disagrees. */
export const conflictsTool = defineTool({
  name: 'engram_conflicts',
  title: 'See where team memory disagrees',
  description: [
    'See where the facts in team memory disagree: reversals (X, then Y, then X again), two current',
    'facts that say different things, stale claims, and probable updates (a later fact says an earlier',
    'one changed: is the earlier one still true?).',
    '',
    'The detector settles a pair on its own only when a later fact names the earlier value as the one',
    'it replaces (or corrects its lineage); those settlements are listed with status "resolved" and',
    'resolution_type "detector", and engram_resolve can overrule them.',
    '',
    'Call this when engram_query returns facts with has_open_conflict=true, before relying on them,',
    'and before architectural decisions in an area. Conflicts come grouped by scope, most severe',
    'first; each has every fact involved (content, scope, agent and its member, time, oldest first), how it was',
    'detected, and the question that settles it: which of the values is right now, in the order of',
    'the facts, so the answer names the fact to keep. Ask the user that question when the answer matters to the',
    'task; do not guess. Once the user has decided, settle it with engram_resolve (or they can, in',
    'the dashboard).',
  ].join('\n'),
  input: ConflictsInput,
  output: ConflictsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  availableTo: forMembers({ write: false }),
  // Hosts that render MCP Apps show the conflict queue App; the text result stays for the others.
  meta: CONFLICT_APP_TOOL_META,
  handler: (args, ctx) => listConflicts(ctx.db, memberOf(ctx), args),
});

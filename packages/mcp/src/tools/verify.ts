import { verifyFact, VerifyInput, VerifyOutput } from '@engram/core';
import { defineTool, factServices, forMembers, memberOf } from '../tool.ts';

/** `engram_verify`: say what the cited code says now. */
export const verifyTool = defineTool({
  name: 'engram_verify',
  title: 'Verify a fact against its cited code',
  description: [
    'Record what you found when you re-read the code a fact cites (its `citations` in engram_query).',
    '',
    'Call this after you re-read a fact\'s cited lines before relying on it, and whenever code you',
    'read contradicts a fact from engram_query. Pass the commit you read (`git rev-parse HEAD`).',
    '',
    'status:',
    '- "still_true": the code still says what the fact says. Recorded (who, when, at which commit);',
    '  the fact ranks as recently verified.',
    '- "outdated": it no longer does. A stale question is raised for people. If you know what is true',
    '  now, FIRST commit it with engram_commit (with citations), then pass its fact_id as replaced_by:',
    '  the outdated fact is closed in its favour (listed in engram_conflicts, reversible).',
    '- "unsure": you could not tell. Recorded; nothing else changes.',
    '',
    'evidence: one or two sentences on what you read, e.g. "src/retry.ts:12 sets MAX_RETRIES = 5".',
    'Never secrets. Every verification is audited.',
  ].join('\n'),
  input: VerifyInput,
  output: VerifyOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  availableTo: forMembers({ write: true }),
  handler: (args, ctx) => verifyFact(factServices(ctx), memberOf(ctx), args),
});

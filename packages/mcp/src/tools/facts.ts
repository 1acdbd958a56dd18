import {
  commitFact,
  CommitInput,
  CommitOutput,
  PromoteInput,
  PromoteOutput,
  promoteFact,
  queryFacts,
  QueryInput,
  QueryOutput,
} from '@engram/core';
import { defineTool, factServices, forMembers, memberOf } from '../tool.ts';

/**
 * What makes a good commit. Part of `engram_commit`'s description, and quoted by the prompt that
 * records a session's learnings, so the two never drift apart.
 */
export const COMMIT_GUIDANCE: readonly string[] = [
  'IMPORTANT: Only commit what you verified by reading code, running tests or observing behaviour.',
  'Set confidence below 0.5 for anything uncertain.',
  'IMPORTANT: Never include secrets, API keys, passwords, tokens or connection strings with',
  'credentials. The server rejects commits that contain them; say where a secret lives instead.',
  'IMPORTANT: Do not call this more than 5 times per task. Batch related discoveries into one',
  'well-structured claim.',
  '',
  'Write specific claims. BAD: "auth is broken". GOOD: "The auth service rate-limits to 1000 req/s',
  'per IP using a sliding window in Redis, configured via AUTH_RATE_LIMIT in .env".',
];

/** `engram_commit`: write one verified claim to the team's memory. */
export const commitTool = defineTool({
  name: 'engram_commit',
  title: 'Commit a fact to team memory',
  description: [
    'Commit a claim about the codebase to shared team memory.',
    '',
    'Use this when you discover something worth preserving for teammates and their agents: a hidden',
    'side effect, a failed approach, an undocumented constraint, an architectural decision, a',
    'configuration detail.',
    '',
    ...COMMIT_GUIDANCE,
    '',
    'To correct a fact you found with engram_query, pass its lineage_id as corrects_lineage (or use',
    'operation "update" and the most similar current fact in the scope is superseded). To retire a',
    'fact that is no longer true, use operation "delete" with corrects_lineage. Use durability',
    '"ephemeral" for scratch notes that should expire unless they prove useful.',
    '',
    'Cite the code you verified: citations [{path, start_line, end_line, commit, repo}], the file',
    'relative to the repository root, the lines you read, `git rev-parse HEAD`, and',
    '`git remote get-url origin`. Cited facts are checked against the code (engram check) and',
    'flagged for people when those lines change.',
    '',
    'The result says whether the fact was stored, was a duplicate, or corroborated another agent\'s',
    'fact. Conflicts with other facts are detected in the background; see engram_conflicts.',
  ].join('\n'),
  input: CommitInput,
  output: CommitOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  availableTo: forMembers({ write: true }),
  handler: (args, ctx) => commitFact(factServices(ctx), memberOf(ctx), args),
});

/** `engram_query`: what the team knows about a topic. */
export const queryTool = defineTool({
  name: 'engram_query',
  title: 'Query team memory',
  description: [
    'Query what your team\'s agents collectively know about a topic.',
    '',
    'Call this BEFORE starting work on an area of the codebase. It returns facts committed by every',
    'agent of every engineer on the team, most relevant first. Each fact names the teammate behind',
    'it (member) beside its agent_id: when you pass a fact on, say whose it is.',
    '',
    'IMPORTANT: Facts with has_open_conflict=true are disputed by another fact. Do not treat them as',
    'settled; check engram_conflicts before relying on them.',
    'IMPORTANT: Facts with verified=false have no provenance. Treat them with appropriate scepticism.',
    'IMPORTANT: When a fact has citations, re-read the cited lines before relying on it, then say',
    'what you found with engram_verify (still_true, outdated or unsure).',
    'IMPORTANT: Do not call this more than 3 times per task. Make the topic specific rather than',
    'asking several broad questions.',
    '',
    'topic: BAD "auth". GOOD "How does the auth service handle JWT token refresh?".',
    'scope: "auth" also returns facts in "auth/jwt" and "auth/oauth".',
    'as_of: an ISO timestamp answers with what the team believed at that moment.',
    'include_history: adds superseded versions with their validity windows; on automatically when',
    'the topic says "used to", "originally", "before", "previously" or "back when".',
  ].join('\n'),
  input: QueryInput,
  output: QueryOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  availableTo: forMembers({ write: false }),
  handler: (args, ctx) => queryFacts(factServices(ctx), memberOf(ctx), args),
});

/** `engram_promote`: keep an ephemeral fact. */
export const promoteTool = defineTool({
  name: 'engram_promote',
  title: 'Promote an ephemeral fact',
  description: [
    'Make an ephemeral (scratch) fact durable: it stops expiring, appears in default queries and is',
    'checked for conflicts with the rest of the team\'s memory.',
    '',
    'Call this when an ephemeral fact you or a teammate committed turned out to matter. Ephemeral',
    'facts also promote themselves after being returned by two queries. Calling it on a durable fact',
    'changes nothing.',
  ].join('\n'),
  input: PromoteInput,
  output: PromoteOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  availableTo: forMembers({ write: true }),
  handler: (args, ctx) => promoteFact(factServices(ctx), memberOf(ctx), args.fact_id),
});

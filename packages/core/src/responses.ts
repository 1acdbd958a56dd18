/**
 * What the REST routes and the MCP tools answer with: the zod output schemas they declare, in one
 * module that imports nothing of Engram's at run time but the vocabulary of the drizzle schema.
 * Browser code (the dashboard) takes its types from here with `import type`, so it checks against
 * the server's contract without bundling or type-checking the server (`@engram/core/responses`).
 */
import { CONFLICT_KINDS, DURABILITIES, FACT_TYPES, MEMBER_ROLES, RESOLUTION_TYPES, VERIFICATION_STATUSES } from '@engram/db/schema';
import { z } from 'zod';

/** A citation as it is shown: with a link to the file at its commit on a known forge. */
export const ShownCitation = z.object({
  path: z.string(),
  start_line: z.number().int().optional(),
  end_line: z.number().int().optional(),
  commit: z.string().optional(),
  repo: z.string().optional(),
  url: z.string().optional().describe('The cited lines on the forge (GitHub, GitLab, Bitbucket), at the cited commit.'),
});
export type ShownCitation = z.infer<typeof ShownCitation>;

/** Who stands behind a fact, for people: the member's display name beside the agent id. */
export const MemberName = z
  .string()
  .nullable()
  .describe('Display name of the member whose agent committed the fact (null in anonymous mode or when the member has no name).');

// The dashboard (SPEC §7): the knowledge base, expiring facts, the timeline, agent activity.

/** A fact as the knowledge base shows it. */
export const KnowledgeFact = z.object({
  id: z.string(),
  lineage_id: z.string(),
  content: z.string(),
  scope: z.string(),
  agent_id: z.string(),
  member: MemberName,
  fact_type: z.enum(FACT_TYPES),
  confidence: z.number(),
  committed_at: z.string(),
  valid_until: z.string().nullable(),
  expires_at: z.string().nullable(),
  durability: z.enum(DURABILITIES),
  verified: z.boolean().describe('The fact has provenance.'),
  provenance: z.string().nullable(),
  corroboration: z.number().int().describe('Other agents that independently stated the same fact.'),
  has_open_conflict: z.boolean(),
  citations: z.array(ShownCitation).optional().describe('The code the fact cites, with links to it on a known forge.'),
  verified_at: z.string().optional().describe('When someone last re-read the cited code and found the fact still true (absent: never).'),
});
export type KnowledgeFact = z.infer<typeof KnowledgeFact>;

/** A page of the knowledge base (`GET /api/v1/facts`). */
export const FactListOutput = z.object({ facts: z.array(KnowledgeFact), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export type FactListOutput = z.infer<typeof FactListOutput>;

/** Facts whose TTL runs out soon (`GET /api/v1/facts/expiring`). */
export const ExpiringOutput = z.object({ within_days: z.number().int(), facts: z.array(KnowledgeFact) });
export type ExpiringOutput = z.infer<typeof ExpiringOutput>;

/** One validity window of a fact, for the timeline. */
export const TimelineWindow = z.object({
  id: z.string(),
  lineage_id: z.string(),
  scope: z.string(),
  content: z.string(),
  agent_id: z.string(),
  member: MemberName,
  valid_from: z.string().describe('When the fact was committed.'),
  valid_until: z.string().nullable().describe('Null while current.'),
  closed_by: z
    .enum(['superseded', 'deleted', 'expired', 'detector', 'resolution'])
    .nullable()
    .describe('Why the window closed: a later version of the lineage, a delete, its TTL, a detector settlement, or a conflict resolution.'),
  citations: z.array(ShownCitation).optional().describe('The code the fact cites.'),
});
export type TimelineWindow = z.infer<typeof TimelineWindow>;

export const TimelineOutput = z.object({
  since: z.string().nullable(),
  until: z.string().nullable(),
  facts: z.array(TimelineWindow).describe('By scope, then by start.'),
  truncated: z.boolean().describe('More windows matched than `limit`; the most recently opened were kept.'),
});
export type TimelineOutput = z.infer<typeof TimelineOutput>;

/** What an agent did in the activity window. */
export const AgentActivity = z.object({
  agent_id: z.string(),
  member: MemberName.describe('The member(s) behind the agent; null when anonymous or unnamed.'),
  commits: z.number().int().describe('Facts committed in the window.'),
  commits_per_day: z.number(),
  conflicts: z.number().int().describe('Of those, facts that are part of a conflict (any status).'),
  conflict_rate: z.number().describe('conflicts / commits, 0 to 1.'),
  verified: z.number().int().describe('Of those, facts with provenance.'),
  verification_rate: z.number().describe('verified / commits, 0 to 1.'),
  last_commit_at: z.string(),
});
export type AgentActivity = z.infer<typeof AgentActivity>;

export const ActivityOutput = z.object({ days: z.number().int(), since: z.string(), agents: z.array(AgentActivity) });
export type ActivityOutput = z.infer<typeof ActivityOutput>;

// Conflicts and their resolution (`engram_conflicts`, `engram_resolve`, `/api/v1/conflicts`).

/** A fact of a conflict. */
export const ConflictFact = z.object({
  fact_id: z.string(),
  lineage_id: z.string(),
  content: z.string(),
  scope: z.string(),
  agent_id: z.string(),
  member: MemberName,
  committed_at: z.string(),
  valid_until: z.string().nullable().describe('Set when the fact is no longer current.'),
  citations: z.array(ShownCitation).optional().describe('The code the fact cites: re-read it to answer a stale question.'),
});
export type ConflictFact = z.infer<typeof ConflictFact>;

/** Most facts listed per conflict. */
export const MAX_LISTED_FACTS = 25;

/** A conflict as it is listed. */
export const ConflictItem = z.object({
  conflict_id: z.string(),
  kind: z.enum(CONFLICT_KINDS),
  severity: z.enum(['high', 'medium', 'low']),
  status: z.enum(['open', 'resolved', 'dismissed']),
  question: z.string().describe('The choice that settles it: which value is right now, in the order of `facts`, so the answer names the fact to keep.'),
  explanation: z.string().nullable(),
  detected_by: z.string().describe('Which detector raised it.'),
  detected_at: z.string(),
  resolved_at: z.string().nullable().describe('When it was settled (null while open).'),
  resolution_type: z
    .string()
    .nullable()
    .describe('How it was settled: winner, merge, dismissed, or detector (the detector closed the older fact because a later one replaces it explicitly; engram_resolve with another winner or "dismissed" undoes that).'),
  resolution: z.string().nullable(),
  winning_fact_id: z.string().nullable(),
  facts: z.array(ConflictFact).describe(`The facts involved, oldest first (the newest ${MAX_LISTED_FACTS} when there are more).`),
  facts_omitted: z.number().int().describe('How many older facts of this conflict are not listed.'),
});
export type ConflictItem = z.infer<typeof ConflictItem>;

export const ConflictsOutput = z.object({
  total: z.number().int(),
  groups: z.array(z.object({ scope: z.string(), conflicts: z.array(ConflictItem) })),
  next_prompt: z.string().optional(),
});
export type ConflictsOutput = z.infer<typeof ConflictsOutput>;

/** How a person settles a conflict ("detector" is how the detector records its own settlements). */
export const PERSON_RESOLUTIONS = RESOLUTION_TYPES.filter((t): t is Exclude<(typeof RESOLUTION_TYPES)[number], 'detector'> => t !== 'detector');

/** What a resolution did (or, when already resolved this way, had done). */
export const ResolveOutput = z.object({
  conflict_id: z.string(),
  status: z.enum(['resolved', 'dismissed']),
  resolution_type: z.enum(PERSON_RESOLUTIONS),
  winning_fact_id: z.string().nullable().describe('The fact kept (winner) or merged into (merge); null when dismissed.'),
  closed_fact_ids: z.array(z.string()).describe('Facts whose validity window the resolution closed. They stay in history (engram_query include_history).'),
  already_resolved: z.boolean().describe('True: the conflict had already been settled exactly this way; nothing changed.'),
  resolution: z.string(),
  resolved_at: z.string(),
  settled_conflicts: z.number().int().describe('Other open conflicts this settled too (fewer than two of their facts are still current).'),
  note: z.string(),
});
export type ResolveOutput = z.infer<typeof ResolveOutput>;

// The dashboard session, joining, and the OAuth consent page.

/** What the dashboard learns about its session (`POST` and `GET /api/v1/session`). */
export const SessionView = z.object({
  member: z.object({ id: z.string(), display_name: z.string().nullable(), role: z.enum(MEMBER_ROLES) }),
  workspace: z.object({ id: z.string(), name: z.string(), engram_id: z.string() }),
  csrf_token: z.string().describe('Send it as the x-csrf-token header on every POST, PUT, PATCH and DELETE made with the cookie.'),
  expires_at: z.string(),
});
export type SessionView = z.infer<typeof SessionView>;

/** What joining with an invite key answers (`engram_join`, `POST /api/v1/join`). */
export const JoinOutput = z.object({
  status: z.literal('joined'),
  engram_id: z.string(),
  workspace_id: z.string(),
  workspace_name: z.string(),
  member_id: z.string(),
  role: z.enum(MEMBER_ROLES),
  token: z.string().describe('Your own bearer token. Shown once.'),
  mcp_url: z.string(),
  next_prompt: z.string(),
});
export type JoinOutput = z.infer<typeof JoinOutput>;

/** What the consent page shows (`GET /api/v1/oauth/authorization`). */
export const AuthorizationView = z.object({
  client: z.object({
    client_id: z.string(),
    name: z.string().nullable(),
    uri: z.string().nullable(),
    redirect_uri: z.string(),
    redirect_host: z.string(),
    registration: z.enum(['dynamic', 'metadata_document']).describe('dynamic: the client registered itself and named itself (unverified).'),
  }),
  resource: z.string(),
  expires_at: z.string(),
  session: SessionView.nullable().describe('The dashboard session this browser holds, if any.'),
});
export type AuthorizationView = z.infer<typeof AuthorizationView>;

/** The consent page's decision, made (`POST /api/v1/oauth/authorization`). */
export const AuthorizationDecided = z.object({ redirect_to: z.string().describe('Send the browser here: back to the app.') });
export type AuthorizationDecided = z.infer<typeof AuthorizationDecided>;

// Verifications of a fact's cited code.

/** A verification as the dashboard shows it. */
export const VerificationItem = z.object({
  id: z.string(),
  status: z.enum(VERIFICATION_STATUSES),
  evidence: z.string().nullable(),
  commit: z.string().nullable(),
  source: z.enum(['agent', 'check']).describe('agent: engram_verify. check: engram check --report.'),
  member: z.string().nullable().describe('The member whose token recorded it (null in anonymous mode).'),
  agent_id: z.string().nullable(),
  created_at: z.string(),
});
export type VerificationItem = z.infer<typeof VerificationItem>;

export const VerificationsOutput = z.object({
  fact_id: z.string(),
  verified_at: z.string().nullable(),
  verifications: z.array(VerificationItem).describe('Newest first.'),
});
export type VerificationsOutput = z.infer<typeof VerificationsOutput>;

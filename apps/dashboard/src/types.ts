/**
 * Shapes of the `/api/v1` responses the dashboard reads. Where a route or tool declares a zod
 * output schema, the type is inferred from it (`@engram/core/responses`, imported as types only,
 * so nothing of the server is bundled): the dashboard is checked against the server's contract.
 * The rest mirror routes that declare no response schema yet (detection status, workspace,
 * members, invites, tokens). The dashboard treats unknown extra fields as harmless and optional
 * ones as possibly absent.
 */
import type {
  ActivityOutput,
  AgentActivity as AgentActivityOutput,
  AuthorizationDecided,
  AuthorizationView,
  ConflictFact as ConflictFactOutput,
  ConflictItem,
  ConflictsOutput,
  ExpiringOutput,
  FactListOutput,
  JoinOutput,
  KnowledgeFact,
  ResolveOutput,
  SessionView,
  ShownCitation,
  TimelineOutput,
  TimelineWindow,
  VerificationItem,
} from '@engram/core/responses';

/** `GET|POST /api/v1/session`. */
export type Session = SessionView;
export type Role = Session['member']['role'];

/** A current (or, with `as_of`, then-current) fact of the knowledge base. */
export type Fact = KnowledgeFact;
export type FactType = Fact['fact_type'];

/** A place in the code a fact cites; `url` when its repository is on GitHub, GitLab or Bitbucket. */
export type Citation = ShownCitation;

/** `GET /api/v1/facts/:id/verifications`: one re-reading of a fact's cited code. */
export type Verification = VerificationItem;

export type FactsResponse = FactListOutput;
export type ExpiringResponse = ExpiringOutput;

/** One validity window of the timeline (`valid_until` null: still current). */
export type TimelineFact = TimelineWindow;
export type TimelineResponse = TimelineOutput;

export type AgentActivity = AgentActivityOutput;
export type ActivityResponse = ActivityOutput;

export type Conflict = ConflictItem;
export type ConflictFact = ConflictFactOutput;
export type ConflictKind = Conflict['kind'];
export type Severity = Conflict['severity'];
export type ConflictStatus = Conflict['status'];
export type ConflictsResponse = ConflictsOutput;

export type ResolveResponse = ResolveOutput;
export type ResolutionType = ResolveResponse['resolution_type'];

export interface DetectionRun {
  run_id: string;
  status: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  jobs_coalesced: number;
  facts_read: number;
  conflicts_raised: number;
  facts_retired: number;
  llm_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  error: string | null;
  narrative?: string | null;
  story_facts?: number | null;
  batches?: number | null;
  failed_batches?: number | null;
}

export interface DetectionStatus {
  llm_enabled: boolean;
  model: string | null;
  narrative: string;
  narrative_state?: 'off' | 'on' | 'paused';
  tokens_today?: number;
  daily_token_budget?: number | null;
  pending_jobs: number;
  running_jobs: number;
  failed_jobs: number;
  /** Due over a minute ago with no worker taking them, or held by a run whose lease lapsed (newer servers). */
  stuck_jobs?: number;
  /** Pending again after a failed run, waiting out their backoff. */
  retrying_jobs?: number;
  stuck_since?: string | null;
  stalled_runs?: number;
  /** The newest error of a failed or retrying job. */
  last_error?: string | null;
  /** What to do about failed or stuck work; null when nothing is wrong. */
  note?: string | null;
  last_run_at: string | null;
  runs_total: number;
  tokens: { prompt: number; completion: number };
  recent_runs: DetectionRun[];
}

export interface Workspace {
  workspace_id: string;
  engram_id: string;
  name: string;
  members: number;
  created_at: string;
}

export interface Member {
  member_id: string;
  role: Role;
  display_name: string | null;
  created_at: string;
  removed_at: string | null;
  active_tokens: number;
  you: boolean;
}

export interface Invite {
  invite_id: string;
  label: string | null;
  role: Role;
  uses_remaining: number;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
  status: 'active' | 'revoked' | 'expired' | 'used_up';
}

export interface CreatedInvite extends Invite {
  invite_key: string;
  join_instructions?: string;
}

export interface Token {
  token_id: string;
  member_id: string;
  label: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  current: boolean;
}

/** `POST /api/v1/join`: the tool's answer, with the client setup the route adds. */
export type Joined = JoinOutput & { client_setup?: string };

/** `GET /api/v1/oauth/authorization`: an MCP client's pending request to connect, sealed by the server. */
export type OAuthAuthorization = AuthorizationView;

/** `POST /api/v1/oauth/authorization`: deny, or allow as the session's member, a pasted token's member, or a new member. */
export type OAuthDecision = { request: string } & (
  | { decision: 'deny' }
  | { decision: 'allow'; token?: string }
  | { decision: 'allow'; invite_key: string; display_name?: string }
);

export type OAuthDecided = AuthorizationDecided;

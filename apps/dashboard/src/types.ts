/**
 * Shapes of the `/api/v1` responses the dashboard reads. They mirror the server's contract; the
 * dashboard treats unknown extra fields as harmless and optional ones as possibly absent.
 */

export type Role = 'owner' | 'member' | 'reader';

/** `GET|POST /api/v1/session`. */
export interface Session {
  member: { id: string; display_name: string | null; role: Role };
  workspace: { id: string; name: string; engram_id?: string };
  csrf_token: string;
}

export type FactType = 'observation' | 'inference' | 'decision';

/** A place in the code a fact cites; `url` when its repository is on GitHub, GitLab or Bitbucket. */
export interface Citation {
  path: string;
  start_line?: number;
  end_line?: number;
  commit?: string;
  repo?: string;
  url?: string;
}

/** `GET /api/v1/facts/:id/verifications`: one re-reading of a fact's cited code. */
export interface Verification {
  id: string;
  status: 'still_true' | 'outdated' | 'unsure';
  evidence: string | null;
  commit: string | null;
  source: 'agent' | 'check';
  member: string | null;
  agent_id: string | null;
  created_at: string;
}

/** A current (or, with `as_of`, then-current) fact of the knowledge base. */
export interface Fact {
  id: string;
  lineage_id: string;
  content: string;
  scope: string;
  agent_id: string;
  /** The member behind the agent (null: anonymous mode, or a member without a name). */
  member: string | null;
  fact_type: FactType;
  confidence: number;
  committed_at: string;
  valid_until: string | null;
  expires_at: string | null;
  durability: 'durable' | 'ephemeral';
  verified: boolean;
  corroboration: number;
  has_open_conflict: boolean;
  citations?: Citation[];
  verified_at?: string | null;
}

export interface FactsResponse {
  facts: Fact[];
  total: number;
}

export interface ExpiringResponse {
  facts: Fact[];
}

/** One validity window of the timeline (`valid_until` null: still current). */
export interface TimelineFact {
  id: string;
  lineage_id: string;
  scope: string;
  content: string;
  agent_id: string;
  /** The member behind the agent (null: anonymous mode, or a member without a name). */
  member: string | null;
  valid_from: string;
  valid_until: string | null;
  closed_by: string | null;
}

export interface TimelineResponse {
  facts: TimelineFact[];
  /** More windows matched than the limit; the most recently opened were kept. */
  truncated?: boolean;
}

export interface AgentActivity {
  agent_id: string;
  /** The member behind the agent (null: anonymous mode, or a member without a name). */
  member: string | null;
  commits: number;
  commits_per_day: number;
  conflicts: number;
  conflict_rate: number;
  verified: number;
  verification_rate: number;
  last_commit_at: string | null;
}

export interface ActivityResponse {
  days: number;
  agents: AgentActivity[];
}

export type ConflictKind = 'reversal' | 'ambiguity' | 'stale' | 'value_mismatch' | 'cross_scope' | 'probable_update';
export type Severity = 'high' | 'medium' | 'low';
export type ConflictStatus = 'open' | 'resolved' | 'dismissed';

export interface ConflictFact {
  fact_id: string;
  lineage_id: string;
  content: string;
  scope: string;
  agent_id: string;
  /** The member behind the agent (null: anonymous mode, or a member without a name). */
  member: string | null;
  committed_at: string;
  valid_until: string | null;
  citations?: Citation[];
}

export interface Conflict {
  conflict_id: string;
  kind: ConflictKind;
  severity: Severity;
  status: ConflictStatus;
  question: string;
  explanation: string | null;
  detected_by: string;
  detected_at: string;
  resolution_type: string | null;
  resolution: string | null;
  winning_fact_id: string | null;
  facts: ConflictFact[];
  facts_omitted: number;
}

export interface ConflictsResponse {
  total: number;
  groups: { scope: string; conflicts: Conflict[] }[];
}

export type ResolutionType = 'winner' | 'merge' | 'dismissed';

export interface ResolveResponse {
  conflict_id: string;
  status: ConflictStatus;
  resolution_type: ResolutionType;
  winning_fact_id: string | null;
  closed_fact_ids: string[];
  already_resolved: boolean;
  /** Other open conflicts this settled too. */
  settled_conflicts?: number;
}

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

/** `POST /api/v1/join`. */
export interface Joined {
  engram_id: string;
  workspace_id: string;
  workspace_name: string;
  member_id: string;
  role: Role;
  token: string;
  mcp_url: string;
  client_setup?: string;
}

/** `GET /api/v1/oauth/authorization`: an MCP client's pending request to connect, sealed by the server. */
export interface OAuthAuthorization {
  client: {
    client_id: string;
    name: string;
    uri: string | null;
    redirect_uri: string;
    /** Where the browser goes after the decision (allow or deny). */
    redirect_host: string;
    /** `dynamic`: the client registered itself, so its name is its own claim; `metadata_document`: read from its client_id URL. */
    registration: 'metadata_document' | 'dynamic';
  };
  resource: string;
  expires_at: string;
  /** The dashboard session this browser already has, if any. */
  session: Session | null;
}

/** `POST /api/v1/oauth/authorization`: deny, or allow as the session's member, a pasted token's member, or a new member. */
export type OAuthDecision = { request: string } & (
  | { decision: 'deny' }
  | { decision: 'allow'; token?: string }
  | { decision: 'allow'; invite_key: string; display_name?: string }
);

export interface OAuthDecided {
  /** The client's redirect URI with the code (or the denial) attached. */
  redirect_to: string;
}

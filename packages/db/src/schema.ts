/**
 * The one drizzle schema of Engram (SPEC §4). Every table carries `workspace_id`; time is the only
 * versioning primitive: a fact is current while `valid_until` is null.
 *
 * Changing this file? Run `npm run db:generate -- --name=<what-changed>` and commit the SQL under
 * `drizzle/`; migrations are applied at start and by `engram migrate`.
 */
import { isNull, sql, type SQL } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
  halfvec,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';

/** Dimension of every stored embedding: the local embedder and OpenAI (`dimensions: 512`) agree on it. */
export const EMBEDDING_DIMENSIONS = 512;
/**
 * Embeddings are stored as pgvector's half-precision `halfvec`: 1 KB instead of 2 KB per fact, so a
 * fact row stays inline (no TOAST fetch per vector read) and the HNSW index is half the size;
 * searches and inserts got faster, and cosine similarity is unchanged to three decimals
 * (docs/performance/2026-12-02-constants.md).
 */
export const EMBEDDING_SQL_TYPE = 'halfvec';

export const MEMBER_ROLES = ['owner', 'member', 'reader'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const FACT_TYPES = ['observation', 'inference', 'decision'] as const;
export const MEMORY_OPS = ['add', 'update', 'delete', 'none'] as const;
export const DURABILITIES = ['durable', 'ephemeral'] as const;
export const FACT_SOURCES = ['commit', 'import'] as const;

export const CONFLICT_KINDS = ['reversal', 'ambiguity', 'stale', 'value_mismatch', 'cross_scope', 'probable_update'] as const;
export const CONFLICT_DETECTORS = [
  'narrative_llm',
  'tier0_entity',
  'tier2_numeric',
  'tier2b_cross_scope',
  'narrative_rules',
  // A stale question raised by `engram check --report` (cited code changed) or by `engram_verify` (outdated).
  'citation_check',
  'agent_verify',
] as const;
export const SEVERITIES = ['high', 'medium', 'low'] as const;
export const CONFLICT_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export const RESOLUTION_TYPES = ['winner', 'merge', 'dismissed', 'detector'] as const;

/** What an agent (or `engram check`) found when it re-read a fact's cited code. */
export const VERIFICATION_STATUSES = ['still_true', 'outdated', 'unsure'] as const;
/** Who recorded a verification: an agent through `engram_verify`, or `engram check --report`. */
export const VERIFICATION_SOURCES = ['agent', 'check'] as const;

export const JOB_STATUSES = ['pending', 'running', 'done', 'failed'] as const;
export const RUN_STATUSES = ['running', 'succeeded', 'failed'] as const;

const tsvector = customType<{ data: string }>({
  dataType: () => 'tsvector',
});

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const tstz = (name: string) => timestamp(name, { withTimezone: true });

/** Quotes a list of literals for a CHECK constraint. */
/** A check constraint that `column` holds one of `values` (drizzle has no builder for a list check). */
const oneOfCheck = (name: string, column: AnyPgColumn, values: readonly string[]) =>
  check(name, sql`${column} in (${sql.raw(values.map((v) => `'${v}'`).join(', '))})`);

/** Workspace settings, stored as jsonb; every key optional, defaults applied by the domain. */
export interface WorkspaceSettings {
  anonymous_mode?: boolean;
  anon_agents?: boolean;
  commits_per_agent_per_hour?: number;
  requests_per_token_per_minute?: number;
  detective_daily_token_budget?: number;
}

export const workspaces = pgTable('workspaces', {
  id: uuid('id').primaryKey().defaultRandom(),
  engramId: text('engram_id').notNull().unique(),
  name: text('name').notNull(),
  settings: jsonb('settings').$type<WorkspaceSettings>().notNull().default({}),
  createdAt: createdAt(),
  deletedAt: tstz('deleted_at'),
});

export const members = pgTable(
  'members',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    role: text('role', { enum: MEMBER_ROLES }).notNull(),
    /** How people see the member beside their agents' facts; unique among live members, ignoring case. */
    displayName: text('display_name'),
    createdAt: createdAt(),
    removedAt: tstz('removed_at'),
  },
  (t) => [
    unique('members_workspace_id_id_key').on(t.workspaceId, t.id),
    oneOfCheck('members_role_check', t.role, MEMBER_ROLES),
    // Two live members never share a name (case and surrounding spaces aside): a name beside a fact
    // must say whose it is. A removed member's name is free again (they may rejoin under it).
    uniqueIndex('members_display_name_key')
      .on(t.workspaceId, sql`lower(btrim(${t.displayName}))`)
      .where(sql`${t.removedAt} is null and ${t.displayName} is not null`),
  ],
);

export const tokens = pgTable(
  'tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id').notNull(),
    memberId: uuid('member_id').notNull(),
    /** SHA-256 (hex) of the bearer token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    label: text('label'),
    createdAt: createdAt(),
    lastUsedAt: tstz('last_used_at'),
    revokedAt: tstz('revoked_at'),
    /**
     * OAuth grants (SPEC §3): a token issued by the authorization server to a client acting for
     * the member. The row is the grant: its bearer hash is the current access token (expiring at
     * `expires_at`), rotated with its refresh token; revoking the row ends both. Null for tokens
     * an owner issued, which do not expire.
     */
    clientId: text('client_id'),
    /** The resource (RFC 8707) the grant's tokens are for: this server's MCP endpoint. */
    resource: text('resource'),
    expiresAt: tstz('expires_at'),
    /** SHA-256 (hex) of the current refresh token; the token itself is never stored. */
    refreshHash: text('refresh_hash'),
    /** The refresh token it replaced: presenting that one again means it leaked, and ends the grant. */
    previousRefreshHash: text('previous_refresh_hash'),
    refreshExpiresAt: tstz('refresh_expires_at'),
  },
  (t) => [
    uniqueIndex('tokens_token_hash_key').on(t.tokenHash),
    uniqueIndex('tokens_refresh_hash_key').on(t.refreshHash),
    index('tokens_previous_refresh_hash_idx').on(t.previousRefreshHash),
    index('tokens_workspace_member_idx').on(t.workspaceId, t.memberId),
    // Composite key: a token can only belong to a member of its own workspace.
    foreignKey({
      name: 'tokens_member_fk',
      columns: [t.workspaceId, t.memberId],
      foreignColumns: [members.workspaceId, members.id],
    }).onDelete('cascade'),
  ],
);

/**
 * OAuth clients that registered themselves (RFC 7591 Dynamic Client Registration). Clients that
 * identify by a Client ID Metadata Document URL are not stored: their document is fetched. Not a
 * workspace's data: a client is bound to a member only by the grants it obtains.
 */
export const oauthClients = pgTable('oauth_clients', {
  clientId: text('client_id').primaryKey(),
  /** SHA-256 (hex) of the client secret, for clients that asked for one. */
  secretHash: text('secret_hash'),
  clientName: text('client_name'),
  clientUri: text('client_uri'),
  redirectUris: text('redirect_uris').array().notNull(),
  tokenEndpointAuthMethod: text('token_endpoint_auth_method').notNull(),
  createdAt: createdAt(),
});

/**
 * Authorization codes (single use, minutes long): what a member consented to, waiting for the
 * client to exchange it with its PKCE verifier. Only the code's hash is stored.
 */
export const oauthCodes = pgTable(
  'oauth_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    memberId: uuid('member_id').notNull(),
    clientId: text('client_id').notNull(),
    clientName: text('client_name'),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    resource: text('resource').notNull(),
    scope: text('scope'),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at').notNull(),
    usedAt: tstz('used_at'),
    /** The grant the code was exchanged for: a second exchange of the same code revokes it. */
    tokenId: uuid('token_id'),
  },
  (t) => [
    index('oauth_codes_workspace_expires_idx').on(t.workspaceId, t.expiresAt),
    foreignKey({
      name: 'oauth_codes_member_fk',
      columns: [t.workspaceId, t.memberId],
      foreignColumns: [members.workspaceId, members.id],
    }).onDelete('cascade'),
  ],
);

/**
 * Dashboard sign-ins (SPEC §7): a member token exchanged for an HttpOnly session cookie. Only a
 * hash of the cookie's session id is stored. A session lives no longer than its token: revoking the
 * token (or removing the member, deleting the workspace) ends it.
 */
export const dashboardSessions = pgTable(
  'dashboard_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** SHA-256 (hex) of the session id the cookie carries; the id itself is never stored. */
    sessionHash: text('session_hash').notNull(),
    /** The member token the session was opened with. */
    tokenId: uuid('token_id')
      .notNull()
      .references(() => tokens.id, { onDelete: 'cascade' }),
    /**
     * Echoed in `x-csrf-token` by cookie-authenticated writes. Kept readable so a reloaded page can
     * ask for it again; on its own (without the cookie) it authenticates nothing.
     */
    csrfToken: text('csrf_token').notNull(),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('dashboard_sessions_session_hash_key').on(t.sessionHash),
    index('dashboard_sessions_token_idx').on(t.tokenId),
    index('dashboard_sessions_workspace_expires_idx').on(t.workspaceId, t.expiresAt),
  ],
);

export const invites = pgTable(
  'invites',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    role: text('role', { enum: MEMBER_ROLES }).notNull(),
    /** What the owner called it ("backend team", "Sam's laptop"), to tell invites apart in lists. */
    label: text('label'),
    createdByMemberId: uuid('created_by_member_id'),
    usesRemaining: integer('uses_remaining').notNull(),
    expiresAt: tstz('expires_at').notNull(),
    revokedAt: tstz('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('invites_workspace_idx').on(t.workspaceId),
    check('invites_uses_remaining_check', sql`${t.usesRemaining} >= 0`),
    oneOfCheck('invites_role_check', t.role, MEMBER_ROLES),
  ],
);

export const agents = pgTable(
  'agents',
  {
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    agentId: text('agent_id').notNull(),
    memberId: uuid('member_id'),
    label: text('label'),
    firstSeenAt: tstz('first_seen_at').notNull().defaultNow(),
    lastSeenAt: tstz('last_seen_at').notNull().defaultNow(),
    totalCommits: integer('total_commits').notNull().default(0),
    flaggedCommits: integer('flagged_commits').notNull().default(0),
  },
  (t) => [primaryKey({ name: 'agents_pkey', columns: [t.workspaceId, t.agentId] })],
);

/**
 * What a fact says, read at commit (see @engram/core's language module) and stored with it, so
 * detection reads no text: value claims, statements, a deletion request, dependencies, and every
 * concept the fact mentions.
 */
export type FactEntity =
  | {
      type: 'claim';
      /** The kind of value (duration, count, version, person, technology, ...). */
      kind: string;
      /** What the value measures ("timeout", "retention", "owner"), or '' when no word says. */
      measure: string;
      /** What the claim is about: its clause's content words and named components. */
      anchors: string[];
      /** Adjectives qualifying those ("public", "internal"): they tell two things apart only against other adjectives. */
      qualities?: string[];
      /** Named components of its clause (`billing-api`, `pg-risk-01`, `MAX_RETRIES`). */
      components: string[];
      /** Canonical values (numbers in their family's base unit), and how each reads in the fact. */
      values: string[];
      display: string[];
      /** Values the fact names as replaced by an explicit construction ("from 3 to 5": 3). */
      previous?: string[];
      env?: string;
      stat?: string;
      /** The value bounds what is stated ("at least 2", "up to 8 times"). */
      bound?: 'min' | 'max';
      /** The setting is a minimum or a maximum ("max connections", "minReplicas"). */
      extreme?: 'min' | 'max';
      /** Whom the value is counted for ("per API key": key). */
      per?: string;
      /** A noun that narrows the measure ("session" of "session timeout"). */
      modifier?: string;
      /** Of two components, the one called ("from A to B", "A's calls to B"): B. */
      toward?: string;
      /** A time before or after the event it is counted from ("2 hours before the deadline"). */
      offset?: 'before' | 'after';
      /** The window a figure is measured over, in seconds ("99.9% over rolling 30 days"). */
      window?: string;
      /** A count's counted noun, a version's product. */
      of?: string;
      /** The setting's key the value is written with ("`POOL_MAX=20`": pool_max). */
      setting?: string;
      /**
       * The clause is a plan or work in progress, or holds under a condition, or reports what happened
       * on a date ("4.8.0 reached 100% on Nov 8"): it states no current value.
       */
      mode?: 'plan' | 'if' | 'event';
      /** The clause announces a change or corrects the record without naming the old value. */
      cue?: 'change' | 'correction';
      negated?: boolean;
      /** The value adds to others rather than replacing them ("maintains it too"). */
      additive?: boolean;
      /** The clause says the value did not change ("is still 40", "unchanged at 30 s", "stays 12"). */
      kept?: boolean;
      clause: number;
    }
  | {
      type: 'statement';
      positive: boolean;
      /** The act, by class ("rely on" and "use" are one). */
      verb: string;
      subject: string[];
      object: string[];
      /** The phrase it is about: the object phrase, a passive's subject, or what a negation governs ("no cross-tenant queries"). */
      target: string[];
      /** Where a denial holds ("in any TypeScript service"): an assertion elsewhere is not denied. */
      where?: string[];
      /** Products it is done with ("applied with Flyway", "deployed via Argo CD"): an assertion that they are used. */
      uses?: string[];
      /** The environment it is said of ("staging: no HPA"). */
      env?: string;
      cue?: 'change' | 'correction';
      clause: number;
    }
  | { type: 'deletion'; target: string[] }
  | { type: 'dependency'; target: string[]; ends?: boolean }
  | {
      type: 'mentions';
      /** Every concept the fact names (anchors, components and their words, values). */
      value: string[];
      /** What its clauses announcing a change or a correction name (not plans). */
      changed?: string[];
      /** What its clauses saying something ended or someone left name ("the freeze ended", "Ana left"). */
      ended?: string[];
      /** Named things it says are gone ("search-v1 was decommissioned", "dropped left-pad"): facts using them go stale. */
      gone?: string[];
      /** Some clause of it is a plan, work in progress or a condition: it may not state what holds now. */
      hedged?: true;
      /** Some clause of it is a plan or work in progress (not only a condition, which is a rule that holds now). */
      planned?: true;
      /** A main clause of it announces a change or a correction ("X is now Y"), whatever that clause states. */
      announces?: true;
    };

/** A place in the code a fact was verified against (validated by @engram/core's Citation schema). */
export interface FactCitation {
  /** Relative to the repository root, `/`-separated. */
  path: string;
  start_line?: number;
  end_line?: number;
  /** The commit (sha) the agent read. */
  commit?: string;
  /** The repository's remote URL. */
  repo?: string;
}

export const facts = pgTable(
  'facts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    lineageId: uuid('lineage_id').notNull(),
    content: text('content').notNull(),
    contentHash: text('content_hash').notNull(),
    scope: text('scope').notNull(),
    confidence: doublePrecision('confidence').notNull(),
    factType: text('fact_type', { enum: FACT_TYPES }).notNull().default('observation'),
    agentId: text('agent_id').notNull(),
    memberId: uuid('member_id'),
    provenance: text('provenance'),
    entities: jsonb('entities').$type<FactEntity[]>().notNull().default([]),
    /**
     * Hash of the fact's stated values (its entities, canonically ordered). Two facts can only
     * corroborate each other when they state the same values, so the near-duplicate search on
     * commit looks only at current facts of the scope with the same signature.
     */
    entitySignature: text('entity_signature'),
    /**
     * Keys under which the detector finds facts about the same slots (`rate:max`, `technology:cache`;
     * see matchKeysOf in @engram/core).
     */
    matchKeys: text('match_keys').array().notNull().default(sql`'{}'::text[]`),
    /** Version of the entity extractor that produced `entities` and `match_keys` (older ones are redone). */
    extractorVersion: smallint('extractor_version').notNull().default(0),
    keywords: text('keywords').array().notNull().default(sql`'{}'::text[]`),
    embedding: halfvec('embedding', { dimensions: EMBEDDING_DIMENSIONS }),
    embeddingModel: text('embedding_model'),
    tsv: tsvector('tsv').generatedAlwaysAs((): SQL => sql`to_tsvector('english', ${facts.content})`),
    committedAt: tstz('committed_at').notNull().defaultNow(),
    validFrom: tstz('valid_from').notNull().defaultNow(),
    validUntil: tstz('valid_until'),
    ttlDays: integer('ttl_days'),
    /** When a TTL runs out; the expiry sweep closes `valid_until` at this instant. */
    expiresAt: tstz('expires_at'),
    memoryOp: text('memory_op', { enum: MEMORY_OPS }).notNull().default('add'),
    supersedesFactId: uuid('supersedes_fact_id'),
    durability: text('durability', { enum: DURABILITIES }).notNull().default('durable'),
    queryHits: integer('query_hits').notNull().default(0),
    corroboratingAgents: integer('corroborating_agents').notNull().default(0),
    source: text('source', { enum: FACT_SOURCES }).notNull().default('commit'),
    /** Tombstone: the content was erased on request; the row (and its window) is kept. */
    erasedAt: tstz('erased_at'),
    /** Who closed the window when it was not the fact's own lineage: `detector`, `resolution`, ... */
    retiredBy: text('retired_by'),
    /** The later fact that made this one history (detector settlements); lets a retirement be undone. */
    retiredForFactId: uuid('retired_for_fact_id'),
    /**
     * The code the fact was verified against, null when it cites none. A column, not a table: a
     * fact's citations are written with it (in the one insert statement of a commit) and read with
     * it everywhere it is shown; the only lookup by them is "current facts that cite", indexed below.
     */
    citations: jsonb('citations').$type<FactCitation[]>(),
    /** The last time someone (an agent, or `engram check`) verified the fact still true (see fact_verifications). */
    verifiedAt: tstz('verified_at'),
  },
  (t) => [
    index('facts_workspace_scope_valid_idx').on(t.workspaceId, t.scope, t.validUntil),
    // At most one current fact per content in a scope: dedup holds even for concurrent commits.
    uniqueIndex('facts_current_content_key')
      .on(t.workspaceId, t.scope, t.contentHash)
      .where(isNull(t.validUntil)),
    // Import idempotency: the same content at the same instant is the same fact.
    index('facts_workspace_content_hash_idx').on(t.workspaceId, t.contentHash, t.committedAt),
    index('facts_workspace_lineage_idx').on(t.workspaceId, t.lineageId),
    index('facts_workspace_window_idx').on(t.workspaceId, t.validFrom, t.validUntil),
    index('facts_workspace_committed_idx').on(t.workspaceId, t.committedAt),
    index('facts_expiry_idx')
      .on(t.expiresAt)
      .where(sql`${t.validUntil} is null and ${t.expiresAt} is not null`),
    index('facts_embedding_hnsw_idx').using('hnsw', t.embedding.op('halfvec_cosine_ops')),
    // A small pending list: inserts stay cheap (batched into the index), and a query never scans
    // more than 256 kB of unindexed entries (the default 4 MB made a common term's search slower;
    // no pending list at all, every commit; docs/performance/2026-12-02-constants.md).
    index('facts_tsv_gin_idx').using('gin', t.tsv).with({ fastupdate: true, gin_pending_list_limit: 256 }),
    index('facts_extractor_version_idx').on(t.extractorVersion),
    index('facts_current_signature_idx')
      .on(t.workspaceId, t.scope, t.entitySignature)
      .where(isNull(t.validUntil)),
    // `engram check` reads a workspace's current facts that cite code.
    index('facts_current_cited_idx')
      .on(t.workspaceId)
      .where(sql`${t.citations} is not null and ${t.validUntil} is null`),
    check('facts_confidence_check', sql`${t.confidence} >= 0 and ${t.confidence} <= 1`),
    oneOfCheck('facts_fact_type_check', t.factType, FACT_TYPES),
    oneOfCheck('facts_memory_op_check', t.memoryOp, MEMORY_OPS),
    oneOfCheck('facts_durability_check', t.durability, DURABILITIES),
    oneOfCheck('facts_source_check', t.source, FACT_SOURCES),
    check('facts_window_check', sql`${t.validUntil} is null or ${t.validUntil} >= ${t.validFrom}`),
  ],
);

export const conflicts = pgTable(
  'conflicts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: CONFLICT_KINDS }).notNull(),
    /** A yes/no question a human can answer without reading the raw facts. */
    question: text('question').notNull(),
    explanation: text('explanation'),
    detectedBy: text('detected_by', { enum: CONFLICT_DETECTORS }).notNull(),
    severity: text('severity', { enum: SEVERITIES }).notNull(),
    status: text('status', { enum: CONFLICT_STATUSES }).notNull().default('open'),
    /** Sorted fact ids joined with ','; the same set is never raised twice in a workspace. */
    factSetKey: text('fact_set_key').notNull(),
    detectedAt: tstz('detected_at').notNull().defaultNow(),
    resolvedAt: tstz('resolved_at'),
    resolvedByMemberId: uuid('resolved_by_member_id'),
    resolutionType: text('resolution_type', { enum: RESOLUTION_TYPES }),
    resolution: text('resolution'),
    winningFactId: uuid('winning_fact_id'),
  },
  (t) => [
    unique('conflicts_workspace_fact_set_key').on(t.workspaceId, t.factSetKey),
    index('conflicts_workspace_status_idx').on(t.workspaceId, t.status),
    oneOfCheck('conflicts_kind_check', t.kind, CONFLICT_KINDS),
    oneOfCheck('conflicts_detected_by_check', t.detectedBy, CONFLICT_DETECTORS),
    oneOfCheck('conflicts_severity_check', t.severity, SEVERITIES),
    oneOfCheck('conflicts_status_check', t.status, CONFLICT_STATUSES),
  ],
);

/**
 * Every time someone re-read a fact's cited code and said what they found (`engram_verify`, or
 * `engram check --report`): who, when, at which commit. Kept in full; `facts.verified_at` is the
 * latest `still_true` of them, for ranking.
 */
export const factVerifications = pgTable(
  'fact_verifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    factId: uuid('fact_id')
      .notNull()
      .references(() => facts.id, { onDelete: 'cascade' }),
    status: text('status', { enum: VERIFICATION_STATUSES }).notNull(),
    evidence: text('evidence'),
    /** The commit (sha) of the code that was read. */
    commit: text('commit'),
    source: text('source', { enum: VERIFICATION_SOURCES }).notNull().default('agent'),
    memberId: uuid('member_id'),
    agentId: text('agent_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('fact_verifications_fact_idx').on(t.workspaceId, t.factId, t.createdAt),
    oneOfCheck('fact_verifications_status_check', t.status, VERIFICATION_STATUSES),
    oneOfCheck('fact_verifications_source_check', t.source, VERIFICATION_SOURCES),
  ],
);

/**
 * One row per (fact, match key): the detector's lookup of "the newest facts under this key in this
 * workspace" is an index range scan, however common the key (`facts.match_keys` keeps the same keys
 * on the fact itself).
 *
 * Derived from `facts` and written only with its fact (in the statement that inserts it, or
 * re-extracts it), so it has no foreign keys: a commit writes a row per key (26 for a fact with a
 * few values), and checking two foreign keys per row was a fifth of the commit's statement. A
 * trigger on `facts` (migration 0013) deletes a fact's keys with it, which a workspace's cascade
 * reaches too.
 */
export const factKeys = pgTable(
  'fact_keys',
  {
    workspaceId: uuid('workspace_id').notNull(),
    key: text('key').notNull(),
    committedAt: tstz('committed_at').notNull(),
    factId: uuid('fact_id').notNull(),
  },
  (t) => [
    primaryKey({ name: 'fact_keys_pkey', columns: [t.factId, t.key] }),
    index('fact_keys_lookup_idx').on(t.workspaceId, t.key, t.committedAt.desc()),
  ],
);

export const conflictFacts = pgTable(
  'conflict_facts',
  {
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    conflictId: uuid('conflict_id')
      .notNull()
      .references(() => conflicts.id, { onDelete: 'cascade' }),
    factId: uuid('fact_id')
      .notNull()
      .references(() => facts.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ name: 'conflict_facts_pkey', columns: [t.conflictId, t.factId] }),
    // By fact first: a lookup by conflict (the primary key) never meets an index the row-level
    // security filter on the workspace alone could use instead, and a fact's deletion finds its links.
    index('conflict_facts_fact_idx').on(t.factId, t.workspaceId),
  ],
);

export const detectionFeedback = pgTable(
  'detection_feedback',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    conflictId: uuid('conflict_id')
      .notNull()
      .references(() => conflicts.id, { onDelete: 'cascade' }),
    factSetKey: text('fact_set_key').notNull(),
    feedback: text('feedback', { enum: ['true_positive', 'false_positive'] }).notNull(),
    memberId: uuid('member_id'),
    recordedAt: tstz('recorded_at').notNull().defaultNow(),
  },
  (t) => [index('detection_feedback_workspace_idx').on(t.workspaceId, t.factSetKey)],
);

export const detectionJobs = pgTable(
  'detection_jobs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** The fact whose commit (or import, or promotion) asked for detection. */
    triggerFactId: uuid('trigger_fact_id'),
    reason: text('reason').notNull().default('commit'),
    status: text('status', { enum: JOB_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    runAfter: tstz('run_after').notNull().defaultNow(),
    /** Visibility timeout: a running job whose lock has lapsed is claimed again. */
    lockedUntil: tstz('locked_until'),
    lockedBy: text('locked_by'),
    runId: uuid('run_id'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    finishedAt: tstz('finished_at'),
  },
  (t) => [
    index('detection_jobs_claim_idx').on(t.status, t.runAfter),
    index('detection_jobs_workspace_status_idx').on(t.workspaceId, t.status),
    oneOfCheck('detection_jobs_status_check', t.status, JOB_STATUSES),
  ],
);

export const detectionRuns = pgTable(
  'detection_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    status: text('status', { enum: RUN_STATUSES }).notNull().default('running'),
    startedAt: tstz('started_at').notNull().defaultNow(),
    finishedAt: tstz('finished_at'),
    durationMs: integer('duration_ms'),
    jobsCoalesced: integer('jobs_coalesced').notNull().default(0),
    factsRead: integer('facts_read').notNull().default(0),
    conflictsRaised: integer('conflicts_raised').notNull().default(0),
    factsRetired: integer('facts_retired').notNull().default(0),
    llmCalls: integer('llm_calls').notNull().default(0),
    promptTokens: integer('prompt_tokens').notNull().default(0),
    completionTokens: integer('completion_tokens').notNull().default(0),
    /** Seed of the run's randomness (forgetting curve), so a run can be replayed exactly. */
    seed: text('seed'),
    error: text('error'),
    /** The worker holding the run, and until when; a lapsed lease lets another worker take over. */
    workerId: text('worker_id'),
    leaseUntil: tstz('lease_until'),
    triggerFactIds: uuid('trigger_fact_ids').array().notNull().default(sql`'{}'::uuid[]`),
    /** What the narrative detective did: null (off), `ran`, or why it did not (`paused: ...`). */
    narrative: text('narrative'),
    /** Facts in the story it read, batches sent, and batches that failed after their retries. */
    storyFacts: integer('story_facts').notNull().default(0),
    batches: integer('batches').notNull().default(0),
    failedBatches: integer('failed_batches').notNull().default(0),
  },
  (t) => [
    index('detection_runs_workspace_started_idx').on(t.workspaceId, t.startedAt),
    // One running detection per workspace: the lease that keeps two workers off one workspace.
    uniqueIndex('detection_runs_one_running_key').on(t.workspaceId).where(sql`${t.status} = 'running'`),
    oneOfCheck('detection_runs_status_check', t.status, RUN_STATUSES),
  ],
);

export const scopePermissions = pgTable(
  'scope_permissions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id').notNull(),
    memberId: uuid('member_id').notNull(),
    /** Hierarchical: `payments` covers `payments/webhooks`. */
    scopePrefix: text('scope_prefix').notNull(),
    canRead: boolean('can_read').notNull().default(true),
    canWrite: boolean('can_write').notNull().default(true),
    validFrom: tstz('valid_from'),
    validUntil: tstz('valid_until'),
    createdAt: createdAt(),
  },
  (t) => [
    index('scope_permissions_workspace_member_idx').on(t.workspaceId, t.memberId),
    foreignKey({
      name: 'scope_permissions_member_fk',
      columns: [t.workspaceId, t.memberId],
      foreignColumns: [members.workspaceId, members.id],
    }).onDelete('cascade'),
  ],
);

/**
 * Fixed-window counters behind the rate limits, shared by every instance. UNLOGGED (see the
 * migration): counters are cheap to lose in a crash and not worth a WAL flush per request.
 */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    /** What is limited, e.g. `token:<id>:requests` or `agent:<workspace>:<agent>:commits`. */
    key: text('key').notNull(),
    windowStart: tstz('window_start').notNull(),
    /** Null for limits that are not a workspace's (anonymous callers, by address). */
    workspaceId: uuid('workspace_id'),
    count: integer('count').notNull().default(0),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'rate_limit_counters_pkey', columns: [t.key, t.windowStart] }),
    index('rate_limit_counters_expires_idx').on(t.expiresAt),
  ],
);

export const auditLog = pgTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** Null only for calls that never reached a workspace (e.g. a rejected operator token). */
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    memberId: uuid('member_id'),
    tokenId: uuid('token_id'),
    actor: text('actor', { enum: ['member', 'operator', 'invite', 'anonymous', 'system'] }).notNull(),
    /** Tool name (`engram_commit`) or route (`POST /api/v1/facts/import`). */
    action: text('action').notNull(),
    /** Argument summary: shapes and sizes, never secrets or full content. */
    summary: jsonb('summary').$type<Record<string, unknown>>().notNull().default({}),
    outcome: text('outcome', { enum: ['ok', 'error', 'denied'] }).notNull(),
    errorCode: text('error_code'),
    durationMs: integer('duration_ms').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('audit_log_workspace_created_idx').on(t.workspaceId, t.createdAt)],
);

/** What an idempotency key may guard. */
export const IDEMPOTENT_OPERATIONS = ['commit', 'import'] as const;

/**
 * A retry key (engram_commit's `idempotency_key`, an import's `Idempotency-Key` header): the
 * same key in the same workspace answers as its first use did, and never stores twice.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    operation: text('operation', { enum: IDEMPOTENT_OPERATIONS }).notNull(),
    /** Digest of the request the key was first used with: another request under it is refused. */
    requestHash: text('request_hash').notNull(),
    /** The fact a commit stored (written in the same statement as the fact). */
    factId: uuid('fact_id'),
    /** An import's answer, as first sent. */
    response: jsonb('response').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'idempotency_keys_pkey', columns: [t.workspaceId, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
    oneOfCheck('idempotency_keys_operation_check', t.operation, IDEMPOTENT_OPERATIONS),
  ],
);

CREATE TABLE "agents" (
	"workspace_id" uuid NOT NULL,
	"agent_id" text NOT NULL,
	"member_id" uuid,
	"label" text,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"total_commits" integer DEFAULT 0 NOT NULL,
	"flagged_commits" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "agents_pkey" PRIMARY KEY("workspace_id","agent_id")
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"workspace_id" uuid,
	"member_id" uuid,
	"token_id" uuid,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"summary" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"outcome" text NOT NULL,
	"error_code" text,
	"duration_ms" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conflict_facts" (
	"workspace_id" uuid NOT NULL,
	"conflict_id" uuid NOT NULL,
	"fact_id" uuid NOT NULL,
	CONSTRAINT "conflict_facts_pkey" PRIMARY KEY("conflict_id","fact_id")
);
--> statement-breakpoint
CREATE TABLE "conflicts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"question" text NOT NULL,
	"explanation" text,
	"detected_by" text NOT NULL,
	"severity" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"fact_set_key" text NOT NULL,
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolved_by_member_id" uuid,
	"resolution_type" text,
	"resolution" text,
	"winning_fact_id" uuid,
	CONSTRAINT "conflicts_workspace_fact_set_key" UNIQUE("workspace_id","fact_set_key"),
	CONSTRAINT "conflicts_kind_check" CHECK ("conflicts"."kind" in ('reversal', 'ambiguity', 'stale', 'value_mismatch', 'cross_scope')),
	CONSTRAINT "conflicts_detected_by_check" CHECK ("conflicts"."detected_by" in ('narrative_llm', 'tier0_entity', 'tier2_numeric', 'tier2b_cross_scope', 'narrative_rules')),
	CONSTRAINT "conflicts_severity_check" CHECK ("conflicts"."severity" in ('high', 'medium', 'low')),
	CONSTRAINT "conflicts_status_check" CHECK ("conflicts"."status" in ('open', 'resolved', 'dismissed'))
);
--> statement-breakpoint
CREATE TABLE "detection_feedback" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"conflict_id" uuid NOT NULL,
	"fact_set_key" text NOT NULL,
	"feedback" text NOT NULL,
	"member_id" uuid,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "detection_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "detection_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"workspace_id" uuid NOT NULL,
	"trigger_fact_id" uuid,
	"reason" text DEFAULT 'commit' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"run_after" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"locked_by" text,
	"run_id" uuid,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "detection_jobs_status_check" CHECK ("detection_jobs"."status" in ('pending', 'running', 'done', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "detection_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"duration_ms" integer,
	"jobs_coalesced" integer DEFAULT 0 NOT NULL,
	"facts_read" integer DEFAULT 0 NOT NULL,
	"conflicts_raised" integer DEFAULT 0 NOT NULL,
	"facts_retired" integer DEFAULT 0 NOT NULL,
	"llm_calls" integer DEFAULT 0 NOT NULL,
	"prompt_tokens" integer DEFAULT 0 NOT NULL,
	"completion_tokens" integer DEFAULT 0 NOT NULL,
	"seed" text,
	"error" text,
	CONSTRAINT "detection_runs_status_check" CHECK ("detection_runs"."status" in ('running', 'succeeded', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "facts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"lineage_id" uuid NOT NULL,
	"content" text NOT NULL,
	"content_hash" text NOT NULL,
	"scope" text NOT NULL,
	"confidence" double precision NOT NULL,
	"fact_type" text DEFAULT 'observation' NOT NULL,
	"agent_id" text NOT NULL,
	"member_id" uuid,
	"provenance" text,
	"entities" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"keywords" text[] DEFAULT '{}'::text[] NOT NULL,
	"embedding" vector(512),
	"embedding_model" text,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', "facts"."content")) STORED,
	"committed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"valid_from" timestamp with time zone DEFAULT now() NOT NULL,
	"valid_until" timestamp with time zone,
	"ttl_days" integer,
	"expires_at" timestamp with time zone,
	"memory_op" text DEFAULT 'add' NOT NULL,
	"supersedes_fact_id" uuid,
	"durability" text DEFAULT 'durable' NOT NULL,
	"query_hits" integer DEFAULT 0 NOT NULL,
	"corroborating_agents" integer DEFAULT 0 NOT NULL,
	"source" text DEFAULT 'commit' NOT NULL,
	"erased_at" timestamp with time zone,
	CONSTRAINT "facts_confidence_check" CHECK ("facts"."confidence" >= 0 and "facts"."confidence" <= 1),
	CONSTRAINT "facts_fact_type_check" CHECK ("facts"."fact_type" in ('observation', 'inference', 'decision')),
	CONSTRAINT "facts_memory_op_check" CHECK ("facts"."memory_op" in ('add', 'update', 'delete', 'none')),
	CONSTRAINT "facts_durability_check" CHECK ("facts"."durability" in ('durable', 'ephemeral')),
	CONSTRAINT "facts_source_check" CHECK ("facts"."source" in ('commit', 'import')),
	CONSTRAINT "facts_window_check" CHECK ("facts"."valid_until" is null or "facts"."valid_until" >= "facts"."valid_from")
);
--> statement-breakpoint
CREATE TABLE "invites" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"role" text NOT NULL,
	"created_by_member_id" uuid,
	"uses_remaining" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invites_uses_remaining_check" CHECK ("invites"."uses_remaining" >= 0),
	CONSTRAINT "invites_role_check" CHECK ("invites"."role" in ('owner', 'member', 'reader'))
);
--> statement-breakpoint
CREATE TABLE "members" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"role" text NOT NULL,
	"display_name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone,
	CONSTRAINT "members_workspace_id_id_key" UNIQUE("workspace_id","id"),
	CONSTRAINT "members_role_check" CHECK ("members"."role" in ('owner', 'member', 'reader'))
);
--> statement-breakpoint
CREATE TABLE "scope_permissions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"member_id" uuid NOT NULL,
	"scope_prefix" text NOT NULL,
	"can_read" boolean DEFAULT true NOT NULL,
	"can_write" boolean DEFAULT true NOT NULL,
	"valid_from" timestamp with time zone,
	"valid_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"member_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"label" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"engram_id" text NOT NULL,
	"name" text NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "workspaces_engram_id_unique" UNIQUE("engram_id")
);
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conflict_facts" ADD CONSTRAINT "conflict_facts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conflict_facts" ADD CONSTRAINT "conflict_facts_conflict_id_conflicts_id_fk" FOREIGN KEY ("conflict_id") REFERENCES "public"."conflicts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conflict_facts" ADD CONSTRAINT "conflict_facts_fact_id_facts_id_fk" FOREIGN KEY ("fact_id") REFERENCES "public"."facts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conflicts" ADD CONSTRAINT "conflicts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "detection_feedback" ADD CONSTRAINT "detection_feedback_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "detection_feedback" ADD CONSTRAINT "detection_feedback_conflict_id_conflicts_id_fk" FOREIGN KEY ("conflict_id") REFERENCES "public"."conflicts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "detection_jobs" ADD CONSTRAINT "detection_jobs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "detection_runs" ADD CONSTRAINT "detection_runs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "facts" ADD CONSTRAINT "facts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invites" ADD CONSTRAINT "invites_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scope_permissions" ADD CONSTRAINT "scope_permissions_member_fk" FOREIGN KEY ("workspace_id","member_id") REFERENCES "public"."members"("workspace_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_member_fk" FOREIGN KEY ("workspace_id","member_id") REFERENCES "public"."members"("workspace_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_workspace_created_idx" ON "audit_log" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "conflict_facts_workspace_fact_idx" ON "conflict_facts" USING btree ("workspace_id","fact_id");--> statement-breakpoint
CREATE INDEX "conflicts_workspace_status_idx" ON "conflicts" USING btree ("workspace_id","status");--> statement-breakpoint
CREATE INDEX "detection_feedback_workspace_idx" ON "detection_feedback" USING btree ("workspace_id","fact_set_key");--> statement-breakpoint
CREATE INDEX "detection_jobs_claim_idx" ON "detection_jobs" USING btree ("status","run_after");--> statement-breakpoint
CREATE INDEX "detection_jobs_workspace_status_idx" ON "detection_jobs" USING btree ("workspace_id","status");--> statement-breakpoint
CREATE INDEX "detection_runs_workspace_started_idx" ON "detection_runs" USING btree ("workspace_id","started_at");--> statement-breakpoint
CREATE INDEX "facts_workspace_scope_valid_idx" ON "facts" USING btree ("workspace_id","scope","valid_until");--> statement-breakpoint
CREATE INDEX "facts_workspace_content_hash_idx" ON "facts" USING btree ("workspace_id","content_hash");--> statement-breakpoint
CREATE INDEX "facts_workspace_lineage_idx" ON "facts" USING btree ("workspace_id","lineage_id");--> statement-breakpoint
CREATE INDEX "facts_workspace_window_idx" ON "facts" USING btree ("workspace_id","valid_from","valid_until");--> statement-breakpoint
CREATE INDEX "facts_workspace_committed_idx" ON "facts" USING btree ("workspace_id","committed_at");--> statement-breakpoint
CREATE INDEX "facts_expiry_idx" ON "facts" USING btree ("expires_at") WHERE "facts"."valid_until" is null and "facts"."expires_at" is not null;--> statement-breakpoint
CREATE INDEX "facts_embedding_hnsw_idx" ON "facts" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "facts_tsv_gin_idx" ON "facts" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "invites_workspace_idx" ON "invites" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "scope_permissions_workspace_member_idx" ON "scope_permissions" USING btree ("workspace_id","member_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tokens_token_hash_key" ON "tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "tokens_workspace_member_idx" ON "tokens" USING btree ("workspace_id","member_id");
-- Citations on facts (issue 57): the code a fact was verified against (a jsonb column, written in
-- the commit's one insert statement and read with the fact), when it was last verified still true,
-- and every verification (engram_verify, engram check --report) in a table of its own.
CREATE TABLE "fact_verifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"fact_id" uuid NOT NULL,
	"status" text NOT NULL,
	"evidence" text,
	"commit" text,
	"source" text DEFAULT 'agent' NOT NULL,
	"member_id" uuid,
	"agent_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fact_verifications_status_check" CHECK ("fact_verifications"."status" in ('still_true', 'outdated', 'unsure')),
	CONSTRAINT "fact_verifications_source_check" CHECK ("fact_verifications"."source" in ('agent', 'check'))
);
--> statement-breakpoint
ALTER TABLE "conflicts" DROP CONSTRAINT "conflicts_detected_by_check";--> statement-breakpoint
ALTER TABLE "facts" ADD COLUMN "citations" jsonb;--> statement-breakpoint
ALTER TABLE "facts" ADD COLUMN "verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "fact_verifications" ADD CONSTRAINT "fact_verifications_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fact_verifications" ADD CONSTRAINT "fact_verifications_fact_id_facts_id_fk" FOREIGN KEY ("fact_id") REFERENCES "public"."facts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "fact_verifications_fact_idx" ON "fact_verifications" USING btree ("workspace_id","fact_id","created_at");--> statement-breakpoint
CREATE INDEX "facts_current_cited_idx" ON "facts" USING btree ("workspace_id") WHERE "facts"."citations" is not null and "facts"."valid_until" is null;--> statement-breakpoint
ALTER TABLE "conflicts" ADD CONSTRAINT "conflicts_detected_by_check" CHECK ("conflicts"."detected_by" in ('narrative_llm', 'tier0_entity', 'tier2_numeric', 'tier2b_cross_scope', 'narrative_rules', 'citation_check', 'agent_verify'));
--> statement-breakpoint
ALTER TABLE fact_verifications ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON fact_verifications FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);

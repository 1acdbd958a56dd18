CREATE TABLE "fact_keys" (
	"workspace_id" uuid NOT NULL,
	"key" text NOT NULL,
	"committed_at" timestamp with time zone NOT NULL,
	"fact_id" uuid NOT NULL,
	CONSTRAINT "fact_keys_pkey" PRIMARY KEY("fact_id","key")
);
--> statement-breakpoint
ALTER TABLE "detection_runs" ADD COLUMN "worker_id" text;--> statement-breakpoint
ALTER TABLE "detection_runs" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "detection_runs" ADD COLUMN "trigger_fact_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "facts" ADD COLUMN "match_keys" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "facts" ADD COLUMN "extractor_version" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "facts" ADD COLUMN "retired_by" text;--> statement-breakpoint
ALTER TABLE "facts" ADD COLUMN "retired_for_fact_id" uuid;--> statement-breakpoint
ALTER TABLE "fact_keys" ADD CONSTRAINT "fact_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fact_keys" ADD CONSTRAINT "fact_keys_fact_id_facts_id_fk" FOREIGN KEY ("fact_id") REFERENCES "public"."facts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "fact_keys_lookup_idx" ON "fact_keys" USING btree ("workspace_id","key","committed_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "detection_runs_one_running_key" ON "detection_runs" USING btree ("workspace_id") WHERE "detection_runs"."status" = 'running';--> statement-breakpoint
CREATE INDEX "facts_extractor_version_idx" ON "facts" USING btree ("extractor_version");
-- Facts stored before this migration keep extractor_version 0: the maintenance loop re-extracts them
-- (entities, match_keys and their fact_keys rows) in the background.

ALTER TABLE "detection_runs" ADD COLUMN "narrative" text;--> statement-breakpoint
ALTER TABLE "detection_runs" ADD COLUMN "story_facts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "detection_runs" ADD COLUMN "batches" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "detection_runs" ADD COLUMN "failed_batches" integer DEFAULT 0 NOT NULL;
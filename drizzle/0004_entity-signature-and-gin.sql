DROP INDEX "facts_tsv_gin_idx";--> statement-breakpoint
ALTER TABLE "facts" ADD COLUMN "entity_signature" text;--> statement-breakpoint
CREATE INDEX "facts_current_signature_idx" ON "facts" USING btree ("workspace_id","scope","entity_signature") WHERE "facts"."valid_until" is null;--> statement-breakpoint
CREATE INDEX "facts_tsv_gin_idx" ON "facts" USING gin ("tsv") WITH (fastupdate=true,gin_pending_list_limit=256);
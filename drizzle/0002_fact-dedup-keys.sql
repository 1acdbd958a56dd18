DROP INDEX "facts_workspace_content_hash_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "facts_current_content_key" ON "facts" USING btree ("workspace_id","scope","content_hash") WHERE "facts"."valid_until" is null;--> statement-breakpoint
CREATE INDEX "facts_workspace_content_hash_idx" ON "facts" USING btree ("workspace_id","content_hash","committed_at");
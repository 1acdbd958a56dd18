-- Idempotency keys: engram_commit's `idempotency_key` and an import's `Idempotency-Key` header. A
-- retry with the same key in the same workspace gets the original answer instead of storing again;
-- a commit's key is written in the statement that stores its fact, so the two cannot part.
CREATE TABLE "idempotency_keys" (
	"workspace_id" uuid NOT NULL,
	"key" text NOT NULL,
	"operation" text NOT NULL,
	"request_hash" text NOT NULL,
	"fact_id" uuid,
	"response" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY("workspace_id","key"),
	CONSTRAINT "idempotency_keys_operation_check" CHECK ("idempotency_keys"."operation" in ('commit', 'import'))
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON idempotency_keys FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);

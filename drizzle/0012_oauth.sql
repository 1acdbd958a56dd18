CREATE TABLE "oauth_clients" (
	"client_id" text PRIMARY KEY NOT NULL,
	"secret_hash" text,
	"client_name" text,
	"client_uri" text,
	"redirect_uris" text[] NOT NULL,
	"token_endpoint_auth_method" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"member_id" uuid NOT NULL,
	"client_id" text NOT NULL,
	"client_name" text,
	"redirect_uri" text NOT NULL,
	"code_challenge" text NOT NULL,
	"resource" text NOT NULL,
	"scope" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"token_id" uuid
);
--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "client_id" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "resource" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "refresh_hash" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "previous_refresh_hash" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "refresh_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_member_fk" FOREIGN KEY ("workspace_id","member_id") REFERENCES "public"."members"("workspace_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_codes_workspace_expires_idx" ON "oauth_codes" USING btree ("workspace_id","expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "tokens_refresh_hash_key" ON "tokens" USING btree ("refresh_hash");--> statement-breakpoint
CREATE INDEX "tokens_previous_refresh_hash_idx" ON "tokens" USING btree ("previous_refresh_hash");--> statement-breakpoint
-- Codes belong to a workspace like its tokens do. Registered clients belong to no workspace: the
-- tenant role may not read them at all (RLS on, no policy); only the system path does.
ALTER TABLE oauth_codes ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON oauth_codes FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE oauth_clients ENABLE ROW LEVEL SECURITY;

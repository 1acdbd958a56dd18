-- Row-level security: a forgotten workspace filter returns nothing of another workspace.
-- Tenant queries run as engram_app (not the owner, no BYPASSRLS) with engram.workspace_id set
-- transaction-locally by packages/db/src/tenant.ts; the owner (migrations and the explicit
-- cross-tenant system path) is not subject to these policies. The role is cluster-wide and
-- shared by every Engram database on the cluster; it cannot log in.
DO $$ BEGIN
  CREATE ROLE engram_app NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
--> statement-breakpoint
DO $$ BEGIN
  EXECUTE format('GRANT engram_app TO %I', current_user);
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO engram_app;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO engram_app;
--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO engram_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO engram_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO engram_app;
--> statement-breakpoint
ALTER TABLE workspaces ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON workspaces FOR ALL TO engram_app USING (id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE members ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON members FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE tokens ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON tokens FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE dashboard_sessions ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON dashboard_sessions FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE invites ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON invites FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE agents ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON agents FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE facts ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON facts FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE conflicts ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON conflicts FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE fact_keys ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON fact_keys FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE conflict_facts ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON conflict_facts FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE detection_feedback ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON detection_feedback FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE detection_jobs ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON detection_jobs FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE detection_runs ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON detection_runs FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE scope_permissions ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON scope_permissions FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE rate_limit_counters ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON rate_limit_counters FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);
--> statement-breakpoint
ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON audit_log FOR ALL TO engram_app USING (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid) WITH CHECK (workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid);

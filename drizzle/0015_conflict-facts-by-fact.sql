-- conflict_facts is looked up by fact (which conflicts is this fact in?) and by conflict (its
-- primary key). Indexed by workspace first, the index also matched the row-level security filter
-- on the workspace alone: without statistics the planner took that for selective and read all of
-- a workspace's links where it wanted one conflict's, once per conflict. By fact first, it serves
-- the lookups by fact (and a deleted fact's cascade, which had no index to use) and nothing else.
CREATE INDEX "conflict_facts_fact_idx" ON "conflict_facts" USING btree ("fact_id","workspace_id");--> statement-breakpoint
DROP INDEX "conflict_facts_workspace_fact_idx";

-- fact_keys is derived from facts and written only with its fact, so its rows need no foreign-key
-- checks: a commit writes one row per match key (26 for a fact with a few values), and the two
-- checks per row were about a fifth of the commit's statement. A fact's keys still go with it: the
-- trigger below deletes them, and a workspace's cascade to its facts reaches it.
ALTER TABLE "fact_keys" DROP CONSTRAINT "fact_keys_workspace_id_workspaces_id_fk";
--> statement-breakpoint
ALTER TABLE "fact_keys" DROP CONSTRAINT "fact_keys_fact_id_facts_id_fk";
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engram_drop_fact_keys() RETURNS trigger
LANGUAGE plpgsql SET search_path = public, pg_temp
AS $$
BEGIN
  DELETE FROM fact_keys WHERE fact_id = OLD.id;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER facts_drop_keys AFTER DELETE ON facts FOR EACH ROW EXECUTE FUNCTION engram_drop_fact_keys();

-- Re-extraction (a newer entity extractor) replaced a fact's key index rows in one statement that
-- deleted them all and inserted the new set; a statement's parts run in no set order, so the keys
-- the fact kept could be inserted first (a conflict: nothing done) and then deleted, and the
-- detector stopped finding the fact by them. Every fact's match keys are indexed again; what is
-- already there stays.
INSERT INTO "fact_keys" ("workspace_id", "key", "committed_at", "fact_id")
SELECT f."workspace_id", k.key, f."committed_at", f."id"
FROM "facts" f CROSS JOIN LATERAL unnest(f."match_keys") AS k(key)
WHERE f."erased_at" IS NULL
ON CONFLICT DO NOTHING;

-- Member names say whose a fact is, so two live members of a workspace may no longer share one
-- (ignoring case and surrounding spaces); invites get a label so an owner can tell them apart.
--
-- Names are trimmed, and a blank name becomes no name, before the index is built.
UPDATE "members" SET "display_name" = nullif(btrim("display_name"), '')
  WHERE "display_name" IS DISTINCT FROM nullif(btrim("display_name"), '');--> statement-breakpoint
-- Existing duplicates among live members are renamed, never refused: in each workspace the
-- earliest member (by created_at, then id) keeps the name and each later one gets the first free
-- " (2)", " (3)", ... after it (a name already taken, suffix included, is skipped). The same data
-- always gives the same names. Names stay within the 100 characters the API allows.
DO $$
DECLARE
  dup record;
  n integer;
  candidate text;
BEGIN
  FOR dup IN
    SELECT d.id, d.workspace_id, d.display_name FROM (
      SELECT m.id, m.workspace_id, m.display_name, m.created_at,
             row_number() OVER (PARTITION BY m.workspace_id, lower(m.display_name) ORDER BY m.created_at, m.id) AS k
      FROM "members" m
      WHERE m.removed_at IS NULL AND m.display_name IS NOT NULL
    ) d
    WHERE d.k > 1
    ORDER BY d.workspace_id, d.created_at, d.id
  LOOP
    n := 2;
    LOOP
      candidate := left(dup.display_name, 100 - length(' (' || n || ')')) || ' (' || n || ')';
      EXIT WHEN NOT EXISTS (
        SELECT 1 FROM "members" o
        WHERE o.workspace_id = dup.workspace_id AND o.removed_at IS NULL AND lower(btrim(o.display_name)) = lower(candidate)
      );
      n := n + 1;
    END LOOP;
    UPDATE "members" SET "display_name" = candidate WHERE "id" = dup.id;
  END LOOP;
END $$;--> statement-breakpoint
CREATE UNIQUE INDEX "members_display_name_key" ON "members" USING btree ("workspace_id",lower(btrim("display_name"))) WHERE "members"."removed_at" is null and "members"."display_name" is not null;--> statement-breakpoint
ALTER TABLE "invites" ADD COLUMN "label" text;

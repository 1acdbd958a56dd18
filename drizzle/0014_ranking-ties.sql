-- engram_text_candidates ranks facts of equal text rank by id: the same topic gets the same ranks
-- whichever plan reads them (one query's statement, or several queries' grouped statement), so a
-- fused ranking never depends on the order rows happened to be read in. Same signature, same
-- confinement.
CREATE OR REPLACE FUNCTION engram_text_candidates(
  p_topic text, p_window text, p_at timestamptz, p_scope text, p_fact_type text,
  p_include_ephemeral boolean, p_pool integer, p_depth integer
) RETURNS TABLE (id uuid, r bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
AS $$
BEGIN
  RETURN QUERY
  select pool.id, row_number() over (order by ts_rank(pool.tsv, pool.q) desc, pool.id) as r
  from (
    select f.id, f.tsv, tq.q
    from facts f cross join (select plainto_tsquery('english', p_topic) as q) tq
    where f.workspace_id = nullif(current_setting('engram.workspace_id', true), '')::uuid
      and f.tsv @@ tq.q
      and f.erased_at is null
      and (p_include_ephemeral or f.durability = 'durable')
      and (p_fact_type is null or f.fact_type = p_fact_type)
      and (p_scope is null or f.scope = p_scope or starts_with(f.scope, p_scope || '/'))
      and case p_window
            when 'current' then f.valid_until is null and (f.expires_at is null or f.expires_at > now())
            when 'as_of' then f.valid_from <= p_at and (f.valid_until is null or f.valid_until > p_at)
                              and (f.expires_at is null or f.expires_at > p_at)
            else true
          end
    limit p_pool
  ) pool
  order by ts_rank(pool.tsv, pool.q) desc, pool.id
  limit p_depth;
END
$$;

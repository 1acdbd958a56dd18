-- engram_text_candidates, in a small workspace, matches facts holding any word of the topic: agents
-- ask questions ("which queue does billing use for retries?"), and the fact answering one rarely
-- repeats every word of it (requiring them all matched nothing for 160 of 174 benchmark questions).
-- Those facts are ranked before the depth is cut: by the summed weight of the topic's words they
-- hold, a word weighing more the fewer of the matching facts hold it (as BM25's idf), then by
-- ts_rank_cd (the words close together, the fact not long), then by id. The workspace's own facts
-- are read through its index (p_small: fewer than the caller's exact-search bound of them), so
-- neither the cost nor the weights depend on other workspaces.
--
-- In a large workspace, as before: facts holding every word, ranked by ts_rank, the pool read
-- before ranking capped. Counting each word's facts there went through the GIN index's whole
-- posting list per word (2 ms for a common word at 100,000 facts, 3.5x the query), so a large
-- workspace's questions rest on the vector half.
--
-- A new function beside the old one (one more argument, p_small), not a replacement: servers of the
-- previous release still call the old one during a rolling deploy.
CREATE FUNCTION engram_text_candidates(
  p_topic text, p_window text, p_at timestamptz, p_scope text, p_fact_type text,
  p_include_ephemeral boolean, p_pool integer, p_depth integer, p_small boolean
) RETURNS TABLE (id uuid, r bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
AS $$
DECLARE
  ws constant uuid := nullif(current_setting('engram.workspace_id', true), '')::uuid;
  words tsquery[];
  any_word tsquery;
BEGIN
  if ws is null then return; end if;
  if not p_small then
    RETURN QUERY
    select pool.id, row_number() over (order by ts_rank(pool.tsv, pool.q) desc, pool.id) as r
    from (
      select f.id, f.tsv, tq.q
      from facts f cross join (select plainto_tsquery('english', p_topic) as q) tq
      where f.workspace_id = ws
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
    return;
  end if;

  -- The topic's lexemes (stop words dropped, stemmed), each a one-word query.
  select array_agg(('''' || replace(replace(l, '\', '\\'), '''', '''''') || '''')::tsquery order by l)
  into words
  from unnest(tsvector_to_array(to_tsvector('english', p_topic))) l;
  if words is null then return; end if;
  select string_agg(q::text, ' | ')::tsquery into any_word from unnest(words) q;

  RETURN QUERY
  with hits as materialized (
    -- The workspace's facts by its index (the subquery keeps the planner there), those holding a word.
    select f.id, f.tsv, ts_rank_cd(f.tsv, any_word, 1) as density
    from (select * from facts f where f.workspace_id = ws offset 0) f
    where f.tsv @@ any_word
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
  ),
  held as (
    select h.id, h.density, w.q from hits h cross join unnest(words) w(q) where h.tsv @@ w.q
  ),
  weights as (
    select held.q::text as word, ln(1 + (select count(*) from hits)::float8 / count(*)) as weight from held group by held.q::text
  ),
  scored as (
    select held.id, sum(weights.weight) as score, held.density
    from held join weights on weights.word = held.q::text
    group by held.id, held.density
  )
  select s.id, row_number() over (order by s.score desc, s.density desc, s.id) as r
  from scored s
  order by s.score desc, s.density desc, s.id
  limit p_depth;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION engram_text_candidates(text, text, timestamptz, text, text, boolean, integer, integer, boolean) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION engram_text_candidates(text, text, timestamptz, text, text, boolean, integer, integer, boolean) TO engram_app;

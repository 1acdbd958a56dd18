-- engram_text_candidates, in a small workspace, ranks the facts holding a word of the topic by BM25
-- (k1 = 1.2, b = 0.75) instead of by the summed weights of the words they hold: a word counts more
-- the more often a fact says it, with diminishing returns, and a long fact that holds a word in
-- passing counts less than a short fact about it. Each word's weight is BM25's idf over the
-- workspace's facts in the window (N) and those of them holding it; a fact's length is its number
-- of distinct lexemes, against the mean of the facts that matched (the mean over the whole window
-- ranked no better on the retrieval benchmark). Ties as before: ts_rank_cd (the words close together), then id. Measured on the
-- BEAM dev conversations, full text alone: MRR 0.530 -> 0.566 (a turn per fact), 0.550 -> 0.558
-- (a sentence per fact); docs/retrieval.md.
--
-- A large workspace is unchanged: facts holding every word, ranked by ts_rank, the pool capped.
-- The signature is the same as 0018's, so servers of the previous release call this one too.
CREATE OR REPLACE FUNCTION engram_text_candidates(
  p_topic text, p_window text, p_at timestamptz, p_scope text, p_fact_type text,
  p_include_ephemeral boolean, p_pool integer, p_depth integer, p_small boolean
) RETURNS TABLE (id uuid, r bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
AS $$
DECLARE
  ws constant uuid := nullif(current_setting('engram.workspace_id', true), '')::uuid;
  lexemes text[];
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

  -- The topic's lexemes (stop words dropped, stemmed), and a query matching any of them.
  lexemes := tsvector_to_array(to_tsvector('english', p_topic));
  if cardinality(lexemes) = 0 then return; end if;
  select string_agg('''' || replace(replace(l, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery
  into any_word from unnest(lexemes) l;

  RETURN QUERY
  with window_facts as materialized (
    -- The workspace's facts in the window, by its index (the subquery keeps the planner there).
    select f.id, f.tsv
    from (select * from facts f where f.workspace_id = ws offset 0) f
    where f.erased_at is null
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
  hits as materialized (
    select w.id, w.tsv, length(w.tsv)::float8 as dl, ts_rank_cd(w.tsv, any_word, 1) as density
    from window_facts w where w.tsv @@ any_word
  ),
  stats as (
    select (select count(*) from window_facts)::float8 as n, greatest(avg(h.dl), 1) as avgdl from hits h
  ),
  -- Each fact's count of each topic word it holds.
  held as (
    select h.id, h.dl, h.density, u.lexeme, coalesce(cardinality(u.positions), 1)::float8 as tf
    from hits h cross join unnest(h.tsv) u
    where u.lexeme = any(lexemes)
  ),
  idf as (
    select held.lexeme, ln(1 + (stats.n - count(*) + 0.5) / (count(*) + 0.5)) as weight
    from held cross join stats group by held.lexeme, stats.n
  ),
  scored as (
    select held.id, held.density,
           sum(idf.weight * held.tf * 2.2 / (held.tf + 1.2 * (0.25 + 0.75 * held.dl / stats.avgdl))) as score
    from held join idf on idf.lexeme = held.lexeme cross join stats
    group by held.id, held.density
  )
  select s.id, row_number() over (order by s.score desc, s.density desc, s.id) as r
  from scored s
  order by s.score desc, s.density desc, s.id
  limit p_depth;
END
$$;

-- engram_text_candidates, in a small workspace, adds to a fact's BM25 score a bonus for each pair of
-- neighbouring words of the topic that the fact holds as a phrase: the two lexemes in the topic's
-- order, at most three positions apart, so stop words between them still count ("retries of failed
-- charges" holds "retri ... fail"). A fact saying the question's words together is about what it
-- asks, more than one holding the same words apart. The bonus is 3 per phrase, in BM25's units (a
-- rare word scores about 3-5): chosen on the BEAM dev conversations with full text alone, among 0.5,
-- 1, 2, 3 and 5 (docs/retrieval.md, "Phrases"). All else as in 0022; a large workspace is unchanged.
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
  phrases tsquery[];
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
  -- Each pair of neighbouring words of the topic, in its order, as a phrase up to three positions apart.
  with quoted as (
    select '''' || replace(replace(u.lexeme, '\', '\\'), '''', '''''') || '''' as q, min(p) as pos
    from unnest(to_tsvector('english', p_topic)) u cross join unnest(u.positions) p
    group by u.lexeme
  ), pairs as (
    select q as a, lead(q) over (order by pos) as b from quoted
  )
  select coalesce(array_agg(format('(%1$s <-> %2$s) | (%1$s <2> %2$s) | (%1$s <3> %2$s)', a, b)::tsquery), '{}')
  into phrases from pairs where b is not null;

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
    select w.id, w.tsv, length(w.tsv)::float8 as dl, ts_rank_cd(w.tsv, any_word, 1) as density,
           (select count(*) from unnest(phrases) ph where w.tsv @@ ph)::float8 as phrased
    from window_facts w where w.tsv @@ any_word
  ),
  stats as (
    select (select count(*) from window_facts)::float8 as n, greatest(avg(h.dl), 1) as avgdl from hits h
  ),
  -- Each fact's count of each topic word it holds.
  held as (
    select h.id, h.dl, h.density, h.phrased, u.lexeme, coalesce(cardinality(u.positions), 1)::float8 as tf
    from hits h cross join unnest(h.tsv) u
    where u.lexeme = any(lexemes)
  ),
  idf as (
    select held.lexeme, ln(1 + (stats.n - count(*) + 0.5) / (count(*) + 0.5)) as weight
    from held cross join stats group by held.lexeme, stats.n
  ),
  scored as (
    select held.id, held.density,
           sum(idf.weight * held.tf * 2.2 / (held.tf + 1.2 * (0.25 + 0.75 * held.dl / stats.avgdl))) + 3 * held.phrased as score
    from held join idf on idf.lexeme = held.lexeme cross join stats
    group by held.id, held.density, held.phrased
  )
  select s.id, row_number() over (order by s.score desc, s.density desc, s.id) as r
  from scored s
  order by s.score desc, s.density desc, s.id
  limit p_depth;
END
$$;

-- engram_text_candidates in a large workspace (1,500 facts or more) no longer needs every word of the
-- topic. Facts holding every word are found as before, by the GIN index; when fewer than the depth
-- do (a question rarely uses only the words of its answer), the facts holding any of the topic's
-- uncommon words are ranked by BM25 as in a small workspace (0022, 0023). A word is common when 6
-- or more of the workspace's latest 300 facts hold it (2%, read by the time index), or 500 or more
-- of all its facts (counted by the GIN index, which reads an uncommon word's short list quickly); a
-- common word adds to a fact's score, weighing as if 500 facts held it, but finds no fact by itself.
-- At most 1,000 facts are ranked. A word's weight is BM25's idf against a nominal 10,000 facts (only
-- the words' order by weight matters). Measured with every BEAM dev conversation in one workspace,
-- and at 100,000 facts: docs/retrieval.md, "Large workspaces". A small workspace is unchanged.
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
  every_word uuid[];
  held_by float8[];
  rare_word tsquery;
BEGIN
  if ws is null then return; end if;
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

  if not p_small then
    -- The facts holding every word, by the GIN index, the pool capped, ranked by ts_rank.
    select coalesce(array_agg(pool.id order by ts_rank(pool.tsv, pool.q) desc, pool.id), '{}')
    into every_word
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
    ) pool;
    -- How common each word is (see above): the latest 300 facts first, then the GIN index for the rest.
    if cardinality(every_word) < p_depth and cardinality(lexemes) > 1 then
      with latest as materialized (
        select f.tsv from facts f where f.workspace_id = ws order by f.workspace_id, f.committed_at desc limit 300
      ), words as (
        select l.ord, ('''' || replace(replace(l.lexeme, '\', '\\'), '''', '''''') || '''')::tsquery as q
        from unnest(lexemes) with ordinality as l(lexeme, ord)
      ), sampled as (
        select words.ord, words.q, (select count(*) from latest where latest.tsv @@ words.q) < 6 as uncommon from words
      )
      select array_agg(case when s.uncommon then (
               select count(*)::float8 from (select 1 from facts f where f.workspace_id = ws and f.tsv @@ s.q limit 500) held
             ) else 500 end order by s.ord)
      into held_by from sampled s;
      select string_agg('''' || replace(replace(l.lexeme, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery
      into rare_word from unnest(lexemes, held_by) as l(lexeme, c) where l.c < 500;
    end if;
    if rare_word is null then
      RETURN QUERY select u.id, u.r from unnest(every_word[1:p_depth]) with ordinality as u(id, r);
      return;
    end if;
  end if;

  -- The facts ranked: in a small workspace, those of the window holding any word of the topic; in a
  -- large one, those holding an uncommon word, through the GIN index, at most 1,000.
  RETURN QUERY
  with window_facts as materialized (
    -- A small workspace's facts in the window, by its index (the subquery keeps the planner there).
    select f.id, f.tsv
    from (select * from facts f where p_small and f.workspace_id = ws offset 0) f
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
  matched as (
    select w.id, w.tsv from window_facts w where w.tsv @@ any_word
    union all
    (select f.id, f.tsv
     from facts f
     where not p_small
       and f.workspace_id = ws
       and f.tsv @@ rare_word
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
     limit 1000)
  ),
  hits as materialized (
    select m.id, m.tsv, length(m.tsv)::float8 as dl, ts_rank_cd(m.tsv, any_word, 1) as density,
           (select count(*) from unnest(phrases) ph where m.tsv @@ ph)::float8 as phrased
    from matched m
  ),
  stats as (select greatest(avg(h.dl), 1) as avgdl from hits h),
  -- Each fact's count of each topic word it holds.
  held as (
    select h.id, h.dl, h.density, h.phrased, u.lexeme, coalesce(cardinality(u.positions), 1)::float8 as tf
    from hits h cross join unnest(h.tsv) u
    where u.lexeme = any(lexemes)
  ),
  -- A word's weight: BM25's idf over the small workspace's window, or from the counts above.
  idf as (
    select held.lexeme, ln(1 + (n.n - count(*) + 0.5) / (count(*) + 0.5)) as weight
    from held cross join (select count(*)::float8 as n from window_facts) n
    where p_small group by held.lexeme, n.n
    union all
    select l.lexeme, ln(1 + (10000 - l.c + 0.5) / (l.c + 0.5)) from unnest(lexemes, held_by) as l(lexeme, c) where not p_small
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

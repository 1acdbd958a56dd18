-- engram_text_candidates matches a fact holding any word of the topic, not only one holding all of
-- them: agents ask questions ("which queue does billing use for retries?"), and a fact answering one
-- rarely repeats every word of it (plainto_tsquery matched nothing for 160 of 174 benchmark
-- questions). Facts are ranked before the depth is cut: first by the summed weight of the topic's
-- words they hold, a word weighing more the fewer of the workspace's facts hold it (as BM25's idf),
-- then by ts_rank_cd (the words close together, the fact not long), then by id.
--
-- The work stays bounded at any workspace size. Each word's facts are counted up to p_pool; the
-- rare words' facts (fewer than p_pool each, 4 × p_pool in all) are read as candidates, with up to
-- p_pool facts holding every word any fact holds. A word in p_pool facts or more still weighs in
-- the ranking but finds no candidates alone. Same signature, same confinement as before (0010, 0014).
CREATE OR REPLACE FUNCTION engram_text_candidates(
  p_topic text, p_window text, p_at timestamptz, p_scope text, p_fact_type text,
  p_include_ephemeral boolean, p_pool integer, p_depth integer
) RETURNS TABLE (id uuid, r bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
AS $$
DECLARE
  ws constant uuid := nullif(current_setting('engram.workspace_id', true), '')::uuid;
  words tsquery[];
  counts integer[];
  weights float8[];
  any_word tsquery;
  every_word tsquery;
  seeds tsquery;
  budget integer := 4 * p_pool;
  n integer;
  i integer;
BEGIN
  -- The topic's lexemes (stop words dropped, stemmed), each a one-word query, rarest first.
  select array_agg(w.q order by w.n, w.l), array_agg(w.n order by w.n, w.l)
  into words, counts
  from (
    select l, q, (select count(*)::int from (
        select 1 from facts f where f.workspace_id = ws and f.tsv @@ q and f.erased_at is null limit p_pool) c) as n
    from unnest(tsvector_to_array(to_tsvector('english', p_topic))) l
    cross join lateral (select ('''' || replace(replace(l, '\', '\\'), '''', '''''') || '''')::tsquery as q) t
  ) w;
  if ws is null or words is null then return; end if;

  for i in 1 .. cardinality(words) loop
    n := counts[i];
    weights[i] := ln(1 + p_pool::float8 / (n + 1));
    any_word := case when any_word is null then words[i] else any_word || words[i] end;
    -- Every word some fact holds (a word none holds would leave nothing to match).
    if n > 0 then every_word := case when every_word is null then words[i] else every_word && words[i] end; end if;
    if n > 0 and n < p_pool and n <= budget then
      seeds := case when seeds is null then words[i] else seeds || words[i] end;
      budget := budget - n;
    end if;
  end loop;
  if every_word is null then return; end if;
  -- No word is rare: the facts holding them all, as before 0018.
  seeds := coalesce(seeds, every_word);

  RETURN QUERY
  select c.id, row_number() over (order by c.score desc, c.density desc, c.id) as r
  from (
    select f.id,
           (select sum(x.wt) from unnest(words, weights) x(q, wt) where f.tsv @@ x.q) as score,
           ts_rank_cd(f.tsv, any_word, 1) as density
    from (
      (select f.id from facts f where f.workspace_id = ws and f.tsv @@ seeds and f.erased_at is null limit 4 * p_pool)
      union
      (select f.id from facts f where f.workspace_id = ws and f.tsv @@ every_word and f.erased_at is null limit p_pool)
    ) found
    cross join lateral (select f.* from facts f where f.id = found.id offset 0) f
    where (p_include_ephemeral or f.durability = 'durable')
      and (p_fact_type is null or f.fact_type = p_fact_type)
      and (p_scope is null or f.scope = p_scope or starts_with(f.scope, p_scope || '/'))
      and case p_window
            when 'current' then f.valid_until is null and (f.expires_at is null or f.expires_at > now())
            when 'as_of' then f.valid_from <= p_at and (f.valid_until is null or f.valid_until > p_at)
                              and (f.expires_at is null or f.expires_at > p_at)
            else true
          end
  ) c
  order by c.score desc, c.density desc, c.id
  limit p_depth;
END
$$;

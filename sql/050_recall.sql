-- Recall: hybrid retrieval of episodes and current facts.
--
-- Two retrievers per kind, each giving its top candidates inside the namespace scope:
--   vector  cosine distance to the query embedding (exact scan for small scopes, HNSW with
--           pgvector's iterative scan for large ones: a post-filtered ANN search would silently
--           return fewer than k rows for a small namespace among many);
--   text    full text, ranked over an OR of the query's lexemes (an AND matched nothing for most
--           conversational questions).
-- Reciprocal rank fusion combines them; then, for episodes, each hit lends a share of its score to
-- the episodes just before and after it in its namespace (the surrounding turns of a conversation
-- carry the answer as often as the hit itself), and episodes inside a month or year the query
-- names are boosted. Facts are weighted by confidence. Both kinds are ranked on the same fused
-- scale, so neither crowds the other out.

create function stash._query_tsquery(query text)
returns tsquery
language sql
immutable
strict
parallel safe
security invoker
set search_path = pg_catalog, pg_temp
as $$
  -- The lexemes are already normalised by to_tsvector: cast, do not re-parse them.
  select nullif(string_agg(quote_literal(lexeme), ' | '), '')::tsquery
    from unnest(to_tsvector('english', query));
$$;
comment on function stash._query_tsquery(text) is
  'An OR of the query''s English lexemes (null when it has none, e.g. only stop words).';

create function stash._query_dates(query text, out years int[], out months int[])
language sql
immutable
strict
parallel safe
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select
    array(select distinct m[1]::int from regexp_matches(query, '\m(19[0-9]{2}|20[0-9]{2})\M', 'g') m),
    array(select distinct i from unnest(array['january', 'february', 'march', 'april', 'may', 'june', 'july',
                                             'august', 'september', 'october', 'november', 'december'])
                             with ordinality mn(name, i)
           -- "may" only as the capitalised month, not the verb.
           where case when name = 'may' then query ~ '\mMay\M' else query ~* ('\m' || name || '\M') end);
$$;
comment on function stash._query_dates(text) is
  'Years (19xx, 20xx) and month names a query mentions, for time-aware recall.';

create function stash._selective_tsquery(query text, tbl text, max_freq real)
returns tsquery
language sql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
  -- Ranking every row that matches a lexeme found in a third of the table costs tens of
  -- milliseconds at 100k rows and says little (the IDF of BM25 would weigh it near zero). In large
  -- scopes the text retriever therefore keeps only lexemes rarer than max_freq, by the planner's
  -- statistics (pg_stats.most_common_elems of the tsvector column); if none is that rare, the
  -- rarest one. Without statistics (never analysed) the query is kept whole.
  with l as (
    select q.lexeme, coalesce(m.f, 0) as freq
      from unnest(to_tsvector('english', query)) q
      left join (select m.e, m.f from pg_stats s,
                        unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) m(e, f)
                  where s.schemaname = 'stash' and s.tablename = tbl and s.attname = 'content_tsv') m on m.e = q.lexeme)
  select coalesce(
    nullif(string_agg(quote_literal(lexeme), ' | ') filter (where freq < max_freq), ''),
    (select quote_literal(lexeme) from l order by freq, lexeme limit 1))::tsquery
    from l;
$$;
comment on function stash._selective_tsquery(text, text, real) is
  'The OR of the query''s lexemes rarer than max_freq in table tbl (by pg_stats), or its rarest lexeme: the text query for large scopes.';

create function stash.recall(query text, namespaces text[] default '{/}', k int default 10,
                             kinds text[] default '{episode,fact}', since timestamptz default null,
                             until timestamptz default null, as_of timestamptz default null,
                             explain boolean default false, skip int default 0)
returns table (kind text, id bigint, namespace text, content text, score double precision, confidence real,
               occurred_at timestamptz, valid_from timestamptz, valid_until timestamptz, metadata jsonb,
               details jsonb)
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
-- Large scopes use HNSW; an iterative scan keeps going until enough rows pass the namespace filter.
set hnsw.iterative_scan = relaxed_order
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(namespaces);
  max_k int := stash._setting('recall.max_k')::int;
  exact_rows int := stash._setting('recall.exact_scan_rows')::int;
  min_sim double precision := stash._setting('recall.min_similarity')::double precision;
  min_conf real := stash._setting('recall.fact_min_confidence')::real;
  rrf_k double precision := stash._setting('recall.rrf_k')::double precision;
  nb_weight double precision := stash._setting('recall.neighbour_weight')::double precision;
  time_boost double precision := stash._setting('recall.time_boost')::double precision;
  nb_hits int;
  yrs int[];
  mons int[];
  n_cand int;
  qvec vector;
  tsq tsquery;
  tsq_large tsquery;
  max_freq real := stash._setting('recall.large_scope_max_lexeme_frequency')::real;
  at_time timestamptz := coalesce(as_of, now());
  want_episodes boolean := 'episode' = any (kinds);
  want_facts boolean := 'fact' = any (kinds);
  small boolean;
  -- Candidates of each retriever, best first: ids and their distance / text rank.
  ev bigint[] := '{}'; ev_d double precision[] := '{}';
  et bigint[] := '{}'; et_r real[] := '{}';
  fv bigint[] := '{}'; fv_d double precision[] := '{}';
  ft bigint[] := '{}'; ft_r real[] := '{}';
begin
  if query is null or query !~ '[^[:space:]]' then
    raise exception 'query must not be empty' using errcode = 'invalid_parameter_value',
      hint = 'Ask in a few words what you want to remember, e.g. ''deploy schedule''.';
  end if;
  if octet_length(query) > stash._setting('episode.max_bytes')::int then
    raise exception 'query is longer than episode.max_bytes' using errcode = 'string_data_right_truncation';
  end if;
  if k is null or k < 1 or k > max_k then
    raise exception 'k must be between 1 and %', max_k using errcode = 'invalid_parameter_value';
  end if;
  if skip is null or skip < 0 or skip > 1000 then
    raise exception 'skip must be between 0 and 1000' using errcode = 'invalid_parameter_value';
  end if;
  if kinds is null or cardinality(kinds) = 0 or not kinds <@ array['episode', 'fact'] then
    raise exception 'kinds must be a non-empty subset of {episode,fact}' using errcode = 'invalid_parameter_value';
  end if;
  if since > until then
    raise exception 'since is after until' using errcode = 'invalid_parameter_value';
  end if;
  n_cand := greatest(stash._setting('recall.candidates')::int, 3 * (k + skip));
  nb_hits := greatest(stash._setting('recall.neighbour_hits')::int, 2 * (k + skip));
  select d.years, d.months into yrs, mons from stash._query_dates(query) d;

  -- Without a query vector (embedder down) recall still works on full text alone.
  begin
    qvec := (stash.embed(array[query]))[1];
  exception when external_routine_exception then
    raise notice 'recall without vectors: %', sqlerrm;
  end;
  tsq := stash._query_tsquery(query);

  -- Small scopes (a bounded count) are read once, exactly: every row is compared with the query
  -- vector and matched against the text query, and both rankings come from that one pass. Large
  -- scopes use the HNSW and GIN indexes: a global index would read many other namespaces' rows to
  -- find a small namespace's few (or, post-filtered, miss them).
  if want_episodes then
    small := (select count(*) from (select 1 from stash.episodes e where e.namespace_id = any (ns_ids)
                                     limit exact_rows + 1) s) <= exact_rows;
    if small then
      with scope as materialized (
        select e.id, e.embedding <=> qvec as d,
               case when e.content_tsv @@ tsq then ts_rank(e.content_tsv, tsq) end as r
          from stash.episodes e
         where e.namespace_id = any (ns_ids) and e.deleted_at is null
           and (since is null or e.occurred_at >= since) and (until is null or e.occurred_at < until)
           and e.created_at <= at_time)
      select coalesce((select array_agg(x.id order by x.d, x.id) from (select c.id, c.d from scope c where 1 - c.d >= min_sim order by c.d, c.id limit n_cand) x), '{}'),
             coalesce((select array_agg(x.d order by x.d, x.id) from (select c.id, c.d from scope c where 1 - c.d >= min_sim order by c.d, c.id limit n_cand) x), '{}'),
             coalesce((select array_agg(x.id order by x.r desc, x.id) from (select c.id, c.r from scope c where c.r is not null order by c.r desc, c.id limit n_cand) x), '{}'),
             coalesce((select array_agg(x.r order by x.r desc, x.id) from (select c.id, c.r from scope c where c.r is not null order by c.r desc, c.id limit n_cand) x), '{}')
        into ev, ev_d, et, et_r;
    else
      if qvec is not null then
        select coalesce(array_agg(c.id order by c.d, c.id), '{}'), coalesce(array_agg(c.d order by c.d, c.id), '{}') into ev, ev_d
          from (select e.id, e.embedding <=> qvec as d from stash.episodes e
                 where e.namespace_id = any (ns_ids) and e.deleted_at is null and e.embedding is not null
                   and (since is null or e.occurred_at >= since) and (until is null or e.occurred_at < until)
                   and e.created_at <= at_time
                 order by e.embedding <=> qvec limit n_cand) c
         where 1 - c.d >= min_sim;
      end if;
      if tsq is not null then
        -- The namespace filter is checked on the text matches, not ANDed as a bitmap of the scope;
        -- only lexemes selective enough to be worth ranking are searched.
        tsq_large := stash._selective_tsquery(query, 'episodes', max_freq);
        select coalesce(array_agg(c.id order by c.r desc, c.id), '{}'), coalesce(array_agg(c.r order by c.r desc, c.id), '{}') into et, et_r
          from (select e.id, ts_rank(e.content_tsv, tsq_large) as r from stash.episodes e
                 where (e.namespace_id + 0) = any (ns_ids) and e.deleted_at is null and e.content_tsv @@ tsq_large
                   and (since is null or e.occurred_at >= since) and (until is null or e.occurred_at < until)
                   and e.created_at <= at_time
                 order by r desc, e.id limit n_cand) c;
      end if;
    end if;
  end if;

  if want_facts then
    -- Current facts only: believed at at_time, not deleted, confident enough.
    small := (select count(*) from (select 1 from stash.facts f where f.namespace_id = any (ns_ids)
                                     limit exact_rows + 1) s) <= exact_rows;
    if small then
      with scope as materialized (
        select f.id, f.embedding <=> qvec as d,
               case when f.content_tsv @@ tsq then ts_rank(f.content_tsv, tsq) end as r
          from stash.facts f
         where f.namespace_id = any (ns_ids) and f.deleted_at is null
           and f.valid_from <= at_time and (f.valid_until is null or f.valid_until > at_time)
           and f.created_at <= at_time and f.confidence >= min_conf
           and (since is null or f.valid_from >= since) and (until is null or f.valid_from < until))
      select coalesce((select array_agg(x.id order by x.d, x.id) from (select c.id, c.d from scope c where 1 - c.d >= min_sim order by c.d, c.id limit n_cand) x), '{}'),
             coalesce((select array_agg(x.d order by x.d, x.id) from (select c.id, c.d from scope c where 1 - c.d >= min_sim order by c.d, c.id limit n_cand) x), '{}'),
             coalesce((select array_agg(x.id order by x.r desc, x.id) from (select c.id, c.r from scope c where c.r is not null order by c.r desc, c.id limit n_cand) x), '{}'),
             coalesce((select array_agg(x.r order by x.r desc, x.id) from (select c.id, c.r from scope c where c.r is not null order by c.r desc, c.id limit n_cand) x), '{}')
        into fv, fv_d, ft, ft_r;
    else
      if qvec is not null then
        select coalesce(array_agg(c.id order by c.d, c.id), '{}'), coalesce(array_agg(c.d order by c.d, c.id), '{}') into fv, fv_d
          from (select f.id, f.embedding <=> qvec as d from stash.facts f
                 where f.namespace_id = any (ns_ids) and f.deleted_at is null and f.embedding is not null
                   and f.valid_from <= at_time and (f.valid_until is null or f.valid_until > at_time)
                   and f.created_at <= at_time and f.confidence >= min_conf
                   and (since is null or f.valid_from >= since) and (until is null or f.valid_from < until)
                 order by f.embedding <=> qvec limit n_cand) c
         where 1 - c.d >= min_sim;
      end if;
      if tsq is not null then
        tsq_large := stash._selective_tsquery(query, 'facts', max_freq);
        select coalesce(array_agg(c.id order by c.r desc, c.id), '{}'), coalesce(array_agg(c.r order by c.r desc, c.id), '{}') into ft, ft_r
          from (select f.id, ts_rank(f.content_tsv, tsq_large) as r from stash.facts f
                 where (f.namespace_id + 0) = any (ns_ids) and f.deleted_at is null and f.content_tsv @@ tsq_large
                   and f.valid_from <= at_time and (f.valid_until is null or f.valid_until > at_time)
                   and f.created_at <= at_time and f.confidence >= min_conf
                   and (since is null or f.valid_from >= since) and (until is null or f.valid_from < until)
                 order by r desc, f.id limit n_cand) c;
      end if;
    end if;
  end if;

  return query
    with
    ep_fused as (
      select coalesce(v.id, t.id) as id, v.r as vr, v.d, t.r as tr, t.rank,
             coalesce(1.0 / (rrf_k + v.r), 0) + coalesce(1.0 / (rrf_k + t.r), 0) as rrf
        from unnest(ev, ev_d) with ordinality v(id, d, r)
        full join unnest(et, et_r) with ordinality t(id, rank, r) on t.id = v.id),
    -- Each of the best hits lends nb_weight of its score to the live episodes just before and
    -- after it (hits further down lend too little to matter, and each costs two index probes).
    ep_nb as (
      select x.id, sum(f.rrf) as lent
        from (select * from ep_fused order by rrf desc limit nb_hits) f
        join stash.episodes c on c.id = f.id
        cross join lateral (
          (select e.id from stash.episodes e
            where e.namespace_id = c.namespace_id and e.id < c.id and e.deleted_at is null
              and (since is null or e.occurred_at >= since) and (until is null or e.occurred_at < until)
              and e.created_at <= at_time
            order by e.id desc limit 1)
          union all
          (select e.id from stash.episodes e
            where e.namespace_id = c.namespace_id and e.id > c.id and e.deleted_at is null
              and (since is null or e.occurred_at >= since) and (until is null or e.occurred_at < until)
              and e.created_at <= at_time
            order by e.id limit 1)) x
       where nb_weight > 0
       group by x.id),
    ep_scored as (
      select coalesce(f.id, n.id) as id, f.vr, f.d, f.tr, f.rank, coalesce(f.rrf, 0) as rrf,
             nb_weight * coalesce(n.lent, 0) as nb
        from ep_fused f full join ep_nb n on n.id = f.id),
    ranked as (
      select 'episode'::text as kind, e.id, ns.path::text as namespace, e.content,
             (s.rrf + s.nb) * case when (cardinality(yrs) > 0 or cardinality(mons) > 0)
                                        and (cardinality(yrs) = 0 or extract(year from e.occurred_at)::int = any (yrs))
                                        and (cardinality(mons) = 0 or extract(month from e.occurred_at)::int = any (mons))
                                   then 1 + time_boost else 1 end as score,
             null::real as confidence, e.occurred_at, null::timestamptz as valid_from,
             null::timestamptz as valid_until, e.metadata, s.vr, s.d, s.tr, s.rank, s.rrf, s.nb
        from ep_scored s
        join stash.episodes e on e.id = s.id
        join stash.namespaces ns on ns.id = e.namespace_id
      union all
      select 'fact', f.id, ns.path::text, f.content,
             -- A certain fact counts fully, a doubtful one about half.
             (coalesce(1.0 / (rrf_k + v.r), 0) + coalesce(1.0 / (rrf_k + t.r), 0)) * (0.5 + 0.5 * f.confidence),
             f.confidence, null, f.valid_from, f.valid_until,
             jsonb_strip_nulls(jsonb_build_object('entity', f.entity, 'property', f.property, 'value', f.value)),
             v.r, v.d, t.r, t.rank, coalesce(1.0 / (rrf_k + v.r), 0) + coalesce(1.0 / (rrf_k + t.r), 0), 0
        from unnest(fv, fv_d) with ordinality v(id, d, r)
        full join unnest(ft, ft_r) with ordinality t(id, rank, r) on t.id = v.id
        join stash.facts f on f.id = coalesce(v.id, t.id)
        join stash.namespaces ns on ns.id = f.namespace_id)
    select r.kind, r.id, r.namespace, r.content, r.score::double precision, r.confidence, r.occurred_at,
           r.valid_from, r.valid_until, r.metadata,
           case when explain then jsonb_build_object(
             'vector_rank', r.vr, 'cosine', round((1 - r.d)::numeric, 4), 'text_rank', r.tr,
             'text_score', round(r.rank::numeric, 4), 'rrf', round(r.rrf::numeric, 6),
             'neighbour_boost', round(r.nb::numeric, 6),
             'time_boost', r.score > r.rrf + r.nb + 1e-12 and r.kind = 'episode')
           end
      from ranked r
     order by r.score desc, r.kind, r.id
     offset skip limit k;
end
$$;
comment on function stash.recall(text, text[], int, text[], timestamptz, timestamptz, timestamptz, boolean, int) is
  'Finds the episodes and current facts most relevant to query in the given namespaces (each with its descendants; default all): hybrid of vector similarity and full text fused by reciprocal rank, with neighbouring turns, month/year mentions and fact confidence taken into account. k results after skip (paging; order is stable for unchanged data). kinds limits to episode and/or fact; since/until bound episodes'' occurred_at and facts'' valid_from; as_of recalls what was stored and believed at that time; explain adds the score components in details. Superseded, expired, deleted and low-confidence facts are never returned. Works on full text alone if the embedder is down. Errors: 22023 empty query / bad k, skip or kinds, P0002 unknown namespace.';

grant execute on function stash.recall(text, text[], int, text[], timestamptz, timestamptz, timestamptz, boolean, int),
  stash._query_tsquery(text), stash._query_dates(text), stash._selective_tsquery(text, text, real) to stash_writer, stash_reader;

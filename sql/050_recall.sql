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
  n_cand int;
  rrf_k double precision := stash._setting('recall.rrf_k')::double precision;
  nb_weight double precision := stash._setting('recall.neighbour_weight')::double precision;
  time_boost double precision := stash._setting('recall.time_boost')::double precision;
  min_conf real := stash._setting('recall.fact_min_confidence')::real;
  exact_rows int := stash._setting('recall.exact_scan_rows')::int;
  min_sim double precision := stash._setting('recall.min_similarity')::double precision;
  qvec vector;
  tsq tsquery;
  yrs int[];
  mons int[];
  at_time timestamptz := coalesce(as_of, now());
  ep_order text;
  fact_order text;
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

  -- Without a query vector (embedder down) recall still works on full text alone.
  begin
    qvec := (stash.embed(array[query]))[1];
  exception when external_routine_exception then
    raise notice 'recall without vectors: %', sqlerrm;
  end;
  tsq := stash._query_tsquery(query);
  select d.years, d.months into yrs, mons from stash._query_dates(query) d;

  -- Exact scan when the scope is small (bounded count), HNSW otherwise. "+ 0" keeps the planner
  -- from using the index for the exact scan, in custom and generic plans alike.
  ep_order := case when (select count(*) from (select 1 from stash.episodes e where e.namespace_id = any (ns_ids)
                                                limit exact_rows + 1) s) > exact_rows
                   then 'e.embedding <=> $2' else '(e.embedding <=> $2) + 0' end;
  fact_order := case when (select count(*) from (select 1 from stash.facts f where f.namespace_id = any (ns_ids)
                                                  limit exact_rows + 1) s) > exact_rows
                     then 'f.embedding <=> $2' else '(f.embedding <=> $2) + 0' end;

  return query execute format($q$
    with
    ep_vec as (
      select e.id, e.embedding <=> $2 as dist from stash.episodes e
       where 'episode' = any ($5) and $2 is not null and e.namespace_id = any ($1) and e.deleted_at is null
         and e.embedding is not null and ($6 is null or e.occurred_at >= $6) and ($7 is null or e.occurred_at < $7)
         and e.created_at <= $8
       order by %1$s limit $4),
    ep_vec_r as (select v.id, v.dist, row_number() over (order by v.dist, v.id) as r from ep_vec v where 1 - v.dist >= $18),
    ep_txt as (
      select e.id, ts_rank(e.content_tsv, $3) as rank from stash.episodes e
       where 'episode' = any ($5) and $3 is not null and e.namespace_id = any ($1) and e.deleted_at is null
         and e.content_tsv @@ $3 and ($6 is null or e.occurred_at >= $6) and ($7 is null or e.occurred_at < $7)
         and e.created_at <= $8
       order by rank desc, e.id limit $4),
    ep_txt_r as (select t.id, t.rank, row_number() over (order by t.rank desc, t.id) as r from ep_txt t),
    ep_fused as (
      select coalesce(v.id, t.id) as id, v.r as vr, v.dist, t.r as tr, t.rank as trank,
             coalesce(1.0 / ($9 + v.r), 0) + coalesce(1.0 / ($9 + t.r), 0) as rrf
        from ep_vec_r v full join ep_txt_r t on t.id = v.id),
    -- Each hit lends nb_weight of its score to the live episodes just before and after it.
    ep_nb as (
      select x.id, sum(f.rrf) as lent
        from ep_fused f
        join stash.episodes c on c.id = f.id
        cross join lateral (
          (select e.id from stash.episodes e
            where e.namespace_id = c.namespace_id and e.id < c.id and e.deleted_at is null
              and ($6 is null or e.occurred_at >= $6) and ($7 is null or e.occurred_at < $7) and e.created_at <= $8
            order by e.id desc limit 1)
          union all
          (select e.id from stash.episodes e
            where e.namespace_id = c.namespace_id and e.id > c.id and e.deleted_at is null
              and ($6 is null or e.occurred_at >= $6) and ($7 is null or e.occurred_at < $7) and e.created_at <= $8
            order by e.id limit 1)) x
       where $10 > 0
       group by x.id),
    ep_scored as (
      select coalesce(f.id, n.id) as id, f.vr, f.dist, f.tr, f.trank, coalesce(f.rrf, 0) as rrf,
             $10 * coalesce(n.lent, 0) as nb
        from ep_fused f full join ep_nb n on n.id = f.id),
    episodes_out as (
      select 'episode'::text as kind, e.id, ns.path::text as namespace, e.content,
             (s.rrf + s.nb) * case when (cardinality($12) > 0 or cardinality($13) > 0)
                                        and (cardinality($12) = 0 or extract(year from e.occurred_at)::int = any ($12))
                                        and (cardinality($13) = 0 or extract(month from e.occurred_at)::int = any ($13))
                                   then 1 + $11 else 1 end as score,
             null::real as confidence, e.occurred_at, null::timestamptz as valid_from, null::timestamptz as valid_until,
             e.metadata, s.vr, s.dist, s.tr, s.trank, s.rrf, s.nb
        from ep_scored s
        join stash.episodes e on e.id = s.id
        join stash.namespaces ns on ns.id = e.namespace_id),
    fact_scope as (
      select f.* from stash.facts f
       where 'fact' = any ($5) and f.namespace_id = any ($1) and f.deleted_at is null
         and f.valid_from <= $8 and (f.valid_until is null or f.valid_until > $8) and f.created_at <= $8
         and f.confidence >= $14 and ($6 is null or f.valid_from >= $6) and ($7 is null or f.valid_from < $7)),
    fact_vec as (
      select f.id, f.embedding <=> $2 as dist from fact_scope f
       where $2 is not null and f.embedding is not null
       order by %2$s limit $4),
    fact_vec_r as (select v.id, v.dist, row_number() over (order by v.dist, v.id) as r from fact_vec v where 1 - v.dist >= $18),
    fact_txt as (
      select f.id, ts_rank(f.content_tsv, $3) as rank from fact_scope f
       where $3 is not null and f.content_tsv @@ $3
       order by rank desc, f.id limit $4),
    fact_txt_r as (select t.id, t.rank, row_number() over (order by t.rank desc, t.id) as r from fact_txt t),
    facts_out as (
      select 'fact'::text as kind, f.id, ns.path::text as namespace, f.content,
             -- A certain fact counts fully, a doubtful one about half.
             (coalesce(1.0 / ($9 + v.r), 0) + coalesce(1.0 / ($9 + t.r), 0)) * (0.5 + 0.5 * f.confidence) as score,
             f.confidence, null::timestamptz as occurred_at, f.valid_from, f.valid_until,
             jsonb_strip_nulls(jsonb_build_object('entity', f.entity, 'property', f.property, 'value', f.value)) as metadata,
             v.r as vr, v.dist, t.r as tr, t.rank as trank,
             coalesce(1.0 / ($9 + v.r), 0) + coalesce(1.0 / ($9 + t.r), 0) as rrf, 0::double precision as nb
        from fact_vec_r v
        full join fact_txt_r t on t.id = v.id
        join stash.facts f on f.id = coalesce(v.id, t.id)
        join stash.namespaces ns on ns.id = f.namespace_id),
    ranked as (select * from episodes_out union all select * from facts_out)
    select r.kind, r.id, r.namespace, r.content, r.score::double precision, r.confidence, r.occurred_at,
           r.valid_from, r.valid_until, r.metadata,
           case when $15 then jsonb_build_object(
             'vector_rank', r.vr, 'cosine', round((1 - r.dist)::numeric, 4), 'text_rank', r.tr,
             'text_score', round(r.trank::numeric, 4), 'rrf', round(r.rrf::numeric, 6),
             'neighbour_boost', round(r.nb::numeric, 6),
             'time_boost', r.kind = 'episode' and r.score > r.rrf + r.nb + 1e-12,
             'exact_scan', case r.kind when 'episode' then %1$L not like 'e.embedding <=> %%' else %2$L not like 'f.embedding <=> %%' end)
           end as details
      from ranked r
     order by r.score desc, r.kind, r.id
     offset $16 limit $17
  $q$, ep_order, fact_order)
  using ns_ids, qvec, tsq, n_cand, kinds, since, until, at_time, rrf_k, nb_weight, time_boost, yrs, mons,
        min_conf, explain, skip, k, min_sim;
end
$$;
comment on function stash.recall(text, text[], int, text[], timestamptz, timestamptz, timestamptz, boolean, int) is
  'Finds the episodes and current facts most relevant to query in the given namespaces (each with its descendants; default all): hybrid of vector similarity and full text fused by reciprocal rank, with neighbouring turns, month/year mentions and fact confidence taken into account. k results after skip (paging; order is stable for unchanged data). kinds limits to episode and/or fact; since/until bound episodes'' occurred_at and facts'' valid_from; as_of recalls what was stored and believed at that time; explain adds the score components in details. Superseded, expired, deleted and low-confidence facts are never returned. Works on full text alone if the embedder is down. Errors: 22023 empty query / bad k, skip or kinds, P0002 unknown namespace.';

grant execute on function stash.recall(text, text[], int, text[], timestamptz, timestamptz, timestamptz, boolean, int),
  stash._query_tsquery(text), stash._query_dates(text) to stash_writer, stash_reader;

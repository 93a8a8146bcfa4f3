-- Forget (soft delete, reversible by a DBA) and purge (hard delete, the GDPR path).
-- Both take derived knowledge with them: a fact whose every source episode is gone goes too.

create function stash.forget(about text default null, episode_id bigint default null,
                             namespaces text[] default '{/}', max_rows int default 1,
                             min_similarity double precision default null, dry_run boolean default false)
returns table (kind text, id bigint, namespace text, content text, similarity double precision, forgotten boolean)
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(namespaces);
  floor_sim double precision := coalesce(min_similarity, stash._setting('forget.min_similarity')::double precision);
  qvec vector;
  targets bigint[];
  sims double precision[];
  facts_gone bigint[];
begin
  if (about is null) = (episode_id is null) then
    raise exception 'give exactly one of about (text) or episode_id' using errcode = 'invalid_parameter_value',
      hint = 'Recall first, then forget by the episode''s id or its exact wording.';
  end if;
  if max_rows is null or max_rows not between 1 and 100 then
    raise exception 'max_rows must be between 1 and 100' using errcode = 'invalid_parameter_value';
  end if;
  if floor_sim is null or floor_sim not between 0 and 1 then
    raise exception 'min_similarity must be between 0 and 1' using errcode = 'invalid_parameter_value';
  end if;

  if episode_id is not null then
    select array[e.id], array[null::double precision] into targets, sims from stash.episodes e
     where e.id = episode_id and e.namespace_id = any (ns_ids) and e.deleted_at is null;
    if not found then
      raise exception 'episode % not found in the given namespaces', episode_id using errcode = 'no_data_found';
    end if;
  else
    if about !~ '[^[:space:]]' then
      raise exception 'about must not be empty' using errcode = 'invalid_parameter_value';
    end if;
    qvec := (stash.embed(array[about]))[1];
    -- Only what is really like the description: a vague request forgets nothing rather than the
    -- nearest unrelated memory.
    select coalesce(array_agg(s.id order by s.sim desc, s.id), '{}'), coalesce(array_agg(s.sim order by s.sim desc, s.id), '{}')
      into targets, sims
      from (select e.id, 1 - ((e.embedding <=> qvec) + 0) as sim
              from stash.episodes e
             where e.namespace_id = any (ns_ids) and e.deleted_at is null and e.embedding is not null
             order by (e.embedding <=> qvec) + 0
             limit max_rows) s
     where s.sim >= floor_sim;
  end if;

  -- Facts that lose their last live source.
  facts_gone := array(
    select distinct fs.fact_id from stash.fact_sources fs join stash.facts f on f.id = fs.fact_id
     where fs.episode_id = any (targets) and f.deleted_at is null
       and not exists (select from stash.fact_sources o join stash.episodes e on e.id = o.episode_id
                        where o.fact_id = fs.fact_id and e.deleted_at is null and e.id <> all (targets)));
  if not dry_run then
    update stash.episodes e set deleted_at = now() where e.id = any (targets);
    update stash.facts f set deleted_at = now(), updated_at = now() where f.id = any (facts_gone);
  end if;
  return query
    select 'episode'::text, e.id, ns.path::text, e.content, t.sim, not dry_run
      from unnest(targets, sims) with ordinality t(id, sim, i)
      join stash.episodes e on e.id = t.id join stash.namespaces ns on ns.id = e.namespace_id
    union all
    select 'fact'::text, f.id, ns.path::text, f.content, null::double precision, not dry_run
      from stash.facts f join stash.namespaces ns on ns.id = f.namespace_id where f.id = any (facts_gone)
    order by 1, 5 desc nulls last, 2;
end
$$;
comment on function stash.forget(text, bigint, text[], int, double precision, boolean) is
  'Soft-deletes episodes: one by episode_id, or up to max_rows whose similarity to about is at least min_similarity (default setting forget.min_similarity) — a vague description forgets nothing. Facts whose every source episode is forgotten are forgotten too. dry_run previews. Returns what it forgot (or would). Errors: 22023 both/neither of about and episode_id, bad max_rows or min_similarity; P0002 episode not found; 38000 embedder down (about).';

create function stash.purge(episode_id bigint default null, namespace text default null)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  ns_path text;
  ns_ids bigint[];
  ep_ids bigint[];
  fact_ids bigint[];
  hashes bytea[];
  n_namespaces int := 0;
  n_cache int;
  n_patterns int := 0;
  audit bigint;
begin
  if (episode_id is null) = (namespace is null) then
    raise exception 'give exactly one of episode_id or namespace' using errcode = 'invalid_parameter_value';
  end if;
  if episode_id is not null then
    select ns.path into ns_path
      from stash.episodes e join stash.namespaces ns on ns.id = e.namespace_id where e.id = episode_id
       for update of e;
    if not found then
      raise exception 'episode % does not exist', episode_id using errcode = 'no_data_found';
    end if;
    ep_ids := array[episode_id];
    -- Derived facts whose every source is this episode go with it; the rest only lose the link.
    fact_ids := array(
      select fs.fact_id from stash.fact_sources fs where fs.episode_id = purge.episode_id
         and not exists (select from stash.fact_sources o where o.fact_id = fs.fact_id and o.episode_id <> purge.episode_id));
  else
    ns_path := stash._normalize_path(namespace);
    if ns_path = '/' then
      raise exception 'purging / would delete every memory' using errcode = 'invalid_parameter_value',
        hint = 'Purge the top-level namespaces one by one (stash.list_namespaces shows them).';
    end if;
    ns_ids := stash._namespace_ids(array[ns_path]);
    ep_ids := array(select e.id from stash.episodes e where e.namespace_id = any (ns_ids));
    fact_ids := array(select f.id from stash.facts f where f.namespace_id = any (ns_ids));
  end if;

  -- The embedding cache holds no text, but a row keyed by the text's hash still betrays it.
  hashes := array(
    select sha256(convert_to(e.content, 'UTF8')) from stash.episodes e where e.id = any (ep_ids)
    union select sha256(convert_to(f.content, 'UTF8')) from stash.facts f where f.id = any (fact_ids)
    union select sha256(convert_to(p.content, 'UTF8')) from stash.patterns p where p.namespace_id = any (ns_ids));

  if episode_id is not null then
    delete from stash.facts f where f.id = any (fact_ids);
    delete from stash.episodes e where e.id = episode_id;
  else
    select count(*) into n_patterns from stash.patterns p where p.namespace_id = any (ns_ids);
    -- Their consolidation schedules go too (the ones this role can see: pg_cron shows each role
    -- its own jobs), rather than failing every few minutes on a namespace that is gone.
    perform cron.unschedule(j.jobid) from cron.job j
      where j.jobname in (select 'stash.consolidate:' || n.path from stash.namespaces n where n.id = any (ns_ids));
    -- Every namespaced table, explicitly: the root row stays (it always exists), so its rows cannot
    -- ride on a cascade from the namespace row like the rest of the subtree's.
    delete from stash.contexts t where t.namespace_id = any (ns_ids);
    delete from stash.consolidation_progress t where t.namespace_id = any (ns_ids);
    delete from stash.consolidation_runs t where t.namespace_id = any (ns_ids);
    delete from stash.patterns t where t.namespace_id = any (ns_ids);
    delete from stash.hypotheses t where t.namespace_id = any (ns_ids);
    delete from stash.failures t where t.namespace_id = any (ns_ids);
    delete from stash.goals t where t.namespace_id = any (ns_ids);
    delete from stash.relationships t where t.namespace_id = any (ns_ids);
    delete from stash.causal_links t where t.namespace_id = any (ns_ids);
    delete from stash.contradictions t where t.namespace_id = any (ns_ids);
    delete from stash.fact_sources t where t.namespace_id = any (ns_ids);
    delete from stash.facts t where t.namespace_id = any (ns_ids);
    delete from stash.episodes t where t.namespace_id = any (ns_ids);
    with gone as (delete from stash.namespaces n where n.id = any (ns_ids) and n.path <> '/' returning 1)
    select count(*) into n_namespaces from gone;
  end if;
  with gone as (delete from stash.embedding_cache c where c.text_hash = any (hashes) returning 1)
  select count(*) into n_cache from gone;

  insert into stash.purge_log (target, namespace_path, episode_ids, fact_ids, counts)
  values (case when episode_id is null then 'namespace' else 'episode' end, ns_path, ep_ids, fact_ids,
          jsonb_build_object('episodes', cardinality(ep_ids), 'facts', cardinality(fact_ids),
                             'patterns', n_patterns, 'namespaces', n_namespaces, 'cache_rows', n_cache))
  returning id into audit;
  return jsonb_build_object('purge_id', audit, 'namespace', ns_path, 'episodes', cardinality(ep_ids),
                            'facts', cardinality(fact_ids), 'patterns', n_patterns,
                            'namespaces', n_namespaces, 'cache_rows', n_cache);
end
$$;
comment on function stash.purge(bigint, text) is
  'Hard-deletes one episode (episode_id) or a whole namespace subtree (namespace, with the subtree''s consolidation schedules; / is refused). Facts whose every source is purged go with it, other facts lose the link; the embedding-cache rows of purged text are deleted too. Writes an audit row to stash.purge_log (ids and counts, never content) and returns its summary. Destructive and irreversible. Errors: 22023 both/neither argument or /, P0002 unknown episode or namespace.';

grant execute on function stash.forget(text, bigint, text[], int, double precision, boolean),
  stash.purge(bigint, text) to stash_writer;

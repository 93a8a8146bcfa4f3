-- Read-only overviews for people and agents: how consolidation is doing in some namespaces, and
-- how the whole installation is configured and loaded. One call each, so the MCP tools and the
-- `stash` command stay thin.

create function stash.consolidation_status(namespaces text[] default '{/}', k int default 20, skip int default 0)
returns jsonb
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ids bigint[] := stash._namespace_ids(namespaces);
  paths text[];
begin
  perform stash._check_page(k, skip);
  select array_agg(n.path::text) into paths from stash.namespaces n where n.id = any (ids);
  return jsonb_build_object(
    'runs', coalesce((
      select jsonb_agg(to_jsonb(r) order by r.started_at desc, r.id desc)
        from (select r.id, n.path::text as namespace, r.triggered_by, r.status, r.started_at, r.finished_at,
                     round(extract(epoch from (coalesce(r.finished_at, now()) - r.started_at)) * 1000)::bigint as duration_ms,
                     r.counters, r.llm_calls, r.prompt_tokens, r.completion_tokens, r.errors
                from stash.consolidation_runs r
                join stash.namespaces n on n.id = r.namespace_id
               where r.namespace_id = any (ids)
               order by r.started_at desc, r.id desc
               limit k offset skip) r), '[]'),
    -- Per-namespace jobs in scope, and the installation-wide ones (they cover every namespace).
    'schedules', coalesce((
      select jsonb_agg(to_jsonb(s) order by s.job)
        from stash.consolidation_schedules s
       where s.namespace is null or s.namespace = any (paths)), '[]'),
    'pending', coalesce((
      select jsonb_agg(jsonb_build_object('namespace', n.path::text, 'episodes', p.waiting) order by n.path)
        from stash.namespaces n
        cross join lateral (select count(*) as waiting from stash.episodes e
                             where e.namespace_id = n.id and e.deleted_at is null
                               and e.id > stash._checkpoint(n.id, 'facts')) p
       where n.id = any (ids) and p.waiting > 0), '[]'),
    'dead_letters', (select count(*) from stash.consolidation_failures f where f.namespace_id = any (ids) and f.dead),
    'retrying', (select count(*) from stash.consolidation_failures f where f.namespace_id = any (ids) and not f.dead));
end
$$;
comment on function stash.consolidation_status(text[], int, int) is
  'How consolidation is doing in the given namespaces (and descendants): "runs" (most recent first, k after skip: status, counters, LLM calls and tokens, errors), "schedules" (their pg_cron jobs and the installation-wide ones, with last run), "pending" (episodes not yet consolidated, per namespace), "dead_letters" and "retrying" (items a stage failed on). Errors: P0002 unknown namespace, 22023 invalid path or page.';

create function stash.status()
returns jsonb
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  return jsonb_build_object(
    'database', current_database(),
    'server_version', current_setting('server_version'),
    'role', current_user,
    'read_only', pg_is_in_recovery() or current_setting('transaction_read_only')::boolean,
    'code_version', (select s.value ->> 0 from stash.settings s where s.key = 'code.version'),
    'extensions', (select jsonb_object_agg(e.extname, e.extversion order by e.extname) from pg_extension e
                    where e.extname in ('vector', 'pg_cron', 'plpython3u')),
    'embedder', jsonb_build_object('provider', stash._setting('embedding.provider') ->> 0,
                                   'model', stash._setting('embedding.model') ->> 0,
                                   'dimension', stash._setting('embedding.dimension')),
    'reasoner', jsonb_build_object('provider', stash._setting('reasoner.provider') ->> 0,
                                   'model', stash._setting('reasoner.model') ->> 0),
    'namespaces', (select count(*) from stash.namespaces),
    'episodes', (select count(*) from stash.episodes e where e.deleted_at is null),
    'facts', (select count(*) from stash.facts f where f.deleted_at is null and f.superseded_by is null
                 and (f.valid_until is null or f.valid_until > now())),
    'pending_embeddings', jsonb_build_object(
       'episodes', (select count(*) from stash.episodes e where e.deleted_at is null and e.embedding is null),
       'facts', (select count(*) from stash.facts f where f.deleted_at is null and f.embedding is null)),
    'last_runs', coalesce((
      select jsonb_agg(to_jsonb(r) order by r.started_at desc)
        from (select n.path::text as namespace, r.status, r.triggered_by, r.started_at, r.finished_at
                from stash.consolidation_runs r join stash.namespaces n on n.id = r.namespace_id
               order by r.started_at desc limit 5) r), '[]'),
    'schedules', (select count(*) from stash.consolidation_schedules s where s.active));
end
$$;
comment on function stash.status() is
  'An overview of this installation as the calling role sees it: database, server and extension versions, the deployed code version, embedder and reasoner settings, counts of namespaces, live episodes and current facts, embeddings still pending, the last consolidation runs and the number of active schedules.';

grant execute on function stash.consolidation_status(text[], int, int), stash.status() to stash_writer, stash_reader;
-- consolidation_status reads checkpoints for its "pending" counts.
grant execute on function stash._checkpoint(bigint, text) to stash_reader;

-- Scheduling with pg_cron: per-namespace consolidation jobs, and the default jobs that make
-- consolidation and decay happen without anyone asking. Jobs are named, so scheduling again
-- replaces rather than duplicates.

create view stash.consolidation_schedules with (security_invoker = true) as
  select j.jobname::text collate "default" as job,
         case when j.jobname like 'stash.consolidate:%' then substr(j.jobname, 19) collate "default" end as namespace,
         j.schedule, j.command, j.active, j.username::text collate "default" as run_as,
         d.status as last_status, d.start_time as last_start, d.end_time as last_end, d.return_message as last_message
    from cron.job j
    left join lateral (select r.status, r.start_time, r.end_time, r.return_message from cron.job_run_details r
                        where r.jobid = j.jobid order by r.start_time desc nulls last limit 1) d on true
   where j.jobname like 'stash.%';
comment on view stash.consolidation_schedules is
  'Stash''s pg_cron jobs (per-namespace consolidation, automatic consolidation, maintenance) with their last run.';
grant select on stash.consolidation_schedules to stash_writer, stash_reader;

create function stash.schedule_consolidation(namespace text, schedule text default '*/10 * * * *')
returns setof stash.consolidation_schedules
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  path text := stash._normalize_path(namespace);
  job_name text := 'stash.consolidate:' || path;
begin
  perform stash._namespace_id(path);
  if schedule is null or schedule !~ '[^[:space:]]' then
    raise exception 'schedule must be a cron expression, e.g. */10 * * * *' using errcode = 'invalid_parameter_value';
  end if;
  begin
    perform cron.schedule(job_name, schedule, format('select stash.consolidate(%L, %L)', path, 'cron'));
  exception when invalid_parameter_value or syntax_error or data_exception then
    raise exception 'invalid cron schedule %: %', schedule, sqlerrm using errcode = 'invalid_parameter_value',
      hint = 'Five fields (minute hour day month weekday), e.g. */10 * * * *; pg_cron 1.4 has no seconds.';
  end;
  return query select * from stash.consolidation_schedules s where s.job = job_name;
end
$$;
comment on function stash.schedule_consolidation(text, text) is
  'Schedules consolidation of a namespace (and its descendants) with pg_cron; scheduling again replaces the schedule. Errors: P0002 unknown namespace, 22023 invalid cron expression.';

create function stash.unschedule_consolidation(namespace text)
returns boolean
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  job_name text := 'stash.consolidate:' || stash._normalize_path(namespace);
begin
  if not exists (select from cron.job j where j.jobname = job_name) then
    return false;
  end if;
  return cron.unschedule(job_name);
end
$$;
comment on function stash.unschedule_consolidation(text) is
  'Removes a namespace''s consolidation schedule; false if there was none. Errors: 22023 invalid path.';

-- The procedures have no SET search_path: a procedure with SET clauses cannot COMMIT. Everything
-- in them is schema-qualified.
create procedure stash.consolidate_pending(max_namespaces int default null)
language plpgsql
security invoker
as $$
declare
  limit_ns int := coalesce(max_namespaces, stash._setting('consolidation.auto_max_namespaces')::int);
  nid bigint;
begin
  -- Namespaces with episodes waiting: enough of them, or waiting long enough. A namespace whose
  -- recent runs failed backs off (5 minutes, doubling per failure, at most about 5 hours).
  for nid in
    select n.id
      from stash.namespaces n
      cross join lateral (select count(*) as waiting, min(e.created_at) as oldest from stash.episodes e
                           where e.namespace_id = n.id and e.deleted_at is null
                             and e.id > stash._checkpoint(n.id, 'facts')) p
      cross join lateral (select count(*) as failures, max(r.started_at) as last_failure
                            from (select r.status, r.started_at from stash.consolidation_runs r
                                   where r.namespace_id = n.id order by r.started_at desc limit 6) r
                           where r.status = 'failed') f
     where p.waiting > 0
       and (p.waiting >= stash._setting('consolidation.auto_min_backlog', n.id)::int
            or p.oldest < now() - (stash._setting('consolidation.auto_max_wait', n.id) ->> 0)::interval)
       and (f.failures = 0 or f.last_failure < now() - interval '5 minutes' * power(2, f.failures - 1))
     order by p.oldest
     limit limit_ns
  loop
    perform stash._consolidate_namespace(nid, 'auto');
    commit;  -- each namespace's work is kept even if a later one fails
  end loop;
end
$$;
comment on procedure stash.consolidate_pending(int) is
  'Consolidates, one namespace per transaction, the namespaces with a backlog (consolidation.auto_min_backlog episodes, or one older than consolidation.auto_max_wait), oldest first, at most max_namespaces; namespaces whose runs keep failing back off exponentially. Run by the stash.auto_consolidate job.';

create procedure stash.run_maintenance(backfill_rows int default 5000)
language plpgsql
security invoker
as $$
declare
  nid bigint;
begin
  -- Decay every namespace (each under its consolidation lock, skipped if a run holds it).
  for nid in select n.id from stash.namespaces n order by n.path loop
    if pg_try_advisory_xact_lock(1398034504, (nid % 2147483647)::int) then
      perform stash._stage_decay(nid);
    end if;
    commit;
  end loop;
  delete from stash.contexts c where c.expires_at <= now();
  commit;
  -- The cache only grows otherwise (every new query adds a row).
  delete from stash.embedding_cache c
   where c.created_at < now() - (stash._setting('embedding.cache_max_age') ->> 0)::interval;
  commit;
  begin
    perform stash.backfill_embeddings(backfill_rows);
  exception when external_routine_exception then
    raise warning 'maintenance: embeddings not backfilled: %', sqlerrm;
  end;
end
$$;
comment on procedure stash.run_maintenance(int) is
  'Daily upkeep, run by the stash.maintenance job: decay in every namespace, expired contexts removed, cached embeddings older than embedding.cache_max_age dropped, pending embeddings backfilled.';

create function stash.schedule_defaults(auto_consolidate text default '*/5 * * * *', maintenance text default '17 3 * * *')
returns setof stash.consolidation_schedules
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  -- Only when absent: a schedule someone changed is left as it is.
  if not exists (select from cron.job j where j.jobname = 'stash.auto_consolidate') then
    perform cron.schedule('stash.auto_consolidate', auto_consolidate, 'call stash.consolidate_pending()');
  end if;
  if not exists (select from cron.job j where j.jobname = 'stash.maintenance') then
    perform cron.schedule('stash.maintenance', maintenance, 'call stash.run_maintenance()');
  end if;
  return query select * from stash.consolidation_schedules s where s.job in ('stash.auto_consolidate', 'stash.maintenance');
end
$$;
comment on function stash.schedule_defaults(text, text) is
  'Installs the default jobs if absent: stash.auto_consolidate (every 5 minutes: namespaces with new episodes) and stash.maintenance (daily: decay, expired contexts, embedding backfill). make up runs it.';

grant execute on function stash.schedule_consolidation(text, text), stash.unschedule_consolidation(text),
  stash.schedule_defaults(text, text) to stash_writer;
grant execute on procedure stash.consolidate_pending(int), stash.run_maintenance(int) to stash_writer;

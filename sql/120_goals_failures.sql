-- Goals (a sub-goal tree; active -> completed | abandoned) and failures (what was tried, why it
-- failed, the lesson). Sub-goals and a failure's goal live in the same namespace.

create view stash.goal_details with (security_invoker = true) as
  select g.id, n.path::text collate "default" as namespace, g.namespace_id, g.parent_id, g.content, g.status, g.priority, g.notes,
         (select count(*) from stash.goals c where c.parent_id = g.id and c.deleted_at is null
             and c.status <> 'abandoned') as sub_goals,
         (select count(*) from stash.goals c where c.parent_id = g.id and c.deleted_at is null
             and c.status = 'completed') as sub_goals_completed,
         g.completed_at, g.abandoned_at, g.created_at, g.updated_at
    from stash.goals g join stash.namespaces n on n.id = g.namespace_id
   where g.deleted_at is null;
comment on view stash.goal_details is
  'Live goals with their namespace path and sub-goal counts (abandoned sub-goals do not count).';

create view stash.failure_details with (security_invoker = true) as
  select f.id, n.path::text collate "default" as namespace, f.namespace_id, f.goal_id, f.content, f.reason, f.lesson, f.created_by,
         f.created_at
    from stash.failures f join stash.namespaces n on n.id = f.namespace_id
   where f.deleted_at is null;
comment on view stash.failure_details is 'Live failures with their namespace path.';
grant select on stash.goal_details, stash.failure_details to stash_writer, stash_reader;

create function stash._active_goal_for_update(id bigint, action text)
returns stash.goals
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  g stash.goals;
begin
  select * into g from stash.goals x where x.id = _active_goal_for_update.id and x.deleted_at is null for update;
  if not found then
    raise exception 'goal % does not exist', _active_goal_for_update.id using errcode = 'no_data_found';
  end if;
  if g.status <> 'active' then
    raise exception 'goal % is %; only an active goal can be %', g.id, g.status, action
      using errcode = 'object_not_in_prerequisite_state';
  end if;
  return g;
end
$$;
comment on function stash._active_goal_for_update(bigint, text) is
  'Locks a live, active goal. Errors: P0002 no such goal, 55000 not active.';

create function stash._check_priority(priority int)
returns int
language plpgsql
immutable
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  if priority is null or priority not between -100 and 100 then
    raise exception 'priority must be between -100 and 100' using errcode = 'invalid_parameter_value',
      hint = 'For example 10 critical, 5 important, 1 nice to have.';
  end if;
  return priority;
end
$$;
comment on function stash._check_priority(int) is 'Validates a goal priority. Errors: 22023.';

create function stash.create_goal(namespace text, content text, parent_id bigint default null, priority int default 0)
returns setof stash.goal_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns bigint := stash._namespace_id(namespace);
  parent stash.goals;
  new_id bigint;
begin
  if parent_id is not null then
    parent := stash._active_goal_for_update(parent_id, 'given sub-goals');
    if parent.namespace_id <> ns then
      raise exception 'parent goal % is in another namespace', parent_id using errcode = 'invalid_parameter_value',
        hint = 'A sub-goal lives in its parent''s namespace.';
    end if;
  end if;
  insert into stash.goals (namespace_id, parent_id, content, priority)
  values (ns, create_goal.parent_id, stash._check_text(content, 'content'), stash._check_priority(priority))
  returning id into new_id;
  return query select * from stash.goal_details d where d.id = new_id;
end
$$;
comment on function stash.create_goal(text, text, bigint, int) is
  'Creates a goal in exactly this namespace, optionally as a sub-goal of an active goal of the same namespace. Errors: P0002 unknown namespace or parent, 55000 parent not active, 22023 parent elsewhere / empty content / bad priority.';

create function stash.complete_goal(id bigint, notes text default null)
returns setof stash.goal_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  g stash.goals := stash._active_goal_for_update(id, 'completed');
  up bigint := g.parent_id;
begin
  update stash.goals x
     set status = 'completed', completed_at = now(), updated_at = now(),
         notes = coalesce(stash._check_text(complete_goal.notes, 'notes', 65536, false), x.notes)
   where x.id = g.id;
  -- Completing the last open sub-goal completes the parent, and so on upward.
  while up is not null loop
    perform 1 from stash.goals x where x.id = up for update;
    exit when exists (select from stash.goals c where c.parent_id = up and c.deleted_at is null and c.status = 'active')
           or not exists (select from stash.goals x where x.id = up and x.status = 'active' and x.deleted_at is null);
    update stash.goals x set status = 'completed', completed_at = now(), updated_at = now() where x.id = up;
    select x.parent_id into up from stash.goals x where x.id = up;
  end loop;
  return query select * from stash.goal_details d where d.id = g.id;
end
$$;
comment on function stash.complete_goal(bigint, text) is
  'active -> completed (notes, if given, replace the goal''s notes). If that was the last open sub-goal, the parent completes too, upward. Errors: P0002, 55000 not active.';

create function stash.abandon_goal(id bigint, notes text default null)
returns setof stash.goal_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  g stash.goals := stash._active_goal_for_update(id, 'abandoned');
begin
  update stash.goals x
     set status = 'abandoned', abandoned_at = now(), updated_at = now(),
         notes = coalesce(stash._check_text(abandon_goal.notes, 'notes', 65536, false), x.notes)
   where x.id = g.id;
  return query select * from stash.goal_details d where d.id = g.id;
end
$$;
comment on function stash.abandon_goal(bigint, text) is
  'active -> abandoned (notes, if given, replace the notes); sub-goals are left as they are. Errors: P0002, 55000 not active.';

create function stash.update_goal(id bigint, content text default null, priority int default null, notes text default null)
returns setof stash.goal_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  g stash.goals := stash._active_goal_for_update(id, 'updated');
begin
  if content is null and priority is null and notes is null then
    raise exception 'nothing to update: give content, priority or notes' using errcode = 'invalid_parameter_value';
  end if;
  update stash.goals x
     set content = coalesce(stash._check_text(update_goal.content, 'content', 65536, false), x.content),
         priority = case when update_goal.priority is null then x.priority else stash._check_priority(update_goal.priority) end,
         notes = coalesce(update_goal.notes, x.notes), updated_at = now()
   where x.id = g.id;
  return query select * from stash.goal_details d where d.id = g.id;
end
$$;
comment on function stash.update_goal(bigint, text, int, text) is
  'Changes an active goal''s content, priority (0 allowed) or notes; null keeps each. Errors: P0002, 55000 not active, 22023 nothing to change / bad priority.';

create function stash.delete_goal(id bigint)
returns int
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  n int;
begin
  if not exists (select from stash.goals x where x.id = delete_goal.id and x.deleted_at is null) then
    raise exception 'goal % does not exist', id using errcode = 'no_data_found';
  end if;
  with recursive tree as (
    select x.id from stash.goals x where x.id = delete_goal.id
    union
    select c.id from stash.goals c join tree t on c.parent_id = t.id where c.deleted_at is null
  ), gone as (
    update stash.goals x set deleted_at = now(), updated_at = now()
      from tree where x.id = tree.id and x.deleted_at is null returning 1)
  select count(*) into n from gone;
  return n;
end
$$;
comment on function stash.delete_goal(bigint) is
  'Deletes (soft) a goal and all its sub-goals; returns how many. Errors: P0002 no such goal.';

create function stash.list_goals(namespaces text[] default '{/}', status text default null, parent_id bigint default null,
                                 k int default 100, skip int default 0)
returns setof stash.goal_details
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(namespaces);
begin
  perform stash._check_page(k, skip);
  if status is not null and status not in ('active', 'completed', 'abandoned') then
    raise exception 'status must be active, completed or abandoned' using errcode = 'invalid_parameter_value';
  end if;
  return query
    select d.* from stash.goal_details d
     where d.namespace_id = any (ns_ids)
       and (list_goals.status is null or d.status = list_goals.status)
       -- Top-level goals, or the children of parent_id.
       and d.parent_id is not distinct from list_goals.parent_id
     order by d.priority desc, d.created_at, d.id
     limit k offset skip;
end
$$;
comment on function stash.list_goals(text[], text, bigint, int, int) is
  'Live goals in the given namespaces (and descendants): top-level ones, or the sub-goals of parent_id; optionally of one status; highest priority first, with sub-goal counts. Errors: P0002 unknown namespace, 22023 bad status or page.';

create function stash.get_goal(id bigint)
returns jsonb
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  result jsonb;
begin
  select jsonb_build_object(
    'goal', to_jsonb(d),
    'sub_goals', coalesce((select jsonb_agg(to_jsonb(c) order by c.priority desc, c.created_at)
                             from stash.goal_details c where c.parent_id = d.id), '[]'),
    'failures', coalesce((select jsonb_agg(to_jsonb(f) order by f.created_at desc)
                            from stash.failure_details f where f.goal_id = d.id), '[]'))
    into result
    from stash.goal_details d where d.id = get_goal.id;
  if result is null then
    raise exception 'goal % does not exist', id using errcode = 'no_data_found';
  end if;
  return result;
end
$$;
comment on function stash.get_goal(bigint) is
  'A live goal with its direct sub-goals and the failures recorded against it. Errors: P0002 no such live goal.';

create function stash.create_failure(namespace text, content text, reason text, lesson text, goal_id bigint default null)
returns setof stash.failure_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns bigint := stash._namespace_id(namespace);
  goal_ns bigint;
  new_id bigint;
begin
  if goal_id is not null then
    select g.namespace_id into goal_ns from stash.goals g where g.id = create_failure.goal_id and g.deleted_at is null;
    if not found then
      raise exception 'goal % does not exist', goal_id using errcode = 'no_data_found';
    end if;
    if goal_ns <> ns then
      raise exception 'goal % is in another namespace', goal_id using errcode = 'invalid_parameter_value';
    end if;
  end if;
  insert into stash.failures (namespace_id, goal_id, content, reason, lesson)
  values (ns, create_failure.goal_id, stash._check_text(content, 'content'), stash._check_text(reason, 'reason'),
          stash._check_text(lesson, 'lesson'))
  returning id into new_id;
  return query select * from stash.failure_details d where d.id = new_id;
end
$$;
comment on function stash.create_failure(text, text, text, text, bigint) is
  'Records a failed approach in exactly this namespace: what was tried (content), why it failed (reason) and what to do instead (lesson), all required; optionally against a goal of the same namespace. Errors: P0002 unknown namespace or goal, 22023 missing text / goal elsewhere.';

create function stash.list_failures(namespaces text[] default '{/}', goal_id bigint default null,
                                    k int default 100, skip int default 0)
returns setof stash.failure_details
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(namespaces);
begin
  perform stash._check_page(k, skip);
  return query
    select d.* from stash.failure_details d
     where d.namespace_id = any (ns_ids) and (list_failures.goal_id is null or d.goal_id = list_failures.goal_id)
     order by d.created_at desc, d.id desc
     limit k offset skip;
end
$$;
comment on function stash.list_failures(text[], bigint, int, int) is
  'Live failures in the given namespaces (and descendants), optionally of one goal; newest first. Errors: P0002 unknown namespace, 22023 bad page.';

create function stash.get_failure(id bigint)
returns setof stash.failure_details
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  return query select * from stash.failure_details d where d.id = get_failure.id;
  if not found then
    raise exception 'failure % does not exist', id using errcode = 'no_data_found';
  end if;
end
$$;
comment on function stash.get_failure(bigint) is 'One live failure. Errors: P0002 no such live failure.';

create function stash.delete_failure(id bigint)
returns boolean
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  update stash.failures x set deleted_at = now() where x.id = delete_failure.id and x.deleted_at is null;
  if not found then
    raise exception 'failure % does not exist', id using errcode = 'no_data_found';
  end if;
  return true;
end
$$;
comment on function stash.delete_failure(bigint) is 'Deletes (soft) a failure. Errors: P0002.';

grant execute on function stash.list_goals(text[], text, bigint, int, int), stash.get_goal(bigint),
  stash.list_failures(text[], bigint, int, int), stash.get_failure(bigint) to stash_writer, stash_reader;
grant execute on function stash.create_goal(text, text, bigint, int), stash.complete_goal(bigint, text),
  stash.abandon_goal(bigint, text), stash.update_goal(bigint, text, int, text), stash.delete_goal(bigint),
  stash.create_failure(text, text, text, text, bigint), stash.delete_failure(bigint),
  stash._active_goal_for_update(bigint, text), stash._check_priority(int) to stash_writer;

-- Contexts: the current working focus of one exact namespace, with a TTL that reads enforce.

create view stash.current_contexts with (security_invoker = true) as
  select n.path::text collate "default" as path, c.namespace_id, c.focus, c.expires_at, c.created_at, c.updated_at
    from stash.contexts c join stash.namespaces n on n.id = c.namespace_id
   where c.expires_at > now();
comment on view stash.current_contexts is 'Contexts that have not expired (an expired context reads as absent)';
grant select on stash.current_contexts to stash_writer, stash_reader;

create function stash.set_context(namespace text, focus text, ttl interval default null)
returns setof stash.current_contexts
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns bigint := stash._namespace_id(namespace);
  lifetime interval := coalesce(ttl, (stash._setting('context.default_ttl', ns) ->> 0)::interval);
begin
  if set_context.focus is null or set_context.focus !~ '[^[:space:]]' then
    raise exception 'focus must not be empty' using errcode = 'invalid_parameter_value',
      hint = 'Say in a sentence what is being worked on and the next step.';
  end if;
  if octet_length(set_context.focus) > stash._setting('episode.max_bytes')::int then
    raise exception 'focus is longer than episode.max_bytes' using errcode = 'string_data_right_truncation';
  end if;
  if lifetime <= interval '0' or lifetime > interval '30 days' then
    raise exception 'ttl must be positive and at most 30 days' using errcode = 'invalid_parameter_value';
  end if;
  insert into stash.contexts as c (namespace_id, focus, expires_at)
  values (ns, set_context.focus, now() + lifetime)
  on conflict (namespace_id) do update
     set focus = excluded.focus, expires_at = excluded.expires_at, updated_at = now(),
         -- an expired context being replaced is a new one
         created_at = case when c.expires_at <= now() then now() else c.created_at end;
  return query select * from stash.get_context(namespace);
end
$$;
comment on function stash.set_context(text, text, interval) is
  'Sets the working focus of exactly this namespace for ttl (default setting context.default_ttl, 1 hour; at most 30 days), replacing any previous one. Errors: P0002 unknown namespace, 22023 empty focus or bad ttl, 22001 focus too long.';

create function stash.get_context(namespace text)
returns setof stash.current_contexts
language sql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select * from stash.current_contexts c where c.namespace_id = stash._namespace_id(namespace);
$$;
comment on function stash.get_context(text) is
  'The live context of exactly this namespace: one row, or none when there is none or it has expired. Errors: P0002 unknown namespace.';

create function stash.clear_context(namespace text)
returns boolean
language sql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
  with gone as (delete from stash.contexts c where c.namespace_id = stash._namespace_id(namespace)
                returning c.expires_at > now() as live)
  select coalesce(bool_or(live), false) from gone;
$$;
comment on function stash.clear_context(text) is
  'Removes the context of exactly this namespace; true if a live one was cleared. Errors: P0002 unknown namespace.';

grant execute on function stash.set_context(text, text, interval), stash.clear_context(text) to stash_writer;
grant execute on function stash.get_context(text) to stash_writer, stash_reader;

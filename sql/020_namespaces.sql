-- Namespaces: hierarchical paths. A path names itself and all its descendants; / is everything.

create function stash._normalize_path(path text)
returns text
language plpgsql
immutable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  p text := path;
begin
  if p is null then
    raise exception 'namespace path is required' using errcode = 'null_value_not_allowed',
      hint = 'Paths look like /, /projects/x or /projects/x/backend.';
  end if;
  if length(p) > 1 and right(p, 1) = '/' then
    p := left(p, -1);  -- '/a/' and '/a' are the same namespace
  end if;
  if p <> '/' and p !~ '^(/[a-z0-9][a-z0-9_-]{0,63})+$' then
    raise exception 'invalid namespace path: %', left(path, 200) using errcode = 'invalid_parameter_value',
      hint = 'A path starts with / and has segments of 1-64 lowercase letters, digits, - or _, starting with a letter or digit (e.g. /projects/my-app).';
  end if;
  return p;
end
$$;
comment on function stash._normalize_path(text) is
  'Validates a namespace path and drops one trailing slash. Errors: 22023 invalid path, 22004 null.';

create function stash._namespace_id(path text)
returns bigint
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  result bigint;
  p text := stash._normalize_path(path);
begin
  select n.id into result from stash.namespaces n where n.path = p;
  if not found then
    raise exception 'namespace % does not exist', p using errcode = 'no_data_found',
      hint = format('Create it first: select stash.create_namespace(%L);', p);
  end if;
  return result;
end
$$;
comment on function stash._namespace_id(text) is
  'The id of exactly this namespace. Errors: P0002 if it does not exist, 22023 invalid path.';

create function stash._namespace_ids(paths text[])
returns bigint[]
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  p text;
  result bigint[] := '{}';
begin
  if paths is null or cardinality(paths) = 0 then
    raise exception 'at least one namespace is required' using errcode = 'invalid_parameter_value',
      hint = 'Pass ''{/}'' to cover every namespace.';
  end if;
  foreach p in array paths loop
    p := stash._normalize_path(p);
    if not exists (select from stash.namespaces n where n.path = p) then
      raise exception 'namespace % does not exist', p using errcode = 'no_data_found',
        hint = 'stash.list_namespaces() shows the namespaces there are.';
    end if;
    -- The path and its descendants; LIKE metacharacters in the path are escaped.
    result := result || array(
      select n.id from stash.namespaces n
       where p = '/' or n.path = p
          or n.path like replace(replace(replace(p, '\', '\\'), '%', '\%'), '_', '\_') || '/%');
  end loop;
  return array(select distinct unnest(result) order by 1);
end
$$;
comment on function stash._namespace_ids(text[]) is
  'Ids of each path and all its descendants (/ = all). Errors: P0002 unknown path, 22023 invalid path or empty list.';

create function stash.create_namespace(path text, name text default null, description text default null)
returns setof stash.namespaces
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  p text := stash._normalize_path(create_namespace.path);
  prefix text := '';
  parent bigint := (select n.id from stash.namespaces n where n.path = '/');
  seg text;
begin
  if length(create_namespace.name) > 200 or length(create_namespace.description) > 2000 then
    raise exception 'namespace name (200) or description (2000 characters) too long'
      using errcode = 'string_data_right_truncation';
  end if;
  if p <> '/' then
    -- mkdir -p: every ancestor exists before its child (ON CONFLICT makes concurrent creates safe).
    foreach seg in array string_to_array(substr(p, 2), '/') loop
      prefix := prefix || '/' || seg;
      -- Only missing ones: row-level security checks a proposed row even when it conflicts, and a
      -- role may read an ancestor it may not write.
      if not exists (select from stash.namespaces n where n.path = prefix) then
        insert into stash.namespaces as n (path, parent_id) values (prefix, parent)
        on conflict on constraint namespaces_path_key do nothing;
      end if;
      select n.id into parent from stash.namespaces n where n.path = prefix;
    end loop;
  end if;
  -- Upsert: a null name or description keeps what is there.
  update stash.namespaces n
     set name = coalesce(create_namespace.name, n.name),
         description = coalesce(create_namespace.description, n.description),
         updated_at = case when (coalesce(create_namespace.name, n.name), coalesce(create_namespace.description, n.description))
                                is distinct from (n.name, n.description) then now() else n.updated_at end
   where n.path = p;
  return query select n.* from stash.namespaces n where n.path = p;
end
$$;
comment on function stash.create_namespace(text, text, text) is
  'Creates a namespace and any missing ancestors (idempotent); sets name and description when given (null keeps them). Returns the namespace. Errors: 22023 invalid path, 22001 name/description too long.';

create function stash.list_namespaces(namespaces text[] default '{/}', k int default 100, skip int default 0)
returns table (id bigint, path text, name text, description text, episodes bigint, facts bigint,
               created_at timestamptz, updated_at timestamptz)
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ids bigint[] := stash._namespace_ids(namespaces);
begin
  perform stash._check_page(k, skip);
  return query
    select n.id, n.path::text, n.name, n.description,
           (select count(*) from stash.episodes e where e.namespace_id = n.id and e.deleted_at is null),
           (select count(*) from stash.facts f where f.namespace_id = n.id and f.deleted_at is null
               and (f.valid_until is null or f.valid_until > now())),
           n.created_at, n.updated_at
      from stash.namespaces n
     where n.id = any (ids)
     order by n.path
     limit k offset skip;
end
$$;
comment on function stash.list_namespaces(text[], int, int) is
  'Namespaces under the given paths (default all), ordered by path, with counts of live episodes and current facts in each (descendants counted separately). Errors: P0002 unknown path, 22023 invalid path or page.';

create function stash._check_page(k int, skip int)
returns void
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  max_rows int := stash._setting('list.max_rows')::int;
begin
  if k is null or k < 1 or k > max_rows then
    raise exception 'k must be between 1 and %', max_rows using errcode = 'invalid_parameter_value';
  end if;
  if skip is null or skip < 0 then
    raise exception 'skip must be 0 or more' using errcode = 'invalid_parameter_value';
  end if;
end
$$;
comment on function stash._check_page(int, int) is 'Validates a page (k rows after skip). Errors: 22023.';

create function stash.init()
returns setof stash.namespaces
language sql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select c.* from (values
    (1, '/self', 'Self', 'What the agent knows about itself: capabilities, limits, preferences'),
    (2, '/self/capabilities', 'Capabilities', 'What the agent can do, and how well: tools, skills, access it has'),
    (3, '/self/limits', 'Limits', 'What the agent cannot do or gets wrong: constraints, known failure modes'),
    (4, '/self/preferences', 'Preferences', 'How the user wants the agent to work: style, conventions, corrections')
  ) as s(ord, p, n, d)
  cross join lateral stash.create_namespace(s.p, s.n, s.d) c
  order by s.ord;
$$;
comment on function stash.init() is
  'Creates the /self scaffold (/self, /self/capabilities, /self/limits, /self/preferences) with descriptions; idempotent. Returns the four namespaces.';

grant execute on function stash.create_namespace(text, text, text), stash.init() to stash_writer;
grant execute on function stash.list_namespaces(text[], int, int) to stash_writer, stash_reader;
grant execute on function stash._setting(text, bigint), stash._settings_like(text, bigint),
  stash._normalize_path(text), stash._namespace_id(text), stash._namespace_ids(text[]),
  stash._check_page(int, int) to stash_writer, stash_reader;

-- Namespace isolation: which roles may read or write which subtrees (stash.namespace_grants), and
-- the sets the row-level security policies (990_policies.sql) compare against.
--
-- Superusers and the owner (stash_owner) bypass row-level security. Every other role sees the
-- namespaces its grants cover (and their ancestors, as bare paths, so '/' and parent paths still
-- resolve) and only the data inside the covered subtrees; it writes only under 'write' grants.
-- Grants are per role and not inherited through membership: on PostgreSQL 15 any member of a role
-- can SET ROLE to it, so a grant to a shared group role would let every member escape its own
-- limits. That is why grant_namespace refuses stash_owner, stash_writer and stash_reader.

create function stash._granted_namespaces(write boolean)
returns bigint[]
language sql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
  -- As the caller (the grants policy shows its own rows). From the grants to the namespaces by a
  -- path range on the unique index, so the cost follows the granted subtrees, not the table
  -- ('0' is the character after '/').
  select array(select n.id from stash.namespace_grants g
                 join stash.namespaces n on g.path = '/' or n.path = g.path
                                          or (n.path > g.path || '/' and n.path < g.path || '0')
                where g.role_name = current_user and (not write or g.access = 'write'));
$$;
comment on function stash._granted_namespaces(boolean) is
  'Ids of the namespaces whose data the calling role may read (write false) or write (write true), for the row-level security policies; superusers and the owner bypass them.';

create function stash._path_granted(path text, write boolean)
returns boolean
language sql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select exists (select from stash.namespace_grants g
                  where g.role_name = current_user and (not write or g.access = 'write')
                    and (g.path = '/' or _path_granted.path = g.path or starts_with(_path_granted.path, g.path || '/')));
$$;
comment on function stash._path_granted(text, boolean) is
  'Whether a grant of the calling role covers a path (for rows that carry a path, not a namespace id).';

create function stash.grant_namespace(role_name text, path text, access text default 'read')
returns setof stash.namespace_grants
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  r regrole := to_regrole(grant_namespace.role_name);
  p text := stash._normalize_path(grant_namespace.path);
begin
  if r is null then
    raise exception 'role % does not exist', grant_namespace.role_name using errcode = 'undefined_object';
  end if;
  if r::text in ('stash_owner', 'stash_writer', 'stash_reader') then
    raise exception 'grant namespaces to the role of an agent or service, not to the group role %', r
      using errcode = 'invalid_grant_operation',
            hint = 'Members of a group role can SET ROLE to it; make the login a member of stash_writer or stash_reader for privileges and grant it its namespaces.';
  end if;
  if access is null or access not in ('read', 'write') then
    raise exception 'access must be read or write' using errcode = 'invalid_parameter_value';
  end if;
  perform stash.create_namespace(p);
  insert into stash.namespace_grants as g (role_name, path, access)
  values (r::text, p, access)
  on conflict on constraint namespace_grants_pkey
  do update set access = excluded.access, granted_at = now(), granted_by = current_user;
  return query select * from stash.namespace_grants g where g.role_name = r::text and g.path = p;
end
$$;
comment on function stash.grant_namespace(text, text, text) is
  'Lets a role read (access read) or read and write (write) a namespace and its descendants, creating the namespace if needed; granting again changes the access. For administrators (the owner or a superuser). Errors: 42704 no such role, 0LP01 a stash group role, 22023 bad path or access.';

create function stash.revoke_namespace(role_name text, path text)
returns boolean
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  removed int;
begin
  delete from stash.namespace_grants g
   where g.role_name = revoke_namespace.role_name and g.path = stash._normalize_path(revoke_namespace.path);
  get diagnostics removed = row_count;
  return removed > 0;
end
$$;
comment on function stash.revoke_namespace(text, text) is
  'Removes a role''s grant on exactly this path (grants on other paths stay); false if there was none. For administrators. Errors: 22023 bad path.';
-- Administration only: no client role gets EXECUTE on grant_namespace / revoke_namespace.
-- The policies call these as the querying role.
grant execute on function stash._granted_namespaces(boolean), stash._path_granted(text, boolean)
  to stash_writer, stash_reader;

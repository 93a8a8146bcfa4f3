-- Row-level security: a role that is neither a superuser nor the owner sees and changes only the
-- namespaces its grants cover (025_access.sql). Policies compare each row's namespace with the
-- set of readable or writable namespace ids, computed once per statement (the scalar subquery
-- becomes an init plan). API functions are SECURITY INVOKER and views security_invoker, so every
-- path (functions, views, tables, consolidation) goes through these policies.

-- No FOR ALL policy: SELECT would evaluate it too (policies of a command are OR-ed), doubling the
-- per-statement cost for nothing, since writable namespaces are readable.
do $$
declare
  t text;
  readable text := 'namespace_id = any ((select stash._granted_namespaces(false))::bigint[])';
  writable text := 'namespace_id = any ((select stash._granted_namespaces(true))::bigint[])';
begin
  foreach t in array array['episodes', 'facts', 'fact_sources', 'relationships', 'patterns', 'causal_links',
                           'contradictions', 'hypotheses', 'goals', 'failures', 'contexts',
                           'consolidation_progress', 'consolidation_runs', 'consolidation_failures'] loop
    execute format('alter table stash.%I enable row level security', t);
    execute format('create policy read on stash.%I for select using (%s)', t, readable);
    execute format('create policy insert on stash.%I for insert with check (%s)', t, writable);
    execute format('create policy update on stash.%I for update using (%s) with check (%s)', t, writable, writable);
    execute format('create policy delete on stash.%I for delete using (%s)', t, writable);
  end loop;
end
$$;

-- Namespaces: the covered subtrees, plus their ancestors as bare paths (so '/' and parent paths
-- resolve; their data stays hidden by the policies above). Written only under a write grant.
alter table stash.namespaces enable row level security;
-- The grant conditions are written out rather than calling stash._path_granted: these run once per
-- row, and a function with a SET clause is never inlined.
do $$
declare
  writable text := 'exists (select from stash.namespace_grants g
                             where g.role_name = current_user and g.access = ''write''
                               and (g.path = ''/'' or namespaces.path = g.path or starts_with(namespaces.path, g.path || ''/'')))';
begin
  execute format('create policy insert on stash.namespaces for insert with check (%s)', writable);
  execute format('create policy update on stash.namespaces for update using (%s) with check (%s)', writable, writable);
  execute format('create policy delete on stash.namespaces for delete using (%s)', writable);
end
$$;
create policy read on stash.namespaces for select using (
  path = '/' or exists (select from stash.namespace_grants g
                         where g.role_name = current_user
                           and (g.path = '/' or namespaces.path = g.path or starts_with(namespaces.path, g.path || '/')
                                or starts_with(g.path, namespaces.path || '/'))));

-- The purge audit names paths: visible under a read grant, written by purges under a write grant.
alter table stash.purge_log enable row level security;
create policy read on stash.purge_log for select using (stash._path_granted(namespace_path, false));
create policy write on stash.purge_log for insert with check (stash._path_granted(namespace_path, true));

-- The embedding cache: each role its own rows (embedding_cache_per_role).
alter table stash.embedding_cache enable row level security;
create policy own on stash.embedding_cache for all using (role_name = current_user) with check (role_name = current_user);

-- Grants: a role sees its own (the policies above read them as the caller); only the owner writes.
alter table stash.namespace_grants enable row level security;
create policy own on stash.namespace_grants for select using (role_name = current_user);

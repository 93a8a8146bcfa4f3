-- Verify stash:table_namespace_grants on pg
select role_name, path, access, granted_at, granted_by from stash.namespace_grants where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.namespace_grants'::regclass and contype = 'c') >= 2,
    'stash.namespace_grants: check constraints missing';
  assert has_table_privilege('stash_writer', 'stash.namespace_grants', 'select')
     and has_table_privilege('stash_reader', 'stash.namespace_grants', 'select'), 'clients cannot read their grants';
  assert not has_table_privilege('stash_writer', 'stash.namespace_grants', 'insert')
     and not has_table_privilege('stash_writer', 'stash.namespace_grants', 'update')
     and not has_table_privilege('stash_writer', 'stash.namespace_grants', 'delete'), 'stash_writer can change grants';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.namespace_grants'::regclass) = 'stash_owner',
    'stash.namespace_grants is not owned by stash_owner';
end
$$;

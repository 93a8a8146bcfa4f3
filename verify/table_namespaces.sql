-- Verify stash:table_namespaces on pg
select id, path, parent_id, name, description, settings, created_at, updated_at
from stash.namespaces where false;
do $$
begin
  assert exists (select from stash.namespaces where path = '/' and parent_id is null), 'root namespace / missing';
  assert (select count(*) from pg_constraint where conrelid = 'stash.namespaces'::regclass and contype = 'c') >= 6,
    'namespaces check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.namespaces', 'select'), 'reader cannot read namespaces';
  assert not has_table_privilege('stash_reader', 'stash.namespaces', 'insert'), 'reader can insert namespaces';
  assert has_table_privilege('stash_writer', 'stash.namespaces', 'insert'), 'writer cannot insert namespaces';
end
$$;

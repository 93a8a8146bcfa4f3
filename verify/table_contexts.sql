-- Verify stash:table_contexts on pg
select namespace_id, focus, expires_at, created_at, updated_at
from stash.contexts where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.contexts'::regclass and contype = 'c') >= 3,
    'stash.contexts: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.contexts', 'select'), 'stash_reader cannot read stash.contexts';
  assert not has_table_privilege('stash_reader', 'stash.contexts', 'insert,update,delete'), 'stash_reader can write stash.contexts';
  assert has_table_privilege('stash_writer', 'stash.contexts', 'select') and has_table_privilege('stash_writer', 'stash.contexts', 'insert')
     and has_table_privilege('stash_writer', 'stash.contexts', 'update') and has_table_privilege('stash_writer', 'stash.contexts', 'delete'),
    'stash_writer cannot read and write stash.contexts';
  assert not has_table_privilege('stash_writer', 'stash.contexts', 'truncate'), 'stash_writer can truncate stash.contexts';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.contexts'::regclass) = 'stash_owner',
    'stash.contexts is not owned by stash_owner';
end
$$;

-- Verify stash:table_failures on pg
select id, namespace_id, goal_id, content, reason, lesson, created_by, created_at, deleted_at
from stash.failures where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.failures'::regclass and contype = 'c') >= 6,
    'stash.failures: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.failures', 'select'), 'stash_reader cannot read stash.failures';
  assert not has_table_privilege('stash_reader', 'stash.failures', 'insert,update,delete'), 'stash_reader can write stash.failures';
  assert has_table_privilege('stash_writer', 'stash.failures', 'select') and has_table_privilege('stash_writer', 'stash.failures', 'insert')
     and has_table_privilege('stash_writer', 'stash.failures', 'update') and has_table_privilege('stash_writer', 'stash.failures', 'delete'),
    'stash_writer cannot read and write stash.failures';
  assert not has_table_privilege('stash_writer', 'stash.failures', 'truncate'), 'stash_writer can truncate stash.failures';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.failures'::regclass) = 'stash_owner',
    'stash.failures is not owned by stash_owner';
end
$$;

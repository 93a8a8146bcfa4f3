-- Verify stash:table_goals on pg
select id, namespace_id, parent_id, content, status, priority, notes, completed_at, abandoned_at, created_at, updated_at, deleted_at
from stash.goals where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.goals'::regclass and contype = 'c') >= 7,
    'stash.goals: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.goals', 'select'), 'stash_reader cannot read stash.goals';
  assert not has_table_privilege('stash_reader', 'stash.goals', 'insert,update,delete'), 'stash_reader can write stash.goals';
  assert has_table_privilege('stash_writer', 'stash.goals', 'select') and has_table_privilege('stash_writer', 'stash.goals', 'insert')
     and has_table_privilege('stash_writer', 'stash.goals', 'update') and has_table_privilege('stash_writer', 'stash.goals', 'delete'),
    'stash_writer cannot read and write stash.goals';
  assert not has_table_privilege('stash_writer', 'stash.goals', 'truncate'), 'stash_writer can truncate stash.goals';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.goals'::regclass) = 'stash_owner',
    'stash.goals is not owned by stash_owner';
end
$$;

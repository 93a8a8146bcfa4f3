-- Verify stash:table_consolidation_progress on pg
select namespace_id, checkpoint, last_id, updated_at
from stash.consolidation_progress where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.consolidation_progress'::regclass and contype = 'c') >= 2,
    'stash.consolidation_progress: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.consolidation_progress', 'select'), 'stash_reader cannot read stash.consolidation_progress';
  assert not has_table_privilege('stash_reader', 'stash.consolidation_progress', 'insert,update,delete'), 'stash_reader can write stash.consolidation_progress';
  assert has_table_privilege('stash_writer', 'stash.consolidation_progress', 'select') and has_table_privilege('stash_writer', 'stash.consolidation_progress', 'insert')
     and has_table_privilege('stash_writer', 'stash.consolidation_progress', 'update') and has_table_privilege('stash_writer', 'stash.consolidation_progress', 'delete'),
    'stash_writer cannot read and write stash.consolidation_progress';
  assert not has_table_privilege('stash_writer', 'stash.consolidation_progress', 'truncate'), 'stash_writer can truncate stash.consolidation_progress';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.consolidation_progress'::regclass) = 'stash_owner',
    'stash.consolidation_progress is not owned by stash_owner';
end
$$;

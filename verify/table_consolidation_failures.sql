-- Verify stash:table_consolidation_failures on pg
select id, namespace_id, stage, episode_id, fact_id, attempts, dead, last_error, first_failed_at, last_failed_at
from stash.consolidation_failures where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.consolidation_failures'::regclass and contype = 'c') >= 4,
    'stash.consolidation_failures: check constraints missing';
  assert has_table_privilege('stash_writer', 'stash.consolidation_failures', 'insert'), 'stash_writer cannot record failures';
  assert not has_table_privilege('stash_reader', 'stash.consolidation_failures', 'insert,update,delete'),
    'stash_reader can write consolidation_failures';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.consolidation_failures'::regclass) = 'stash_owner',
    'stash.consolidation_failures is not owned by stash_owner';
end
$$;

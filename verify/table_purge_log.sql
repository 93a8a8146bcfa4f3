-- Verify stash:table_purge_log on pg
select id, purged_at, purged_by, target, namespace_path, episode_ids, fact_ids, counts
from stash.purge_log where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.purge_log'::regclass and contype = 'c') >= 2,
    'stash.purge_log: check constraints missing';
  assert has_table_privilege('stash_writer', 'stash.purge_log', 'insert'), 'stash_writer cannot append to purge_log';
  assert not has_table_privilege('stash_writer', 'stash.purge_log', 'update,delete,truncate'),
    'stash_writer can rewrite the purge audit';
  assert not has_table_privilege('stash_reader', 'stash.purge_log', 'insert,update,delete'), 'stash_reader can write purge_log';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.purge_log'::regclass) = 'stash_owner',
    'stash.purge_log is not owned by stash_owner';
end
$$;

-- Verify stash:table_fact_sources on pg
select namespace_id, fact_id, episode_id, created_at
from stash.fact_sources where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.fact_sources'::regclass and contype = 'c') >= 0,
    'stash.fact_sources: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.fact_sources', 'select'), 'stash_reader cannot read stash.fact_sources';
  assert not has_table_privilege('stash_reader', 'stash.fact_sources', 'insert,update,delete'), 'stash_reader can write stash.fact_sources';
  assert has_table_privilege('stash_writer', 'stash.fact_sources', 'select') and has_table_privilege('stash_writer', 'stash.fact_sources', 'insert')
     and has_table_privilege('stash_writer', 'stash.fact_sources', 'update') and has_table_privilege('stash_writer', 'stash.fact_sources', 'delete'),
    'stash_writer cannot read and write stash.fact_sources';
  assert not has_table_privilege('stash_writer', 'stash.fact_sources', 'truncate'), 'stash_writer can truncate stash.fact_sources';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.fact_sources'::regclass) = 'stash_owner',
    'stash.fact_sources is not owned by stash_owner';
end
$$;

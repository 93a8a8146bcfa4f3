-- Verify stash:table_consolidation_runs on pg
select id, namespace_id, triggered_by, status, started_at, finished_at, counters, llm_calls, prompt_tokens, completion_tokens, llm_ms, errors
from stash.consolidation_runs where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.consolidation_runs'::regclass and contype = 'c') >= 10,
    'stash.consolidation_runs: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.consolidation_runs', 'select'), 'stash_reader cannot read stash.consolidation_runs';
  assert not has_table_privilege('stash_reader', 'stash.consolidation_runs', 'insert,update,delete'), 'stash_reader can write stash.consolidation_runs';
  assert has_table_privilege('stash_writer', 'stash.consolidation_runs', 'select') and has_table_privilege('stash_writer', 'stash.consolidation_runs', 'insert')
     and has_table_privilege('stash_writer', 'stash.consolidation_runs', 'update') and has_table_privilege('stash_writer', 'stash.consolidation_runs', 'delete'),
    'stash_writer cannot read and write stash.consolidation_runs';
  assert not has_table_privilege('stash_writer', 'stash.consolidation_runs', 'truncate'), 'stash_writer can truncate stash.consolidation_runs';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.consolidation_runs'::regclass) = 'stash_owner',
    'stash.consolidation_runs is not owned by stash_owner';
end
$$;

-- Verify stash:table_hypotheses on pg
select id, namespace_id, content, confidence, status, verification_plan, method, confirmed_fact_id, rejection_reason, source_fact_ids, tested_at, confirmed_at, rejected_at, created_at, updated_at, deleted_at
from stash.hypotheses where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.hypotheses'::regclass and contype = 'c') >= 11,
    'stash.hypotheses: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.hypotheses', 'select'), 'stash_reader cannot read stash.hypotheses';
  assert not has_table_privilege('stash_reader', 'stash.hypotheses', 'insert,update,delete'), 'stash_reader can write stash.hypotheses';
  assert has_table_privilege('stash_writer', 'stash.hypotheses', 'select') and has_table_privilege('stash_writer', 'stash.hypotheses', 'insert')
     and has_table_privilege('stash_writer', 'stash.hypotheses', 'update') and has_table_privilege('stash_writer', 'stash.hypotheses', 'delete'),
    'stash_writer cannot read and write stash.hypotheses';
  assert not has_table_privilege('stash_writer', 'stash.hypotheses', 'truncate'), 'stash_writer can truncate stash.hypotheses';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.hypotheses'::regclass) = 'stash_owner',
    'stash.hypotheses is not owned by stash_owner';
end
$$;

-- Verify stash:table_contradictions on pg
select id, namespace_id, old_fact_id, new_fact_id, entity, property, old_value, new_value, classification, confidence, method, explanation, resolved, resolution, resolved_at, resolved_by, created_at
from stash.contradictions where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.contradictions'::regclass and contype = 'c') >= 7,
    'stash.contradictions: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.contradictions', 'select'), 'stash_reader cannot read stash.contradictions';
  assert not has_table_privilege('stash_reader', 'stash.contradictions', 'insert,update,delete'), 'stash_reader can write stash.contradictions';
  assert has_table_privilege('stash_writer', 'stash.contradictions', 'select') and has_table_privilege('stash_writer', 'stash.contradictions', 'insert')
     and has_table_privilege('stash_writer', 'stash.contradictions', 'update') and has_table_privilege('stash_writer', 'stash.contradictions', 'delete'),
    'stash_writer cannot read and write stash.contradictions';
  assert not has_table_privilege('stash_writer', 'stash.contradictions', 'truncate'), 'stash_writer can truncate stash.contradictions';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.contradictions'::regclass) = 'stash_owner',
    'stash.contradictions is not owned by stash_owner';
end
$$;

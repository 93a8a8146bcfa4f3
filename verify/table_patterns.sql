-- Verify stash:table_patterns on pg
select id, namespace_id, content, content_key, confidence, coherence, source_fact_ids, source_relationship_ids, embedding, embedding_model, content_tsv, created_at, updated_at, deleted_at
from stash.patterns where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.patterns'::regclass and contype = 'c') >= 7,
    'stash.patterns: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.patterns', 'select'), 'stash_reader cannot read stash.patterns';
  assert not has_table_privilege('stash_reader', 'stash.patterns', 'insert,update,delete'), 'stash_reader can write stash.patterns';
  assert has_table_privilege('stash_writer', 'stash.patterns', 'select') and has_table_privilege('stash_writer', 'stash.patterns', 'insert')
     and has_table_privilege('stash_writer', 'stash.patterns', 'update') and has_table_privilege('stash_writer', 'stash.patterns', 'delete'),
    'stash_writer cannot read and write stash.patterns';
  assert not has_table_privilege('stash_writer', 'stash.patterns', 'truncate'), 'stash_writer can truncate stash.patterns';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.patterns'::regclass) = 'stash_owner',
    'stash.patterns is not owned by stash_owner';
end
$$;

-- Verify stash:table_relationships on pg
select id, namespace_id, from_entity, relation_type, to_entity, from_key, to_key, confidence, observation_count, source_fact_id, created_at, updated_at, deleted_at
from stash.relationships where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.relationships'::regclass and contype = 'c') >= 7,
    'stash.relationships: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.relationships', 'select'), 'stash_reader cannot read stash.relationships';
  assert not has_table_privilege('stash_reader', 'stash.relationships', 'insert,update,delete'), 'stash_reader can write stash.relationships';
  assert has_table_privilege('stash_writer', 'stash.relationships', 'select') and has_table_privilege('stash_writer', 'stash.relationships', 'insert')
     and has_table_privilege('stash_writer', 'stash.relationships', 'update') and has_table_privilege('stash_writer', 'stash.relationships', 'delete'),
    'stash_writer cannot read and write stash.relationships';
  assert not has_table_privilege('stash_writer', 'stash.relationships', 'truncate'), 'stash_writer can truncate stash.relationships';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.relationships'::regclass) = 'stash_owner',
    'stash.relationships is not owned by stash_owner';
end
$$;

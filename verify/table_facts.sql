-- Verify stash:table_facts on pg
select id, namespace_id, content, entity, property, value, entity_key, property_key, confidence, observation_count, origin, pinned, valid_from, valid_until, superseded_by, last_reinforced_at, embedding, embedding_model, content_tsv, created_by, created_at, updated_at, deleted_at
from stash.facts where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.facts'::regclass and contype = 'c') >= 12,
    'stash.facts: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.facts', 'select'), 'stash_reader cannot read stash.facts';
  assert not has_table_privilege('stash_reader', 'stash.facts', 'insert,update,delete'), 'stash_reader can write stash.facts';
  assert has_table_privilege('stash_writer', 'stash.facts', 'select') and has_table_privilege('stash_writer', 'stash.facts', 'insert')
     and has_table_privilege('stash_writer', 'stash.facts', 'update') and has_table_privilege('stash_writer', 'stash.facts', 'delete'),
    'stash_writer cannot read and write stash.facts';
  assert not has_table_privilege('stash_writer', 'stash.facts', 'truncate'), 'stash_writer can truncate stash.facts';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.facts'::regclass) = 'stash_owner',
    'stash.facts is not owned by stash_owner';
end
$$;

-- Verify stash:table_episodes on pg
select id, namespace_id, content, content_tsv, embedding, embedding_model, occurred_at, metadata, source, agent, created_by, idempotency_key, created_at, deleted_at
from stash.episodes where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.episodes'::regclass and contype = 'c') >= 7,
    'stash.episodes: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.episodes', 'select'), 'stash_reader cannot read stash.episodes';
  assert not has_table_privilege('stash_reader', 'stash.episodes', 'insert,update,delete'), 'stash_reader can write stash.episodes';
  assert has_table_privilege('stash_writer', 'stash.episodes', 'select') and has_table_privilege('stash_writer', 'stash.episodes', 'insert')
     and has_table_privilege('stash_writer', 'stash.episodes', 'update') and has_table_privilege('stash_writer', 'stash.episodes', 'delete'),
    'stash_writer cannot read and write stash.episodes';
  assert not has_table_privilege('stash_writer', 'stash.episodes', 'truncate'), 'stash_writer can truncate stash.episodes';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.episodes'::regclass) = 'stash_owner',
    'stash.episodes is not owned by stash_owner';
end
$$;

-- Verify stash:table_embedding_cache on pg
select text_hash, model, embedding, created_at
from stash.embedding_cache where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.embedding_cache'::regclass and contype = 'c') >= 3,
    'stash.embedding_cache: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.embedding_cache', 'select'), 'stash_reader cannot read stash.embedding_cache';
  assert not has_table_privilege('stash_reader', 'stash.embedding_cache', 'insert,update,delete'), 'stash_reader can write stash.embedding_cache';
  assert has_table_privilege('stash_writer', 'stash.embedding_cache', 'select') and has_table_privilege('stash_writer', 'stash.embedding_cache', 'insert')
     and has_table_privilege('stash_writer', 'stash.embedding_cache', 'update') and has_table_privilege('stash_writer', 'stash.embedding_cache', 'delete'),
    'stash_writer cannot read and write stash.embedding_cache';
  assert not has_table_privilege('stash_writer', 'stash.embedding_cache', 'truncate'), 'stash_writer can truncate stash.embedding_cache';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.embedding_cache'::regclass) = 'stash_owner',
    'stash.embedding_cache is not owned by stash_owner';
end
$$;

-- Verify stash:table_settings on pg
select key, value, description, updated_at from stash.settings where false;
do $$
begin
  assert (select value::int from stash.settings where key = 'embedding.dimension') between 1 and 16000,
    'embedding.dimension setting missing or out of range';
  assert has_table_privilege('stash_reader', 'stash.settings', 'select'), 'reader cannot read settings';
  assert not has_table_privilege('stash_writer', 'stash.settings', 'update'), 'writer can change settings';
  assert not has_table_privilege('stash_reader', 'stash.settings', 'insert'), 'reader can insert settings';
end
$$;

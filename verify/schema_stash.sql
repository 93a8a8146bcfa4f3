-- Verify stash:schema_stash on pg
do $$
begin
  assert (select nspowner::regrole::text from pg_namespace where nspname = 'stash') = 'stash_owner',
    'schema stash missing or not owned by stash_owner';
  assert has_schema_privilege('stash_writer', 'stash', 'usage'), 'stash_writer lacks usage on stash';
  assert has_schema_privilege('stash_reader', 'stash', 'usage'), 'stash_reader lacks usage on stash';
  assert not has_schema_privilege('stash_reader', 'stash', 'create'), 'stash_reader can create in stash';
  assert not has_schema_privilege('stash_writer', 'stash', 'create'), 'stash_writer can create in stash';
end
$$;

-- Verify stash:extension_vector on pg
do $$
begin
  assert exists (select from pg_extension where extname = 'vector' and string_to_array(extversion, '.')::int[] >= '{0,8,0}'), 'pgvector 0.8 or newer is not installed';
end
$$;

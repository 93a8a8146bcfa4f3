-- Verify stash:extension_plpython3u on pg
do $$
begin
  assert exists (select from pg_extension where extname = 'plpython3u'), 'extension plpython3u is not installed';
end
$$;

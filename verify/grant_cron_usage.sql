-- Verify stash:grant_cron_usage on pg
do $$
begin
  assert has_schema_privilege('stash_writer', 'cron', 'usage'), 'stash_writer cannot use schema cron';
  assert has_function_privilege('stash_writer', 'cron.schedule(text, text, text)', 'execute'), 'stash_writer cannot schedule';
end
$$;

-- Verify stash:extension_pg_cron on pg
do $$
begin
  assert exists (select from pg_extension where extname = 'pg_cron'), 'extension pg_cron is not installed';
end
$$;

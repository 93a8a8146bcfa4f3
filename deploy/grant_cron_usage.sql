-- Deploy stash:grant_cron_usage to pg
-- stash.schedule_consolidation runs as the caller (SECURITY INVOKER) and calls cron.schedule, so
-- writers need the cron schema. pg_cron's row-level security shows each role only its own jobs,
-- and a job runs as the role that scheduled it: nothing a writer could not already run itself.
begin;
grant usage on schema cron to stash_writer, stash_reader;
grant select on cron.job, cron.job_run_details to stash_reader;
commit;

-- Revert stash:grant_cron_usage from pg
begin;
revoke select on cron.job, cron.job_run_details from stash_reader;
revoke usage on schema cron from stash_writer, stash_reader;
commit;

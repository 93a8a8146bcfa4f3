-- Revert stash:extension_pg_cron from pg
begin;
drop extension if exists pg_cron;
commit;

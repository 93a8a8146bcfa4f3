-- Deploy stash:extension_pg_cron to pg
begin;
-- pg_cron can only live in the database named by cron.database_name (stash).
create extension if not exists pg_cron;
commit;

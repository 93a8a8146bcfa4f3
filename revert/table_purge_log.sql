-- Revert stash:table_purge_log from pg
begin;
drop table stash.purge_log cascade;
commit;

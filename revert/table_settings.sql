-- Revert stash:table_settings from pg
begin;
drop table stash.settings cascade;
commit;

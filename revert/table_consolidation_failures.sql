-- Revert stash:table_consolidation_failures from pg
begin;
drop table stash.consolidation_failures cascade;
commit;

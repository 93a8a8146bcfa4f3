-- Revert stash:table_namespaces from pg
begin;
drop table stash.namespaces cascade;
commit;

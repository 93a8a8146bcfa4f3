-- Revert stash:table_failures from pg
-- cascade: views, triggers and policies from sql/ that use the table go with it (sql/ recreates them).
begin;
drop table stash.failures cascade;
commit;

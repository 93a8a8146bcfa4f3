-- Revert stash:table_facts from pg
-- cascade: views, triggers and policies from sql/ that use the table go with it (sql/ recreates them).
begin;
drop table stash.facts cascade;
commit;

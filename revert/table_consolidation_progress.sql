-- Revert stash:table_consolidation_progress from pg
-- cascade: views, triggers and policies from sql/ that use the table go with it (sql/ recreates them).
begin;
drop table stash.consolidation_progress cascade;
commit;

-- Revert stash:table_fact_sources from pg
-- cascade: views, triggers and policies from sql/ that use the table go with it (sql/ recreates them).
begin;
drop table stash.fact_sources cascade;
commit;

-- Revert stash:table_causal_links from pg
-- cascade: views, triggers and policies from sql/ that use the table go with it (sql/ recreates them).
begin;
drop table stash.causal_links cascade;
commit;

-- Revert stash:table_embedding_cache from pg
-- cascade: views, triggers and policies from sql/ that use the table go with it (sql/ recreates them).
begin;
drop table stash.embedding_cache cascade;
commit;

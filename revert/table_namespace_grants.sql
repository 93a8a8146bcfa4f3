-- Revert stash:table_namespace_grants from pg
-- cascade: the policies from sql/ that read it go with it (sql/ recreates them).
begin;
drop table stash.namespace_grants cascade;
commit;

-- Revert stash:column_facts_decayed_at from pg
begin;
alter table stash.facts drop column decayed_at;
commit;

-- Verify stash:column_facts_decayed_at on pg
select decayed_at from stash.facts where false;

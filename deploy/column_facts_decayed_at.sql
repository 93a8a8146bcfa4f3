-- Deploy stash:column_facts_decayed_at to pg
-- Decay multiplies confidence by factor^(elapsed / window) for the time since it last applied (or
-- since the fact was last reinforced, whichever is later). Exponents add up, so the result does not
-- depend on how often decay runs.
begin;
alter table stash.facts add column decayed_at timestamptz;
comment on column stash.facts.decayed_at is 'When decay last applied to this fact (null: never since it was reinforced)';
commit;

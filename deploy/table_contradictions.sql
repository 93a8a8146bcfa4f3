-- Deploy stash:table_contradictions to pg
-- Two facts that disagree on one (entity, property). Resolving records the decision and who made it;
-- a resolved row cannot be resolved again (enforced by the API; the checks keep the row coherent).
begin;
set local role stash_owner;

create table stash.contradictions (
  id             bigint generated always as identity primary key,
  namespace_id   bigint not null references stash.namespaces (id) on delete cascade,
  old_fact_id    bigint not null,
  new_fact_id    bigint not null,
  entity         text not null default '',
  property       text not null default '',
  old_value      text not null default '',
  new_value      text not null default '',
  classification text not null check (classification in ('replacement', 'contradiction')),
  confidence     real not null default 0.5 check (confidence between 0 and 1),
  method         text not null default 'structured' check (method in ('structured', 'auto', 'asserted')),
  explanation    text not null default '',
  resolved       boolean not null default false,
  resolution     text check (resolution in ('keep_old', 'keep_new', 'keep_both', 'neither', 'superseded')),
  resolved_at    timestamptz,
  resolved_by    text,
  created_at     timestamptz not null default now(),
  constraint contradictions_distinct_facts check (old_fact_id <> new_fact_id),
  constraint contradictions_resolution_set check (resolved = (resolution is not null)),
  constraint contradictions_resolved_at_set check (resolved = (resolved_at is not null)),
  constraint contradictions_old_fact_fkey foreign key (namespace_id, old_fact_id)
    references stash.facts (namespace_id, id) on delete cascade,
  constraint contradictions_new_fact_fkey foreign key (namespace_id, new_fact_id)
    references stash.facts (namespace_id, id) on delete cascade,
  constraint contradictions_pair_key unique (namespace_id, old_fact_id, new_fact_id)
);
create index contradictions_new_fact_idx on stash.contradictions (namespace_id, new_fact_id);
create index contradictions_open_idx on stash.contradictions (namespace_id, resolved, created_at);
comment on table stash.contradictions is 'Conflicting facts; unresolved rows wait for stash.resolve_contradiction';

grant select on stash.contradictions to stash_reader;
grant select, insert, update, delete on stash.contradictions to stash_writer;
commit;

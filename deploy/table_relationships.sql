-- Deploy stash:table_relationships to pg
-- Edges between entities. One live edge per (namespace, from, type, to): a re-observation
-- reinforces it instead of duplicating it, even under concurrent consolidation.
begin;
set local role stash_owner;

create table stash.relationships (
  id                bigint generated always as identity primary key,
  namespace_id      bigint not null references stash.namespaces (id) on delete cascade,
  from_entity       text not null check (from_entity ~ '[^[:space:]]') check (length(from_entity) <= 500),
  relation_type     text not null check (relation_type ~ '^[a-z][a-z0-9_]{0,63}$'),
  to_entity         text not null check (to_entity ~ '[^[:space:]]') check (length(to_entity) <= 500),
  from_key          text generated always as (lower(regexp_replace(btrim(from_entity), '\s+', ' ', 'g'))) stored,
  to_key            text generated always as (lower(regexp_replace(btrim(to_entity), '\s+', ' ', 'g'))) stored,
  confidence        real not null default 0.5 check (confidence between 0 and 1),
  observation_count integer not null default 1 check (observation_count >= 1),
  source_fact_id    bigint,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz not null default now(),
  deleted_at        timestamptz,
  -- Derived from a fact in the same namespace; purging the fact purges the edge.
  constraint relationships_source_fact_fkey foreign key (namespace_id, source_fact_id)
    references stash.facts (namespace_id, id) on delete cascade
);
create unique index relationships_edge_key on stash.relationships (namespace_id, from_key, relation_type, to_key)
  where deleted_at is null;
create index relationships_from_idx on stash.relationships (namespace_id, from_key);
create index relationships_to_idx on stash.relationships (namespace_id, to_key);
create index relationships_source_fact_idx on stash.relationships (namespace_id, source_fact_id);
comment on table stash.relationships is 'Entity edges (from --relation_type--> to), unique while live';

grant select on stash.relationships to stash_reader;
grant select, insert, update, delete on stash.relationships to stash_writer;
commit;

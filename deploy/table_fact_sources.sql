-- Deploy stash:table_fact_sources to pg
-- Lineage: which episodes a fact came from. Both ends in the same namespace (composite keys).
begin;
set local role stash_owner;

create table stash.fact_sources (
  namespace_id bigint not null,
  fact_id      bigint not null,
  episode_id   bigint not null,
  created_at   timestamptz not null default now(),
  primary key (namespace_id, fact_id, episode_id),
  constraint fact_sources_fact_fkey foreign key (namespace_id, fact_id)
    references stash.facts (namespace_id, id) on delete cascade,
  constraint fact_sources_episode_fkey foreign key (namespace_id, episode_id)
    references stash.episodes (namespace_id, id) on delete cascade
);
-- Purging an episode finds its facts through this index.
create index fact_sources_episode_idx on stash.fact_sources (namespace_id, episode_id);
comment on table stash.fact_sources is 'Fact to source-episode lineage, both in one namespace';

grant select on stash.fact_sources to stash_reader;
grant select, insert, update, delete on stash.fact_sources to stash_writer;
commit;

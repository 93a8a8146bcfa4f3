-- Deploy stash:table_consolidation_failures to pg
-- An item (an episode or a fact) that a consolidation stage failed on. It is retried on later runs
-- until max_attempts, then kept here as dead (skipped, never silently dropped). No content is
-- stored, only ids and the error; purging the item removes its row (cascade).
begin;
set local role stash_owner;

create table stash.consolidation_failures (
  id               bigint generated always as identity primary key,
  namespace_id     bigint not null references stash.namespaces (id) on delete cascade,
  stage            text not null check (stage ~ '^[a-z][a-z0-9_]{0,63}$'),
  episode_id       bigint,
  fact_id          bigint,
  attempts         integer not null default 1 check (attempts >= 1),
  dead             boolean not null default false,
  last_error       text not null default '' check (length(last_error) <= 2000),
  first_failed_at  timestamptz not null default now(),
  last_failed_at   timestamptz not null default now(),
  constraint consolidation_failures_one_item check ((episode_id is null) <> (fact_id is null)),
  constraint consolidation_failures_episode_fkey foreign key (namespace_id, episode_id)
    references stash.episodes (namespace_id, id) on delete cascade,
  constraint consolidation_failures_fact_fkey foreign key (namespace_id, fact_id)
    references stash.facts (namespace_id, id) on delete cascade
);
create unique index consolidation_failures_episode_key on stash.consolidation_failures (namespace_id, episode_id, stage);
create unique index consolidation_failures_fact_key on stash.consolidation_failures (namespace_id, fact_id, stage);
comment on table stash.consolidation_failures is
  'Items a consolidation stage failed on: retried up to consolidation.max_attempts, then dead (skipped, kept for inspection)';

grant select on stash.consolidation_failures to stash_reader;
grant select, insert, update, delete on stash.consolidation_failures to stash_writer;
commit;

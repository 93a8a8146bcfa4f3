-- Deploy stash:table_purge_log to pg
-- One row per stash.purge call: what was hard-deleted (ids, counts), when and by whom, never the
-- content. Clients may read and append; only the owner may change the audit.
begin;
set local role stash_owner;

create table stash.purge_log (
  id             bigint generated always as identity primary key,
  purged_at      timestamptz not null default now(),
  purged_by      text not null default current_user,
  target         text not null check (target in ('episode', 'namespace')),
  namespace_path text not null,
  episode_ids    bigint[] not null default '{}',
  fact_ids       bigint[] not null default '{}',
  counts         jsonb not null default '{}' check (jsonb_typeof(counts) = 'object')
);
create index purge_log_purged_at_idx on stash.purge_log (purged_at);
comment on table stash.purge_log is 'Audit of hard deletes (stash.purge): ids and counts, never content';

grant select on stash.purge_log to stash_reader;
grant select, insert on stash.purge_log to stash_writer;
commit;

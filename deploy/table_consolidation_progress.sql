-- Deploy stash:table_consolidation_progress to pg
-- Checkpoints: for each namespace and each consolidation cursor, the last id processed. The API
-- only moves them forward.
begin;
set local role stash_owner;

create table stash.consolidation_progress (
  namespace_id bigint not null references stash.namespaces (id) on delete cascade,
  checkpoint   text not null check (checkpoint ~ '^[a-z][a-z0-9_]{0,63}$'),
  last_id      bigint not null default 0 check (last_id >= 0),
  updated_at   timestamptz not null default now(),
  primary key (namespace_id, checkpoint)
);
comment on table stash.consolidation_progress is 'Per-namespace, per-stage consolidation checkpoints (monotonic)';

grant select on stash.consolidation_progress to stash_reader;
grant select, insert, update, delete on stash.consolidation_progress to stash_writer;
commit;

-- Deploy stash:table_goals to pg
-- Goals with a sub-goal tree. A sub-goal lives in its parent's namespace (composite key); a hard
-- delete of a goal takes its sub-goals with it.
begin;
set local role stash_owner;

create table stash.goals (
  id           bigint generated always as identity primary key,
  namespace_id bigint not null references stash.namespaces (id) on delete cascade,
  parent_id    bigint,
  content      text not null check (content ~ '[^[:space:]]') check (octet_length(content) <= 65536),
  status       text not null default 'active' check (status in ('active', 'completed', 'abandoned')),
  priority     integer not null default 0 check (priority between -100 and 100),
  notes        text not null default '' check (octet_length(notes) <= 65536),
  completed_at timestamptz,
  abandoned_at timestamptz,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now(),
  deleted_at   timestamptz,
  constraint goals_not_own_parent check (parent_id <> id),
  constraint goals_completed_has_completed_at check ((status = 'completed') = (completed_at is not null)),
  constraint goals_abandoned_has_abandoned_at check ((status = 'abandoned') = (abandoned_at is not null)),
  constraint goals_namespace_id_id_key unique (namespace_id, id),
  constraint goals_parent_fkey foreign key (namespace_id, parent_id)
    references stash.goals (namespace_id, id) on delete cascade
);
create index goals_parent_idx on stash.goals (namespace_id, parent_id);
create index goals_namespace_status_idx on stash.goals (namespace_id, status);
comment on table stash.goals is 'Goals and sub-goals (parent_id); completing the last open sub-goal completes the parent';

grant select on stash.goals to stash_reader;
grant select, insert, update, delete on stash.goals to stash_writer;
commit;

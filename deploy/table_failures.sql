-- Deploy stash:table_failures to pg
-- What was tried, why it failed and the lesson: all three required. The goal, if any, is in the same
-- namespace; purging the goal keeps the failure (institutional memory).
begin;
set local role stash_owner;

create table stash.failures (
  id           bigint generated always as identity primary key,
  namespace_id bigint not null references stash.namespaces (id) on delete cascade,
  goal_id      bigint,
  content      text not null check (content ~ '[^[:space:]]') check (octet_length(content) <= 65536),
  reason       text not null check (reason ~ '[^[:space:]]') check (octet_length(reason) <= 65536),
  lesson       text not null check (lesson ~ '[^[:space:]]') check (octet_length(lesson) <= 65536),
  created_by   text not null default current_user,
  created_at   timestamptz not null default now(),
  deleted_at   timestamptz,
  constraint failures_goal_fkey foreign key (namespace_id, goal_id)
    references stash.goals (namespace_id, id) on delete set null (goal_id)
);
create index failures_goal_idx on stash.failures (namespace_id, goal_id);
create index failures_namespace_created_idx on stash.failures (namespace_id, created_at);
comment on table stash.failures is 'Failed approaches with reason and lesson';

grant select on stash.failures to stash_reader;
grant select, insert, update, delete on stash.failures to stash_writer;
commit;

-- Deploy stash:table_consolidation_runs to pg
-- One row per consolidation run of one namespace: outcome, counters, LLM usage, errors.
begin;
set local role stash_owner;

create table stash.consolidation_runs (
  id                bigint generated always as identity primary key,
  namespace_id      bigint not null references stash.namespaces (id) on delete cascade,
  triggered_by      text not null default 'manual' check (triggered_by ~ '^[a-z][a-z0-9_]{0,31}$'),
  status            text not null default 'running'
                    check (status in ('running', 'succeeded', 'partial', 'failed', 'skipped')),
  started_at        timestamptz not null default now(),
  finished_at       timestamptz,
  counters          jsonb not null default '{}' check (jsonb_typeof(counters) = 'object'),
  llm_calls         integer not null default 0 check (llm_calls >= 0),
  prompt_tokens     bigint not null default 0 check (prompt_tokens >= 0),
  completion_tokens bigint not null default 0 check (completion_tokens >= 0),
  llm_ms            bigint not null default 0 check (llm_ms >= 0),
  errors            jsonb not null default '[]' check (jsonb_typeof(errors) = 'array'),
  constraint consolidation_runs_finish_after_start check (finished_at is null or finished_at >= started_at),
  constraint consolidation_runs_finished_unless_running check ((status = 'running') = (finished_at is null))
);
create index consolidation_runs_namespace_started_idx on stash.consolidation_runs (namespace_id, started_at);
comment on table stash.consolidation_runs is 'Consolidation run log: one row per namespace per run';

grant select on stash.consolidation_runs to stash_reader;
grant select, insert, update, delete on stash.consolidation_runs to stash_writer;
commit;

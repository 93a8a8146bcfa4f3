-- Deploy stash:table_settings to pg
-- Database-wide settings as JSON values. Readable by clients, so never a place for secrets:
-- API keys resolve argument -> GUC -> server environment.
begin;
set local role stash_owner;

create table stash.settings (
  key         text primary key check (key ~ '^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$'),
  value       jsonb not null,
  description text not null default '',
  updated_at  timestamptz not null default now()
);
comment on table stash.settings is 'Database-wide settings (thresholds, providers, limits). Per-namespace overrides live in namespaces.settings. Never secrets.';

-- The vector dimension is fixed when the tables are created; stash.reembed() changes it.
insert into stash.settings (key, value, description) values
  ('embedding.dimension', to_jsonb(:embed_dim), 'Dimension of every vector column, fixed at deploy time');

grant select on stash.settings to stash_reader, stash_writer;
commit;

-- Deploy stash:table_namespaces to pg
-- Paths are the hierarchy ('/', '/projects/x', '/projects/x/backend'); parent_id makes every
-- ancestor exist. Paths use the C collation so prefix (LIKE 'p/%') searches use the index.
begin;
set local role stash_owner;

create table stash.namespaces (
  id          bigint generated always as identity primary key,
  path        text collate "C" not null unique
              check (path = '/' or path ~ '^(/[a-z0-9][a-z0-9_-]{0,63})+$'),
  parent_id   bigint references stash.namespaces (id),
  name        text not null default '' check (length(name) <= 200),
  description text not null default '' check (length(description) <= 2000),
  settings    jsonb not null default '{}' check (jsonb_typeof(settings) = 'object'),
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now(),
  -- Only the root has no parent.
  constraint namespaces_root_has_no_parent check ((path = '/') = (parent_id is null)),
  constraint namespaces_not_own_parent check (parent_id <> id)
);
create index namespaces_parent_id_idx on stash.namespaces (parent_id);
comment on table stash.namespaces is 'Hierarchical namespaces. A path matches itself and its descendants; / always exists.';
comment on column stash.namespaces.settings is 'Per-namespace overrides of stash.settings (e.g. reasoner.provider)';

insert into stash.namespaces (path, name, description)
values ('/', 'root', 'The root namespace; recall over / covers everything');

grant select on stash.namespaces to stash_reader;
grant select, insert, update, delete on stash.namespaces to stash_writer;
commit;

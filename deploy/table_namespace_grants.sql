-- Deploy stash:table_namespace_grants to pg
-- Which database role may read or write which namespace subtrees. Row-level security on every
-- table with namespace data keys on it (sql/990_policies.sql); superusers and the owner bypass it.
begin;
set local role stash_owner;

create table stash.namespace_grants (
  role_name  name not null,
  path       text collate "C" not null check (path ~ '^/' and length(path) <= 1024),
  access     text not null check (access in ('read', 'write')),
  granted_at timestamptz not null default now(),
  granted_by name not null default current_user,
  primary key (role_name, path)
);
comment on table stash.namespace_grants is
  'Namespace subtrees a role may read or read and write (stash.grant_namespace); a role sees its own rows';

-- Clients read their own grants (the policies read them as the caller); only the owner writes.
grant select on stash.namespace_grants to stash_reader, stash_writer;
commit;

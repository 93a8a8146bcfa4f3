-- Deploy stash:table_contexts to pg
-- The current working focus of one namespace, short-lived: an expired row reads as absent.
begin;
set local role stash_owner;

create table stash.contexts (
  namespace_id bigint primary key references stash.namespaces (id) on delete cascade,
  focus        text not null check (focus ~ '[^[:space:]]') check (octet_length(focus) <= 65536),
  expires_at   timestamptz not null,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now(),
  constraint contexts_expires_after_update check (expires_at > updated_at)
);
comment on table stash.contexts is 'Working focus per exact namespace with a TTL (expires_at) that reads enforce';

grant select on stash.contexts to stash_reader;
grant select, insert, update, delete on stash.contexts to stash_writer;
commit;

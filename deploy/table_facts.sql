-- Deploy stash:table_facts to pg
-- Consolidated knowledge. A fact is current while deleted_at is null and valid_until is null or
-- in the future. A changed value supersedes the old fact (valid_until + superseded_by), the
-- history kept. entity_key/property_key compare entities case- and whitespace-insensitively.
begin;
set local role stash_owner;

create table stash.facts (
  id                 bigint generated always as identity primary key,
  namespace_id       bigint not null references stash.namespaces (id) on delete cascade,
  content            text not null check (content ~ '[^[:space:]]') check (octet_length(content) <= 65536),
  entity             text check (length(entity) between 1 and 500),
  property           text check (length(property) between 1 and 500),
  value              text check (length(value) <= 4000),
  entity_key         text generated always as (lower(regexp_replace(btrim(entity), '\s+', ' ', 'g'))) stored,
  property_key       text generated always as (lower(regexp_replace(btrim(property), '\s+', ' ', 'g'))) stored,
  confidence         real not null default 0.5 check (confidence between 0 and 1), -- NaN sorts above 1: rejected
  observation_count  integer not null default 1 check (observation_count >= 1),
  origin             text not null default 'consolidated'
                     check (origin in ('consolidated', 'asserted', 'corrected', 'hypothesis', 'failure_pattern')),
  pinned             boolean not null default false,
  valid_from         timestamptz not null default now(),
  valid_until        timestamptz,
  superseded_by      bigint,
  last_reinforced_at timestamptz not null default now(),
  embedding          vector(:embed_dim),
  embedding_model    text,
  content_tsv        tsvector generated always as (to_tsvector('english', content)) stored,
  created_by         text not null default current_user,
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now(),
  deleted_at         timestamptz,
  constraint facts_valid_range check (valid_until is null or valid_until >= valid_from),
  constraint facts_not_own_successor check (superseded_by <> id),
  constraint facts_superseded_has_ended check (superseded_by is null or valid_until is not null),
  constraint facts_property_needs_entity check (property is null or entity is not null),
  constraint facts_value_needs_property check (value is null or property is not null),
  constraint facts_embedding_has_model check (embedding is null or embedding_model is not null),
  constraint facts_namespace_id_id_key unique (namespace_id, id),
  -- The successor lives in the same namespace; purging it leaves the history, unlinked.
  constraint facts_superseded_by_fkey foreign key (namespace_id, superseded_by)
    references stash.facts (namespace_id, id) on delete set null (superseded_by)
);
alter table stash.facts alter column embedding set storage main;

create index facts_superseded_by_idx on stash.facts (namespace_id, superseded_by);
-- Contradiction lookup: same namespace, same (entity, property), current.
create index facts_entity_property_idx on stash.facts (namespace_id, entity_key, property_key)
  where deleted_at is null and entity_key is not null;
create index facts_content_tsv_idx on stash.facts using gin (content_tsv);
create index facts_embedding_hnsw_idx on stash.facts using hnsw (embedding vector_cosine_ops);

comment on table stash.facts is 'Consolidated knowledge with confidence and validity. Current = not deleted and valid_until null or future.';
comment on column stash.facts.last_reinforced_at is 'Decay clock: when the fact was last observed again or asserted';
comment on column stash.facts.pinned is 'Pinned facts are exempt from decay';

grant select on stash.facts to stash_reader;
grant select, insert, update, delete on stash.facts to stash_writer;
commit;

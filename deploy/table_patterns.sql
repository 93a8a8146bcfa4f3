-- Deploy stash:table_patterns to pg
-- Abstractions over facts and relationships, with the model's own attribution of sources.
-- content_key makes the same pattern found again in a later run one row, not two.
begin;
set local role stash_owner;

create table stash.patterns (
  id                      bigint generated always as identity primary key,
  namespace_id            bigint not null references stash.namespaces (id) on delete cascade,
  content                 text not null check (content ~ '[^[:space:]]') check (octet_length(content) <= 65536),
  content_key             text generated always as (md5(lower(regexp_replace(btrim(content), '\s+', ' ', 'g')))) stored,
  confidence              real not null default 0.5 check (confidence between 0 and 1),
  coherence               real not null default 0.5 check (coherence between 0 and 1),
  source_fact_ids         bigint[] not null default '{}' check (array_position(source_fact_ids, null) is null),
  source_relationship_ids bigint[] not null default '{}' check (array_position(source_relationship_ids, null) is null),
  embedding               vector(:embed_dim),
  embedding_model         text,
  content_tsv             tsvector generated always as (to_tsvector('english', content)) stored,
  created_at              timestamptz not null default now(),
  updated_at              timestamptz not null default now(),
  deleted_at              timestamptz,
  constraint patterns_embedding_has_model check (embedding is null or embedding_model is not null)
);
alter table stash.patterns alter column embedding set storage main;
create unique index patterns_content_key on stash.patterns (namespace_id, content_key) where deleted_at is null;
create index patterns_namespace_created_idx on stash.patterns (namespace_id, created_at);
create index patterns_content_tsv_idx on stash.patterns using gin (content_tsv);
comment on table stash.patterns is 'Patterns abstracted from facts and relationships, unique per namespace by normalised content';

grant select on stash.patterns to stash_reader;
grant select, insert, update, delete on stash.patterns to stash_writer;
commit;

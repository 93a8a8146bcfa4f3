-- Deploy stash:table_embedding_cache to pg
-- Embeddings keyed by SHA-256 of the exact text and the model. The text itself is not stored, so
-- a purge removes a memory's cache row by hashing the purged content.
begin;
set local role stash_owner;

create table stash.embedding_cache (
  text_hash    bytea not null check (octet_length(text_hash) = 32),
  model        text not null check (model ~ '[^[:space:]]') check (length(model) <= 200),
  embedding    vector(:embed_dim) not null,
  created_at   timestamptz not null default now(),
  primary key (text_hash, model)
);
alter table stash.embedding_cache alter column embedding set storage main;
create index embedding_cache_created_idx on stash.embedding_cache (created_at);
comment on table stash.embedding_cache is 'Embedding cache by sha256(text) + model; holds no plaintext';

grant select on stash.embedding_cache to stash_reader;
grant select, insert, update, delete on stash.embedding_cache to stash_writer;
commit;

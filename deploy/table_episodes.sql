-- Deploy stash:table_episodes to pg
-- Raw observations. Content is immutable once written (a trigger in sql/ enforces it): only the
-- embedding (backfill, re-embed), the soft delete and a purge touch a row.
begin;
set local role stash_owner;

create table stash.episodes (
  id              bigint generated always as identity primary key,
  namespace_id    bigint not null references stash.namespaces (id) on delete cascade,
  content         text not null
                  check (content ~ '[^[:space:]]') -- non-empty after trimming
                  check (octet_length(content) <= 1048576), -- hard ceiling; the API's limit is a setting
  content_tsv     tsvector generated always as (to_tsvector('english', content)) stored,
  embedding       vector(:embed_dim),
  embedding_model text,
  occurred_at     timestamptz not null default now(),
  metadata        jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  source          text not null default 'sql' check (source ~ '^[a-z][a-z0-9_-]{0,31}$'),
  agent           text check (length(agent) between 1 and 200),
  created_by      text not null default current_user,
  idempotency_key text check (length(idempotency_key) between 1 and 200),
  created_at      timestamptz not null default now(),
  deleted_at      timestamptz,
  constraint episodes_embedding_has_model check (embedding is null or embedding_model is not null),
  -- Target of composite foreign keys that keep lineage inside one namespace.
  constraint episodes_namespace_id_id_key unique (namespace_id, id)
);
-- Vectors stay in the row (not TOASTed out of line): measured 2.8 ms -> 1.0 ms on exact scans.
alter table stash.episodes alter column embedding set storage main;

create index episodes_namespace_occurred_idx on stash.episodes (namespace_id, occurred_at);
create index episodes_content_tsv_idx on stash.episodes using gin (content_tsv);
create index episodes_embedding_hnsw_idx on stash.episodes using hnsw (embedding vector_cosine_ops);
-- Rows waiting for an embedding (embedder down at write time): stash.backfill_embeddings scans these.
create index episodes_pending_embedding_idx on stash.episodes (id)
  where embedding is null and deleted_at is null;
create unique index episodes_idempotency_key_idx on stash.episodes (namespace_id, idempotency_key)
  where idempotency_key is not null;

comment on table stash.episodes is 'Raw observations (append-only). embedding null = pending backfill.';
comment on column stash.episodes.idempotency_key is 'Optional client key: a retried write with the same key in the same namespace returns the first id';
comment on column stash.episodes.source is 'What wrote the episode (mcp, sql, cli, consolidation, import)';
comment on column stash.episodes.agent is 'Which agent wrote the episode, as the client reports it';

grant select on stash.episodes to stash_reader;
grant select, insert, update, delete on stash.episodes to stash_writer;
commit;

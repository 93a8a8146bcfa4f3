-- Deploy stash:embedding_cache_per_role to pg
-- The cache is partitioned by the role that filled it: a shared cache would tell any client
-- whether some other client ever embedded an exact text (a row, or a fast answer), across the
-- namespaces it may not read. Row-level security (sql/990_policies.sql) shows a role its rows.
begin;
set local role stash_owner;

alter table stash.embedding_cache add column role_name name not null default current_user;
alter table stash.embedding_cache drop constraint embedding_cache_pkey;
alter table stash.embedding_cache add primary key (text_hash, model, role_name);
comment on column stash.embedding_cache.role_name is 'The role whose calls filled (and may read) this row';
commit;

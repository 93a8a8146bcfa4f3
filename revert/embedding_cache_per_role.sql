-- Revert stash:embedding_cache_per_role from pg
-- The cache is only a cache: rows beyond one per text and model are dropped.
begin;
set local role stash_owner;
delete from stash.embedding_cache a using stash.embedding_cache b
 where a.text_hash = b.text_hash and a.model = b.model and a.role_name > b.role_name;
alter table stash.embedding_cache drop constraint embedding_cache_pkey;
-- cascade: the policy from sql/ that reads the column goes with it (sql/ recreates it).
alter table stash.embedding_cache drop column role_name cascade;
alter table stash.embedding_cache add primary key (text_hash, model);
commit;

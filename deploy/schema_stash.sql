-- Deploy stash:schema_stash to pg
begin;
create schema stash authorization stash_owner;
comment on schema stash is 'Stash: persistent memory for AI agents (tables and the SQL API)';
grant usage on schema stash to stash_writer, stash_reader;
-- Functions are granted one by one in sql/; sql/999_privileges.sql revokes PUBLIC's EXECUTE.
commit;

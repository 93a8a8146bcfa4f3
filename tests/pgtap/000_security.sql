-- Roles, extensions and the catalog-wide invariants (STYLE.md 16) that every later change must keep.
begin;
select plan(31);

-- Roles: three NOLOGIN, non-superuser group roles.
select has_role('stash_owner');
select has_role('stash_writer');
select has_role('stash_reader');
select is((select count(*)::int from pg_roles where rolname like 'stash\_%' and (rolsuper or rolcanlogin or rolcreaterole or rolcreatedb)),
          0, 'stash roles are not superusers and cannot log in, create roles or databases');
select schema_owner_is('stash', 'stash_owner');

-- Extensions and the pg_cron wiring.
select has_extension('vector');
select has_extension('pg_cron');
select has_extension('plpython3u');
select is(current_setting('cron.database_name'), current_database()::text, 'pg_cron schedules jobs in this database');
select ok(current_setting('cron.host') like '/%', 'pg_cron connects through the socket directory (cron.host)');

-- Invariant: nothing in schema stash is executable by PUBLIC.
select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
   where p.pronamespace = 'stash'::regnamespace
     and has_function_privilege('public', p.oid, 'execute') $$,
  'no function in stash is executable by PUBLIC');

-- Invariant: every SECURITY DEFINER function pins search_path.
select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
   where p.pronamespace = 'stash'::regnamespace and p.prosecdef
     and not exists (select from unnest(p.proconfig) c where c like 'search_path=%') $$,
  'every SECURITY DEFINER function in stash pins search_path');

-- Invariant: every foreign key has an index whose leading columns are the key's columns.
select is_empty($$
  select c.conrelid::regclass || ' ' || c.conname from pg_constraint c
   where c.contype = 'f' and c.connamespace = 'stash'::regnamespace
     and not exists (
       select from pg_index i
        where i.indrelid = c.conrelid and i.indpred is null
          and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
          and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey) $$,
  'every foreign key in stash is served by an index');

-- Invariant: every public function (no leading underscore) has a comment.
select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
   where p.pronamespace = 'stash'::regnamespace and p.proname !~ '^_'
     and obj_description(p.oid, 'pg_proc') is null $$,
  'every public function in stash has a comment');

-- Invariant: every table has a comment and is owned by stash_owner.
select is_empty($$
  select c.oid::regclass::text from pg_class c
   where c.relnamespace = 'stash'::regnamespace and c.relkind = 'r'
     and (obj_description(c.oid, 'pg_class') is null or c.relowner <> 'stash_owner'::regrole) $$,
  'every table in stash has a comment and is owned by stash_owner');

-- Invariant: row-level security is on for every table that holds namespace data (a namespace_id
-- or a path), the embedding cache and the grants themselves; views run as the caller.
select is_empty($$
  select c.oid::regclass::text from pg_class c
   where c.relnamespace = 'stash'::regnamespace and c.relkind = 'r' and not c.relrowsecurity
     and (c.relname in ('namespaces', 'purge_log', 'embedding_cache', 'namespace_grants')
          or exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'namespace_id')) $$,
  'row-level security is enabled on every table with namespace data');
select is_empty($$
  select c.oid::regclass::text from pg_class c
   where c.relnamespace = 'stash'::regnamespace and c.relrowsecurity
     and not exists (select from pg_policy p where p.polrelid = c.oid) $$,
  'every table with row-level security has policies');
select is_empty($$
  select c.oid::regclass::text from pg_class c
   where c.relnamespace = 'stash'::regnamespace and c.relkind = 'v'
     and not coalesce('security_invoker=true' = any (c.reloptions), false) $$,
  'every view in stash runs with the caller''s rights (security_invoker)');
select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
   where p.pronamespace = 'stash'::regnamespace and p.prosecdef $$,
  'no SECURITY DEFINER functions: row-level security applies to every call');
select is_empty($$
  select c.oid::regclass::text from pg_class c
   where c.relnamespace = 'stash'::regnamespace and c.relkind = 'r'
     and (has_table_privilege('stash_writer', c.oid, 'truncate') or has_table_privilege('stash_reader', c.oid, 'truncate')
          or has_table_privilege('stash_writer', c.oid, 'references') or has_table_privilege('stash_writer', c.oid, 'trigger')) $$,
  'clients cannot truncate (which row-level security does not cover), reference or add triggers');

-- Behaviour: the reader reads, and cannot write.
create role t_sec_reader in role stash_reader;
create role t_sec_writer in role stash_writer;
insert into stash.namespace_grants (role_name, path, access) values ('t_sec_reader', '/sec', 'read'), ('t_sec_writer', '/sec', 'write');
insert into stash.namespaces (path, parent_id) values ('/sec', (select id from stash.namespaces where path = '/'));
set local role t_sec_reader;
select results_eq($$ select path collate "C" from stash.namespaces where path = '/sec' $$, $$ values ('/sec'::text collate "C") $$,
                  'the reader can read namespaces');
select throws_ok($$ insert into stash.namespaces (path) values ('/x') $$, '42501', null, 'the reader cannot insert');
select throws_ok($$ update stash.namespaces set name = 'x' $$, '42501', null, 'the reader cannot update');
select throws_ok($$ delete from stash.episodes $$, '42501', null, 'the reader cannot delete');
select lives_ok($$ select stash.python_info() $$, 'the reader may call granted functions');
reset role;

-- Behaviour: the writer writes data, but cannot change settings, the schema, or truncate.
set local role t_sec_writer;
select lives_ok($$ insert into stash.episodes (namespace_id, content) select id, 'writer wrote this' from stash.namespaces where path = '/sec' $$,
                'the writer can remember');
select throws_ok($$ update stash.settings set value = '1' $$, '42501', null, 'the writer cannot change settings');
select throws_ok($$ alter table stash.episodes add column x int $$, '42501', null, 'the writer cannot alter tables');
select throws_ok($$ create table stash.x (id int) $$, '42501', null, 'the writer cannot create in schema stash');
select throws_ok($$ truncate stash.episodes $$, '42501', null, 'the writer cannot truncate');
reset role;

-- PUBLIC (any other role) gets nothing.
create role stash_test_nobody nologin;
set local role stash_test_nobody;
select throws_ok($$ select * from stash.episodes $$, '42501', null, 'a role without grants cannot read episodes');
reset role;

select * from finish();
rollback;

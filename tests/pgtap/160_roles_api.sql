-- The API as the client roles use it: a writer can do a whole session's work (including
-- consolidation and purge); a reader can read and recall but not write.
begin;
set local client_min_messages = warning;
select plan(16);

-- Client logins get privileges from the group roles and namespaces from grants (025_access.sql).
create role t_writer in role stash_writer;
create role t_reader in role stash_reader;
select stash.grant_namespace('t_writer', '/roles', 'write');
select stash.grant_namespace('t_reader', '/roles', 'read');

set local role t_writer;
select lives_ok($$ select stash.create_namespace('/roles/app') $$, 'writer: create_namespace');
select lives_ok($$ select stash.remember_many('/roles/app', array['Alice lives in Paris', 'The API uses PostgreSQL 16',
                                                              'The build is failing because the cache is stale']) $$, 'writer: remember_many');
select lives_ok($$ select stash.consolidate('/roles') $$, 'writer: consolidate (every stage)');
select is((select count(*)::int from stash.consolidation_runs where status = 'succeeded'), 2, 'writer: the runs succeeded');
select lives_ok($$ select * from stash.recall('where does Alice live', '{/roles}') $$, 'writer: recall');
select lives_ok($$ select * from stash.assert_fact('/roles/app', 'Alice lives in Rome', 'Alice', 'lives in', 'Rome') $$, 'writer: assert_fact');
select lives_ok($$ select stash.complete_goal((select id from stash.create_goal('/roles/app', 'Ship it'))) $$, 'writer: goals');
select lives_ok($$ select stash.confirm_hypothesis((select id from stash.test_hypothesis((select id from stash.create_hypothesis('/roles/app', 'Caching helps'))))) $$,
                'writer: the hypothesis lifecycle');
select lives_ok($$ select * from stash.set_context('/roles/app', 'testing roles') $$, 'writer: contexts');
select lives_ok($$ select * from stash.schedule_consolidation('/roles/app') $$, 'writer: schedule_consolidation');
select lives_ok($$ select * from stash.forget(about => 'Alice lives in Paris', namespaces => '{/roles}') $$, 'writer: forget');
reset role;

set local role t_reader;
select lives_ok($$ select * from stash.recall('PostgreSQL', '{/roles}') $$, 'reader: recall');
select lives_ok($$ select * from stash.query_facts('{/roles}'); select * from stash.list_namespaces(); select * from stash.get_context('/roles/app') $$,
                'reader: queries');
select throws_ok($$ select stash.remember('/roles/app', 'x') $$, '42501', null, 'reader: cannot remember');
select throws_ok($$ select stash.consolidate('/roles') $$, '42501', null, 'reader: cannot consolidate');
reset role;

set local role t_writer;
select lives_ok($$ select stash.purge(namespace => '/roles') $$, 'writer: purge (and its schedules)');
reset role;

select * from finish();
rollback;

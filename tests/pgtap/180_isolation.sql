-- Namespace isolation by row-level security: a role granted /agents/a can neither see nor change
-- anything under /agents/b, through any path: tables, views, every API function, recall,
-- consolidation, causal tracing, contradictions, counts, the purge audit, the embedding cache.
begin;
set local client_min_messages = warning;
select plan(68);

create role t_agent_a in role stash_writer;
create role t_agent_b in role stash_writer;
create role t_viewer in role stash_reader;
select stash.grant_namespace('t_agent_a', '/agents/a', 'write');
select stash.grant_namespace('t_agent_a', '/shared', 'read');
select stash.grant_namespace('t_agent_b', '/agents/b', 'write');
select stash.grant_namespace('t_agent_b', '/shared', 'write');
select stash.grant_namespace('t_viewer', '/agents/a', 'read');

-- Agent b builds up a memory of every kind.
set local role t_agent_b;
select stash.remember_many('/agents/b', array['Bob lives in Rome', 'The launch code is 4711', 'Bob works at Initech',
                                              'The outage happened because the disk filled up']);
select stash.consolidate('/agents/b');
select stash.remember('/agents/b', 'Bob lives in Milan');
select stash.consolidate('/agents/b');
select stash.create_goal('/agents/b', 'Launch the rocket');
select stash.create_failure('/agents/b', 'Launch failed', 'fuel', 'check the fuel');
select stash.create_hypothesis('/agents/b', 'The rocket needs more fuel');
select stash.set_context('/agents/b', 'counting down');
select stash.remember('/shared', 'Shared note from b');
reset role;
-- Agent a works in its own namespace.
set local role t_agent_a;
select stash.remember('/agents/a', 'Alice lives in Paris');
select stash.consolidate('/agents/a');
reset role;

-- Ids and counts of b's memory, seen as the superuser, for the checks below.
create temp table b as
select (select id from stash.namespaces where path = '/agents/b') as ns,
       (select min(id) from stash.episodes where namespace_id = (select id from stash.namespaces where path = '/agents/b')) as episode,
       (select min(id) from stash.facts where namespace_id = (select id from stash.namespaces where path = '/agents/b')) as fact,
       (select max(id) from stash.facts where namespace_id = (select id from stash.namespaces where path = '/agents/b')) as fact2,
       (select min(id) from stash.goals where namespace_id = (select id from stash.namespaces where path = '/agents/b')) as goal,
       (select min(id) from stash.failures where namespace_id = (select id from stash.namespaces where path = '/agents/b')) as failure,
       (select min(id) from stash.hypotheses where namespace_id = (select id from stash.namespaces where path = '/agents/b')) as hypothesis,
       (select min(id) from stash.contradictions where namespace_id = (select id from stash.namespaces where path = '/agents/b')) as contradiction,
       (select count(*) from stash.episodes e join stash.namespaces n on n.id = e.namespace_id where n.path = '/agents/b') as episodes,
       (select count(*) from stash.facts f join stash.namespaces n on n.id = f.namespace_id where n.path = '/agents/b') as facts;
grant select on b to public;
select ok((select episodes = 5 and facts >= 3 and contradiction is not null from b), 'b has episodes, facts and a contradiction');
insert into stash.causal_links (namespace_id, cause_fact_id, effect_fact_id) select ns, fact, fact2 from b;

set local role t_agent_a;
-- Tables: nothing of b, in any table that holds namespace data.
select is((select count(*)::int from stash.episodes where namespace_id = (select ns from b)), 0, 'table episodes');
select is((select count(*)::int from stash.facts where namespace_id = (select ns from b)), 0, 'table facts');
select is((select count(*)::int from stash.fact_sources where namespace_id = (select ns from b)), 0, 'table fact_sources');
select is((select count(*)::int from stash.relationships where namespace_id = (select ns from b)), 0, 'table relationships');
select is((select count(*)::int from stash.patterns where namespace_id = (select ns from b)), 0, 'table patterns');
select is((select count(*)::int from stash.causal_links where namespace_id = (select ns from b)), 0, 'table causal_links');
select is((select count(*)::int from stash.contradictions where namespace_id = (select ns from b)), 0, 'table contradictions');
select is((select count(*)::int from stash.goals where namespace_id = (select ns from b)), 0, 'table goals');
select is((select count(*)::int from stash.failures where namespace_id = (select ns from b)), 0, 'table failures');
select is((select count(*)::int from stash.hypotheses where namespace_id = (select ns from b)), 0, 'table hypotheses');
select is((select count(*)::int from stash.contexts where namespace_id = (select ns from b)), 0, 'table contexts');
select is((select count(*)::int from stash.consolidation_runs where namespace_id = (select ns from b)), 0, 'table consolidation_runs');
select is((select count(*)::int from stash.consolidation_progress where namespace_id = (select ns from b)), 0, 'table consolidation_progress');
select is((select count(*)::int from stash.namespaces where path like '/agents/b%'), 0, 'table namespaces: b''s path is not even listed');
select is((select count(*)::int from stash.embedding_cache where role_name <> current_user), 0, 'table embedding_cache: only its own rows');
select is((select array_agg(role_name::text) from stash.namespace_grants), array['t_agent_a', 't_agent_a'], 'table namespace_grants: only its own grants');
-- Views.
select is((select count(*)::int from stash.fact_details where namespace like '/agents/b%'), 0, 'view fact_details');
select is((select count(*)::int from stash.relationship_details where namespace like '/agents/b%'), 0, 'view relationship_details');
select is((select count(*)::int from stash.contradiction_details where namespace like '/agents/b%'), 0, 'view contradiction_details');
select is((select count(*)::int from stash.goal_details where namespace like '/agents/b%')
        + (select count(*)::int from stash.failure_details where namespace like '/agents/b%')
        + (select count(*)::int from stash.hypothesis_details where namespace like '/agents/b%')
        + (select count(*)::int from stash.causal_link_details where namespace like '/agents/b%')
        + (select count(*)::int from stash.current_contexts where namespace_id = (select ns from b)), 0, 'views of goals, failures, hypotheses, links, contexts');
-- The API, reading: everything (/) means everything this role may see.
select is((select count(*)::int from stash.recall('launch code', '{/}') where namespace like '/agents/b%'), 0, 'recall over / never returns b');
select is((select count(*)::int from stash.recall('where does Bob live', '{/}') where namespace like '/agents/b%'), 0, 'not even the nearest facts');
select ok((select count(*) > 0 from stash.recall('where does Alice live', '{/}')), 'while a''s own memory is recalled');
select throws_ok($$ select * from stash.recall('launch code', '{/agents/b}') $$, 'P0002', null, 'naming b''s path: as if it did not exist');
select is((select count(*)::int from stash.query_facts('{/}') where namespace like '/agents/b%'), 0, 'query_facts');
select is((select count(*)::int from stash.query_relationships('{/}') where namespace like '/agents/b%'), 0, 'query_relationships');
select is((select count(*)::int from stash.list_contradictions('{/}', include_resolved => true)), 0, 'list_contradictions');
select is((select count(*)::int from stash.list_causal_links('{/}')), 0, 'list_causal_links');
select is((select count(*)::int from stash.list_goals('{/}')) + (select count(*)::int from stash.list_failures('{/}'))
        + (select count(*)::int from stash.list_hypotheses('{/}')), 0, 'list_goals, list_failures, list_hypotheses');
select is((select array_agg(path order by path) from stash.list_namespaces('{/}')), array['/', '/agents', '/agents/a', '/shared'],
          'list_namespaces: its subtrees and their ancestors');
select is((select episodes::int from stash.list_namespaces('{/agents}') where path = '/agents'), 0, 'counts include nothing of b');
select is((select (stash.status()->>'episodes')::int), 2, 'status counts only what it may read (a''s episode and /shared)');
select is((select count(*)::int from jsonb_array_elements(stash.consolidation_status('{/}')->'runs') r where r->>'namespace' like '/agents/b%'),
          0, 'consolidation_status');
select throws_ok(format('select stash.get_fact(%s)', (select fact from b)), 'P0002', null, 'get_fact');
select throws_ok(format('select * from stash.trace_causal_chain(%s)', (select fact from b)), 'P0002', null, 'trace_causal_chain');
select throws_ok(format('select stash.get_goal(%s)', (select goal from b)), 'P0002', null, 'get_goal');
select throws_ok(format('select * from stash.get_failure(%s)', (select failure from b)), 'P0002', null, 'get_failure');
select throws_ok(format('select * from stash.get_hypothesis(%s)', (select hypothesis from b)), 'P0002', null, 'get_hypothesis');
select throws_ok($$ select * from stash.get_context('/agents/b') $$, 'P0002', null, 'get_context');
select is((select count(*)::int from stash.forget(about => 'The launch code is 4711', namespaces => '{/}', dry_run => true)), 0,
          'forget finds nothing of b to forget');
-- The API, writing.
select throws_ok($$ select stash.remember('/agents/b', 'planted') $$, 'P0002', null, 'remember into b');
select throws_ok($$ select stash.create_namespace('/agents/b/sub') $$, '42501', null, 'create a namespace under b');
select throws_ok($$ select stash.remember('/shared', 'a may only read /shared') $$, '42501', null, 'remember under a read grant');
select throws_ok(format('select * from stash.correct_fact(%s, value => %L)', (select fact from b), 'Paris'), 'P0002', null, 'correct_fact');
select throws_ok(format('select * from stash.pin_fact(%s)', (select fact from b)), 'P0002', null, 'pin_fact');
select throws_ok(format('select * from stash.complete_goal(%s)', (select goal from b)), 'P0002', null, 'complete_goal');
select throws_ok(format('select stash.delete_failure(%s)', (select failure from b)), 'P0002', null, 'delete_failure');
select throws_ok(format('select * from stash.resolve_contradiction(%s, %L)', (select contradiction from b), 'keep_new'), 'P0002', null, 'resolve_contradiction');
select throws_ok(format('select * from stash.create_causal_link(%s, %s)', (select fact from b), (select fact2 from b)), 'P0002', null, 'create_causal_link');
select throws_ok(format('select * from stash.forget(episode_id => %s)', (select episode from b)), 'P0002', null, 'forget by id');
select throws_ok(format('select stash.purge(episode_id => %s)', (select episode from b)), 'P0002', null, 'purge an episode');
select throws_ok($$ select stash.purge(namespace => '/agents/b') $$, 'P0002', null, 'purge the namespace');
select throws_ok($$ select stash.consolidate('/agents/b') $$, 'P0002', null, 'consolidate b');
select throws_ok($$ select * from stash.schedule_consolidation('/agents/b') $$, 'P0002', null, 'schedule b');
select throws_ok(format('insert into stash.episodes (namespace_id, content) values (%s, %L)', (select ns from b), 'planted'),
                 '42501', null, 'a direct insert into b''s namespace');
with u as (update stash.episodes set deleted_at = now() where namespace_id = (select ns from b) returning 1)
select is(count(*)::int, 0, 'a direct update reaches no row of b') from u;
select lives_ok($$ select stash.consolidate('/') $$, 'consolidating everything it may write');
select throws_ok($$ select stash.consolidate('/shared') $$, '42501', null, 'but not a namespace it may only read');
-- Escapes, in a session that really is the agent's: the group role it draws privileges from has
-- no grants, and another agent's role cannot be assumed.
reset role;
set local session authorization t_agent_a;
set local role stash_writer;
select is((select count(*)::int from stash.episodes), 0, 'SET ROLE stash_writer (the group role) sees nothing');
reset role;
select throws_ok($$ set role t_agent_b $$, '42501', null, 'an agent cannot become another agent');
reset session authorization;

-- The reader granted /agents/a reads it and nothing else, and cannot write.
set local role t_viewer;
select results_eq($$ select distinct namespace from stash.recall('Alice', '{/}') $$, $$ values ('/agents/a') $$, 'the viewer recalls a, only a');
select throws_ok($$ select stash.remember('/agents/a', 'x') $$, '42501', null, 'the viewer cannot write');
reset role;

-- Grants: only for agent roles, only by administrators.
select throws_ok($$ select stash.grant_namespace('stash_writer', '/', 'write') $$, '0LP01', null,
                 'no grants to a group role (its members could SET ROLE to it)');
set local role t_agent_a;
select throws_ok($$ select stash.grant_namespace('t_agent_a', '/agents/b', 'write') $$, '42501', null,
                 'an agent cannot grant itself more');
select throws_ok($$ insert into stash.namespace_grants (role_name, path, access) values ('t_agent_a', '/', 'write') $$,
                 '42501', null, 'nor write the grants table');
reset role;

-- As the superuser: b's memory is exactly as it was, and b's namespace was not consolidated by a.
select is((select count(*)::int from stash.episodes where namespace_id = (select ns from b) and deleted_at is null), 5, 'b keeps all its episodes');
select is((select count(*)::int from stash.consolidation_runs where namespace_id = (select ns from b)), 2, 'and only its own two runs');

select * from finish();
rollback;

-- Goals: the sub-goal tree, completion upward, abandon, update, delete with sub-goals; failures.
begin;
select plan(25);

do $$ begin perform stash.create_namespace('/gl'); perform stash.create_namespace('/gl2'); end $$;
create temp table g as select id from stash.create_goal('/gl', 'Ship v1', priority => 10);
create temp table s1 as select id from stash.create_goal('/gl', 'Write docs', (select id from g), 5);
create temp table s2 as select id from stash.create_goal('/gl', 'Fix bugs', (select id from g), 8);
create temp table s21 as select id from stash.create_goal('/gl', 'Fix login bug', (select id from s2));

select results_eq($$ select content, sub_goals from stash.list_goals('{/gl}') $$, $$ values ('Ship v1'::text, 2::bigint) $$,
                  'list_goals lists top-level goals with their sub-goal counts');
select results_eq($$ select content from stash.list_goals('{/gl}', parent_id => (select id from g)) $$,
                  $$ values ('Fix bugs'::text), ('Write docs') $$, 'or the children of a goal, highest priority first');
select throws_ok($$ select * from stash.create_goal('/gl2', 'sub', (select id from g)) $$, '22023', null,
                 'a sub-goal lives in its parent''s namespace');
select throws_ok($$ select * from stash.create_goal('/gl', 'x', priority => 500) $$, '22023', null, 'priority is bounded');

select is((select status from stash.complete_goal((select id from s1), 'Docs are live')), 'completed', 'complete a sub-goal');
select is((select notes from stash.goals where id = (select id from s1)), 'Docs are live', 'with notes');
select is((select status from stash.goals where id = (select id from g)), 'active', 'the parent waits for its other sub-goals');
select is((select status from stash.complete_goal((select id from s21))), 'completed', 'complete the last grandchild');
select is((select status from stash.goals where id = (select id from s2)), 'completed', 'which completes its parent');
select is((select status from stash.goals where id = (select id from g)), 'completed', 'and, upward, the top goal');
select throws_ok($$ select * from stash.complete_goal((select id from g)) $$, '55000', null, 'a completed goal cannot be completed again');
select throws_ok($$ select * from stash.create_goal('/gl', 'late', (select id from g)) $$, '55000', null, 'nor given new sub-goals');
select throws_ok($$ select * from stash.update_goal((select id from g), priority => 1) $$, '55000', null, 'nor updated');

create temp table a as select id from stash.create_goal('/gl', 'Try GraphQL');
select results_eq($$ select content, priority, notes from stash.update_goal((select id from a), 'Try GraphQL for the API', 0, 'spike first') $$,
                  $$ values ('Try GraphQL for the API'::text, 0, 'spike first'::text) $$, 'update_goal (priority 0 allowed)');
select is((select status from stash.abandon_goal((select id from a), 'REST is enough')), 'abandoned', 'abandon_goal');
select throws_ok($$ select * from stash.abandon_goal((select id from a)) $$, '55000', null, 'an abandoned goal is final');

create temp table d as select id from stash.create_goal('/gl', 'Delete me');
do $$ begin perform stash.create_goal('/gl', 'child', (select id from d)); end $$;
select is(stash.delete_goal((select id from d)), 2, 'delete_goal deletes the goal and its sub-goals');
select throws_ok($$ select * from stash.complete_goal((select id from d)) $$, 'P0002', null, 'a deleted goal cannot be used');
select throws_ok(format('select stash.get_goal(%s)', (select id from d)), 'P0002', null, 'nor read');

-- Failures.
create temp table f as select id from stash.create_failure('/gl', 'Tried caching the API', 'Cache invalidation broke writes',
                                                          'Cache reads only', (select id from s2));
select results_eq($$ select reason, lesson, goal_id from stash.get_failure((select id from f)) $$,
                  $$ values ('Cache invalidation broke writes'::text, 'Cache reads only'::text, (select id from s2)) $$, 'create_failure');
select is((select jsonb_array_length(stash.get_goal((select id from s2))->'failures')), 1, 'get_goal shows the goal''s failures');
select throws_ok($$ select * from stash.create_failure('/gl', 'x', ' ', 'y') $$, '22023', null, 'a reason is required');
select throws_ok($$ select * from stash.create_failure('/gl2', 'x', 'y', 'z', (select id from s2)) $$, '22023', null,
                 'a failure''s goal is in its namespace');
select ok(stash.delete_failure((select id from f)), 'delete_failure');
select is((select count(*)::int from stash.list_failures('{/gl}')), 0, 'a deleted failure is not listed');

select * from finish();
rollback;

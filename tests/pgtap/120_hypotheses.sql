-- The hypothesis lifecycle: every transition allowed and refused, confirm's fact, deletion.
begin;
select plan(24);

do $$ begin perform stash.create_namespace('/hy'); perform stash.create_namespace('/hy2'); end $$;
insert into stash.facts (namespace_id, content) values (stash._namespace_id('/hy'), 'Builds got slower in May'),
                                                       (stash._namespace_id('/hy2'), 'Elsewhere');
create temp table h as select id from stash.create_hypothesis('/hy', 'The new linter slows the build', 'Time builds with and without it', 0.6,
                                                             array[(select id from stash.facts where content = 'Builds got slower in May')]);

select results_eq($$ select status, confidence, namespace from stash.get_hypothesis((select id from h)) $$,
                  $$ values ('proposed'::text, 0.6::real, '/hy'::text) $$, 'create_hypothesis proposes it in that namespace');
select throws_ok($$ select stash.confirm_hypothesis((select id from h)) $$, '55000', null, 'proposed -> confirmed is refused');
select is((select status from stash.test_hypothesis((select id from h))), 'testing', 'proposed -> testing');
select throws_ok($$ select * from stash.test_hypothesis((select id from h)) $$, '55000', null, 'testing -> testing is refused');
select is((select status from stash.refine_hypothesis((select id from h), confidence => 0.7)), 'proposed', 'refine sends it back to proposed');
select is((select tested_at from stash.hypotheses where id = (select id from h)), null, 'and clears tested_at');
select throws_ok($$ select * from stash.refine_hypothesis((select id from h)) $$, '22023', null, 'a refinement must change something');
select is((select status from stash.test_hypothesis((select id from h))), 'testing', 'test again');

create temp table confirmed as select stash.confirm_hypothesis((select id from h)) as r;
select is((select r->'hypothesis'->>'status' from confirmed), 'confirmed', 'testing -> confirmed');
select results_eq($$ select origin, content, confidence from stash.facts where id = (select (r->'fact'->>'id')::bigint from confirmed) $$,
                  $$ values ('hypothesis'::text, 'The new linter slows the build'::text, 0.7::real) $$,
                  'confirming creates its fact with the hypothesis''s confidence');
select is((select confirmed_fact_id from stash.hypotheses where id = (select id from h)), (select (r->'fact'->>'id')::bigint from confirmed),
          'and links it');
select throws_ok($$ select stash.confirm_hypothesis((select id from h)) $$, '55000', null, 'a second confirm is refused');
select is((select count(*)::int from stash.facts where origin = 'hypothesis'), 1, 'one fact, exactly');
select throws_ok($$ select * from stash.reject_hypothesis((select id from h)) $$, '55000', null, 'confirmed -> rejected is refused');
select throws_ok($$ select * from stash.refine_hypothesis((select id from h), 'x') $$, '55000', null, 'a confirmed hypothesis cannot be refined');

create temp table h2 as select id from stash.create_hypothesis('/hy', 'Caching will fix it');
select results_eq($$ select status, rejection_reason from stash.reject_hypothesis((select id from h2), 'Cache was already warm') $$,
                  $$ values ('rejected'::text, 'Cache was already warm'::text) $$, 'proposed -> rejected, with the reason');
select throws_ok($$ select * from stash.test_hypothesis((select id from h2)) $$, '55000', null, 'rejected is final');

create temp table h3 as select id from stash.create_hypothesis('/hy', 'To be deleted');
select ok(stash.delete_hypothesis((select id from h3)), 'delete_hypothesis');
select throws_ok($$ select * from stash.test_hypothesis((select id from h3)) $$, 'P0002', null, 'a deleted hypothesis cannot be used');
select throws_ok(format('select * from stash.get_hypothesis(%s)', (select id from h3)), 'P0002', null, 'nor read');

select results_eq($$ select status from stash.list_hypotheses('{/hy}') order by id $$,
                  $$ values ('confirmed'::text), ('rejected') $$, 'list_hypotheses lists the live ones');
select is((select count(*)::int from stash.list_hypotheses('{/hy}', status => 'rejected')), 1, 'filtered by status');
select throws_ok($$ select * from stash.list_hypotheses(status => 'maybe') $$, '22023', null, 'an unknown status is refused');
select throws_ok($$ select * from stash.create_hypothesis('/hy', 'x', source_fact_ids => array[(select id from stash.facts where content = 'Elsewhere')]) $$,
                 '22023', null, 'source facts must be in the hypothesis''s namespace');

select * from finish();
rollback;

-- Facts: agents assert, reinforce, supersede and correct; queries see current facts, history or
-- an earlier time; get_fact shows lineage.
begin;
select plan(28);

do $$ begin perform stash.create_namespace('/kf'); perform stash.create_namespace('/kf/sub'); perform stash.create_namespace('/other'); end $$;
create temp table a1 as select * from stash.assert_fact('/kf', 'Alice lives in London', 'Alice', 'lives in', 'London', 0.8);

select is((select origin || '|' || is_current::text || '|' || namespace from stash.fact_details where id = (select id from a1)),
          'asserted|true|/kf', 'assert_fact stores a current, asserted fact in exactly that namespace');
select is((select embedding_model from stash.facts where id = (select id from a1)), 'local:all-MiniLM-L6-v2', 'and embeds it');
select is((select id from stash.assert_fact('/kf', 'Alice lives in London', ' alice ', 'Lives  In', 'london')), (select id from a1),
          'the same value again (case and spacing aside) reinforces the fact instead of duplicating it');
select is((select observation_count from stash.facts where id = (select id from a1)), 2, 'the observation count goes up');

create temp table a2 as select * from stash.assert_fact('/kf', 'Alice lives in Paris', 'Alice', 'lives in', 'Paris');
select results_eq($$ select valid_until is not null, superseded_by from stash.facts where id = (select id from a1) $$,
                  $$ select true, (select id from a2) $$, 'a changed value supersedes the old fact, linked to its successor');
select results_eq($$ select value from stash.query_facts('{/kf}') $$, $$ values ('Paris'::text) $$, 'query_facts returns current facts only');
select results_eq($$ select value from stash.query_facts('{/kf}', include_history => true) order by value $$,
                  $$ values ('London'::text), ('Paris') $$, 'include_history returns every version');
select results_eq($$ select c.classification, c.resolved, c.resolution from stash.contradictions c
                      where c.old_fact_id = (select id from a1) $$,
                  $$ values ('replacement'::text, true, 'superseded'::text) $$, 'the replacement is recorded');
select is((select count(*)::int from stash.assert_fact('/kf/sub', 'Alice lives in Rome', 'Alice', 'lives in', 'Rome')), 1,
          'a fact in another namespace does not supersede');
select is((select valid_until from stash.facts where id = (select id from a2)), null, 'so Paris is still current');

-- as_of: move the history into the past and ask what was believed then.
update stash.facts set valid_from = now() - interval '10 days', created_at = now() - interval '10 days',
                       valid_until = now() - interval '2 days' where id = (select id from a1);
update stash.facts set valid_from = now() - interval '2 days', created_at = now() - interval '2 days' where id = (select id from a2);
select results_eq($$ select value from stash.query_facts('{/kf}', as_of => now() - interval '5 days') $$,
                  $$ values ('London'::text) $$, 'as_of returns what was believed then');
select results_eq($$ select value from stash.query_facts('{/kf}', entity => 'ALICE', property => 'lives in') order by value $$,
                  $$ values ('Paris'::text), ('Rome') $$, 'entity/property filters are case-insensitive, descendants included');
select is((select count(*)::int from stash.query_facts('{/kf}', min_confidence => 0.95)), 0, 'min_confidence filters');
select is((select count(*)::int from stash.query_facts('{/kf}', k => 1)), 1, 'k bounds the page');

-- correct_fact: a new version, sources carried over.
insert into stash.episodes (namespace_id, content) values (stash._namespace_id('/kf'), 'Alice told us she moved to Paris');
insert into stash.fact_sources (namespace_id, fact_id, episode_id)
select stash._namespace_id('/kf'), (select id from a2), max(id) from stash.episodes;
create temp table c1 as select * from stash.correct_fact((select id from a2), value => 'Paris, France', content => 'Alice lives in Paris, France');
select results_eq($$ select origin, value from stash.fact_details where id = (select id from c1) $$,
                  $$ values ('corrected'::text, 'Paris, France'::text) $$, 'correct_fact creates the corrected version');
select is((select superseded_by from stash.facts where id = (select id from a2)), (select id from c1), 'and supersedes the old one');
select is((select count(*)::int from stash.fact_sources where fact_id = (select id from c1)), 1, 'the sources carry over');
select throws_ok($$ select * from stash.correct_fact((select id from a2), value => 'Lyon') $$, '55000', null,
                 'a superseded fact cannot be corrected');
select throws_ok($$ select * from stash.correct_fact((select id from c1)) $$, '22023', null, 'a correction must change something');

-- get_fact lineage.
select results_eq($$ select jsonb_array_length(x->'sources'), jsonb_array_length(x->'supersedes'), jsonb_typeof(x->'superseded_by') = 'null'
                      from stash.get_fact((select id from c1)) x $$,
                  $$ values (1, 1, true) $$, 'get_fact shows sources, what it superseded and no successor');
select is((stash.get_fact((select id from a2))->'superseded_by'->>'id')::bigint, (select id from c1), 'and the successor of an old version');

-- pin_fact
select is((select pinned from stash.pin_fact((select id from c1))), true, 'pin_fact pins');
select is((select pinned from stash.pin_fact((select id from c1), false)), false, 'and unpins');

-- stash._key mirrors the generated key columns the lookups compare with.
insert into stash.facts (namespace_id, content, entity, property) values (stash._namespace_id('/kf'), 'x', E'  Foo\t  BAR ', E'Lives \n In');
select ok((select bool_and(entity_key = stash._key(entity) and property_key = stash._key(property)) from stash.facts where entity is not null),
          'stash._key normalises exactly as the generated entity_key and property_key columns');

-- Errors.
select throws_ok($$ select * from stash.assert_fact('/nope', 'x') $$, 'P0002', null, 'an unknown namespace is refused');
select throws_ok($$ select * from stash.assert_fact('/kf', 'x', confidence => 1.5) $$, '22023', null, 'confidence above 1 is refused');
select throws_ok($$ select * from stash.assert_fact('/kf', 'x', value => 'v') $$, '22023', null, 'a value needs a property');
select throws_ok($$ select * from stash.pin_fact(-1) $$, 'P0002', null, 'an unknown fact is refused');

select * from finish();
rollback;

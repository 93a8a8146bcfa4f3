-- Consolidation stages 2, 3 and 6 with the rules reasoner: relationships (unique, reinforced),
-- causal links (own checkpoint, no duplicates), patterns (one row across runs).
begin;
set local client_min_messages = warning;
select plan(12);

do $$ begin
  perform stash.create_namespace('/links');
  perform stash.remember_many('/links', array['Alice works at Acme', 'Bob works at Acme', 'Carol works at Acme']);
  perform stash.assert_fact('/links', 'The deploy failed because the disk was full');
  perform stash.assert_fact('/links', 'The deploy failed');
  perform stash.assert_fact('/links', 'The disk was full');
end $$;
create temp table r1 as select stash.consolidate('/links') as r;
select results_eq($$ select (r->>'relationships_found')::int, (r->>'causal_links_found')::int, (r->>'patterns_found')::int from r1 $$,
                  $$ values (3, 1, 1) $$, 'one run finds the relationships, the causal link and the pattern');
select set_eq($$ select from_entity || ' ' || relation_type || ' ' || to_entity from stash.query_relationships('{/links}') $$,
              $$ values ('Alice works_at Acme'), ('Bob works_at Acme'), ('Carol works_at Acme') $$, 'relationships from structured facts');
select results_eq($$ select cause, effect from stash.list_causal_links('{/links}') $$,
                  $$ values ('The disk was full'::text, 'The deploy failed'::text) $$, 'a causal link from an explicit "because"');
select results_eq($$ select content, source_relationship_ids = array(select id from stash.relationships order by id) from stash.query_patterns('{/links}') $$,
                  $$ values ('Alice, Bob and Carol share one relation to Acme: works at'::text, true) $$,
                  'a pattern over the three edges, attributed to them');

-- Seen again: reinforced, not duplicated.
insert into stash.facts (namespace_id, content, entity, property, value)
values (stash._namespace_id('/links'), 'Alice is employed at Acme', 'alice', 'works at', 'ACME');
create temp table r2 as select stash.consolidate('/links') as r;
select is((select count(*)::int from stash.relationships), 3, 'the same edge again adds no row');
select is((select observation_count from stash.relationships where from_entity = 'Alice'), 2, 'it reinforces the edge');
select is((select (r->>'causal_links_found')::int from r2), 0, 'links already known are not counted again');
select is((select count(*)::int from stash.causal_links), 1, 'nor stored twice');

-- Patterns found again (the checkpoints rewound) stay one row.
delete from stash.consolidation_progress where checkpoint like 'patterns%';
create temp table r3 as select stash.consolidate('/links') as r;
select is((select count(*)::int from stash.patterns), 1, 'a pattern found again is the same row');
select is((select (r->>'patterns_found')::int from r3), 0, 'and is not counted as found again');
select ok((select count(distinct checkpoint) from stash.consolidation_progress where namespace_id = stash._namespace_id('/links')) >= 5,
          'each stage keeps its own checkpoint');

-- A fourth person: the larger pattern subsumes the smaller one.
do $$ begin perform stash.remember('/links', 'Dave works at Acme'); perform stash.consolidate('/links'); end $$;
select results_eq($$ select content, cardinality(source_relationship_ids) from stash.query_patterns('{/links}') $$,
                  $$ values ('Alice, Bob, Carol and Dave share one relation to Acme: works at'::text, 4) $$,
                  'a pattern whose sources a newer one covers is replaced by it');

select * from finish();
rollback;

-- Relationships and patterns (read), causal links (create, list, delete, trace).
begin;
select plan(24);

do $$
declare
  ns bigint;
begin
  perform stash.create_namespace('/cl'); perform stash.create_namespace('/cl2');
  ns := stash._namespace_id('/cl');
  insert into stash.facts (namespace_id, content)
  select ns, 'fact ' || c from unnest(array['A', 'B', 'C', 'D', 'E']) c;
  insert into stash.facts (namespace_id, content) values (stash._namespace_id('/cl2'), 'fact X');
  insert into stash.relationships (namespace_id, from_entity, relation_type, to_entity, confidence)
  values (ns, 'Alice', 'works_at', 'Acme', 0.9), (ns, 'Bob', 'knows', 'Alice', 0.8), (ns, 'Acme', 'based_in', 'Paris', 0.7);
  insert into stash.patterns (namespace_id, content, confidence) values (ns, 'People at Acme know each other', 0.6),
                                                                         (ns, 'Weak pattern', 0.2);
end
$$;
create temp table f as select (select id from stash.facts where content = 'fact A') a, (select id from stash.facts where content = 'fact B') b,
  (select id from stash.facts where content = 'fact C') c, (select id from stash.facts where content = 'fact D') d,
  (select id from stash.facts where content = 'fact E') e, (select id from stash.facts where content = 'fact X') x;

select set_eq($$ select from_entity || '-' || to_entity from stash.query_relationships('{/cl}', entity => ' alice ') $$,
              $$ values ('Alice-Acme'), ('Bob-Alice') $$, 'query_relationships matches an entity at either end, case-insensitively');
select set_eq($$ select relation_type from stash.query_relationships('{/cl}', relation_type => 'based_in') $$,
              $$ values ('based_in') $$, 'and filters by relation type');
select is((select count(*)::int from stash.query_relationships('{/cl2}')), 0, 'relationships stay in their namespace');
select results_eq($$ select content from stash.query_patterns('{/cl}') $$,
                  $$ values ('People at Acme know each other'::text), ('Weak pattern') $$, 'query_patterns, most confident first');
select is((select count(*)::int from stash.query_patterns('{/cl}', min_confidence => 0.5)), 1, 'with a confidence floor');

-- Causal links: A -> B -> C -> A (a cycle), C -> D, D -> E.
select is((select cause || ' -> ' || effect from stash.create_causal_link((select a from f), (select b from f))), 'fact A -> fact B',
          'create_causal_link returns the link with both facts');
do $$ begin
  perform stash.create_causal_link((select b from f), (select c from f), 0.7);
  perform stash.create_causal_link((select c from f), (select a from f));
  perform stash.create_causal_link((select c from f), (select d from f), namespace => '/cl');
  perform stash.create_causal_link((select d from f), (select e from f));
end $$;
select throws_ok($$ select * from stash.create_causal_link((select a from f), (select b from f)) $$, '23505', null,
                 'a duplicate link is a clear error');
select throws_ok($$ select * from stash.create_causal_link((select a from f), (select a from f)) $$, '22023', null, 'no self-links');
select throws_ok($$ select * from stash.create_causal_link((select a from f), (select x from f)) $$, '22023', null,
                 'both facts must be in one namespace');
select throws_ok($$ select * from stash.create_causal_link((select a from f), (select e from f), namespace => '/cl2') $$, '22023', null,
                 'a given namespace must be the facts''');
select throws_ok($$ select * from stash.create_causal_link((select a from f), -1) $$, 'P0002', null, 'both facts must exist');
select throws_ok($$ select * from stash.create_causal_link((select a from f), (select e from f), 1.5) $$, '22023', null, 'confidence is bounded');

select results_eq($$ select depth, effect from stash.trace_causal_chain((select a from f)) $$,
                  $$ values (1, 'fact B'::text), (2, 'fact C'), (3, 'fact D'), (4, 'fact E') $$,
                  'forward tracing follows effects and stops at the cycle back to A');
select is((select path from stash.trace_causal_chain((select a from f)) where depth = 4),
          array[(select a from f), (select b from f), (select c from f), (select d from f), (select e from f)],
          'each row carries the path from the start');
select results_eq($$ select depth, cause from stash.trace_causal_chain((select d from f), 'backward') $$,
                  $$ values (1, 'fact C'::text), (2, 'fact B'), (3, 'fact A') $$, 'backward tracing follows causes, cycle-safe');
select is((select count(*)::int from stash.trace_causal_chain((select a from f), max_depth => 2)), 2, 'max_depth bounds the walk');
select throws_ok($$ select * from stash.trace_causal_chain((select a from f), max_depth => 21) $$, '22023', null, 'the depth cap is the server''s');
select throws_ok($$ select * from stash.trace_causal_chain((select a from f), 'sideways') $$, '22023', null, 'direction is forward or backward');
select throws_ok($$ select * from stash.trace_causal_chain(-1) $$, 'P0002', null, 'an unknown fact is refused');

select is((select count(*)::int from stash.list_causal_links('{/cl}')), 5, 'list_causal_links lists the namespace''s links');
select is((select count(*)::int from stash.list_causal_links('{/cl}', fact_id => (select c from f))), 3, 'or those touching one fact');
select ok(stash.delete_causal_link((select id from stash.causal_links where cause_fact_id = (select c from f) and effect_fact_id = (select d from f))),
          'delete_causal_link');
select is((select count(*)::int from stash.trace_causal_chain((select a from f))), 2, 'a deleted link is not traced');
select throws_ok($$ select stash.delete_causal_link(-1) $$, 'P0002', null, 'deleting an unknown link is refused');

select * from finish();
rollback;

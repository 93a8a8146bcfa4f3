-- Consolidation with the offline rules reasoner: clustering, facts, reinforcement, changes never
-- swallowed, contradictions, checkpoints, decay maths, stage isolation.
begin;
set local client_min_messages = warning;
select plan(24);

-- Clustering: each episode joins the cluster it is most similar to, not the first that accepts it.
-- Unit vectors in a plane (angles 0, 10, 53.13 and 35 degrees), threshold 0.7:
-- e4 is 0.82 like e1 (the first seed) but 0.95 like e3, so it belongs with e3.
do $$
declare
  dim int := (select value::int from stash.settings where key = 'embedding.dimension');
begin
  perform stash.create_namespace('/cons/cluster');
  update stash.namespaces set settings = '{"consolidation.cluster_threshold": 0.7}' where path = '/cons/cluster';
  insert into stash.episodes (namespace_id, content, embedding, embedding_model)
  select stash._namespace_id('/cons/cluster'), t, (array[cos(radians(a)), sin(radians(a))] || array_fill(0::float8, array[dim - 2]))::vector, 'test'
    from (values ('Alice lives in Paris', 0), ('Alice lives in Paris, France', 10), ('Bob likes tea', 53.13), ('Bob likes green tea', 35)) v(t, a);
end
$$;
create temp table r1 as select stash.consolidate('/cons/cluster') as r;
select is((select (r->>'facts_created')::int from r1), 2, 'four episodes in two clusters make two facts');
select set_eq($$ select e.content from stash.fact_sources s join stash.episodes e on e.id = s.episode_id
                   join stash.facts f on f.id = s.fact_id where f.entity = 'Bob' $$,
              $$ values ('Bob likes tea'), ('Bob likes green tea') $$,
              'the episode joined the cluster it is most similar to');
select is((select confidence from stash.facts where entity = 'Bob'), (0.5 + 0.5 * 0.3)::real,
          'confidence n/(n+2) with the structured boost (n = 2: 0.65)');
select is((select (r->>'episodes_read')::int from stash.consolidate('/cons/cluster') r), 0, 'the checkpoint moved: nothing is read twice');
select is(stash._checkpoint(stash._namespace_id('/cons/cluster'), 'facts'),
          (select max(id) from stash.episodes where namespace_id = stash._namespace_id('/cons/cluster')), 'the checkpoint is the last episode');

-- Reinforcement and changes.
do $$ begin
  perform stash.create_namespace('/cons/facts');
  perform stash.remember_many('/cons/facts', array['The API uses PostgreSQL 15', 'Alice lives in London', 'Bob likes tea', 'hello, how are you?']);
  perform stash.consolidate('/cons/facts');
end $$;
select is((select count(*)::int from stash.facts where namespace_id = stash._namespace_id('/cons/facts')), 3,
          'rules make facts of plain declarative sentences and nothing of small talk');
select is((select count(*)::int from stash.fact_sources where namespace_id = stash._namespace_id('/cons/facts')), 3, 'each with its source');
update stash.facts set last_reinforced_at = now() - interval '3 days' where namespace_id = stash._namespace_id('/cons/facts');
do $$ begin
  perform stash.remember('/cons/facts', 'The API uses PostgreSQL 15');
  perform stash.consolidate('/cons/facts');
end $$;
select results_eq($$ select observation_count, confidence, last_reinforced_at > now() - interval '1 minute' from stash.facts where value = 'PostgreSQL 15' $$,
                  $$ values (2, (0.5 + 0.5 * 0.3)::real, true) $$, 'a re-observed fact is reinforced: count, confidence, decay clock');
select is((select count(*)::int from stash.fact_sources s join stash.facts f on f.id = s.fact_id where f.value = 'PostgreSQL 15'), 2,
          'and gains the new source');
-- A different value for the same entity and property is a change, even when the texts are alike.
update stash.namespaces set settings = '{"consolidation.dedup_threshold": 0.3}' where path = '/cons/facts';
do $$ begin perform stash.remember('/cons/facts', 'Alice lives in Paris'); end $$;
create temp table r2 as select stash.consolidate('/cons/facts') as r;
select is((select count(*)::int from stash.facts where entity = 'Alice' and namespace_id = stash._namespace_id('/cons/facts')), 2,
          'a changed value is never swallowed as a duplicate');
select is((select (r->>'contradictions_found')::int from r2), 1, 'it is a contradiction');
select results_eq($$ select old_value, new_value, resolved from stash.list_contradictions('{/cons/facts}') $$,
                  $$ values ('London'::text, 'Paris'::text, false) $$, 'left for a decision when nothing says which holds');
do $$ begin perform stash.remember('/cons/facts', 'Bob now likes coffee'); perform stash.remember('/cons/facts', 'Alice now lives in Berlin'); end $$;
create temp table r3 as select stash.consolidate('/cons/facts') as r;
select is((select (r->>'contradictions_auto_resolved')::int from r3), 2, 'a stated change supersedes both current values at once');
select results_eq($$ select value from stash.query_facts('{/cons/facts}', entity => 'Alice') $$, $$ values ('Berlin'::text) $$,
                  'only the newest value is current');
select is((select count(*)::int from stash.query_facts('{/cons/facts}', entity => 'Bob')), 2, 'likes can hold several values (compatible)');

-- Contradiction checks are bounded: only the five most recent conflicting facts are weighed.
do $$ begin perform stash.create_namespace('/cons/many'); end $$;
insert into stash.facts (namespace_id, content, entity, property, value)
select stash._namespace_id('/cons/many'), 'Zoe lives in city ' || i, 'Zoe', 'lives in', 'city ' || i from generate_series(1, 7) i;
select is((stash.consolidate('/cons/many') -> 'namespaces' -> 0 ->> 'contradictions_found'), '0',
          'facts written directly are not weighed until an episode brings a new value');
do $$ begin perform stash.remember('/cons/many', 'Zoe lives in Zurich'); end $$;
select is((stash.consolidate('/cons/many') ->> 'contradictions_found')::int, 5, 'a new value is weighed against the 5 most recent, not all 7');

-- Decay: the same confidence whether it runs once or twice over two weeks.
do $$ begin perform stash.create_namespace('/cons/decay1'); perform stash.create_namespace('/cons/decay2'); end $$;
insert into stash.facts (namespace_id, content, confidence, last_reinforced_at, valid_from, created_at)
select stash._namespace_id(p), 'x', 0.8, '2026-01-01', '2026-01-01', '2026-01-01' from unnest(array['/cons/decay1', '/cons/decay2']) p;
do $$ begin
  perform stash._stage_decay(stash._namespace_id('/cons/decay1'), '2026-01-15');
  perform stash._stage_decay(stash._namespace_id('/cons/decay2'), '2026-01-03');
  perform stash._stage_decay(stash._namespace_id('/cons/decay2'), '2026-01-08');
  perform stash._stage_decay(stash._namespace_id('/cons/decay2'), '2026-01-15');
end $$;
select ok(abs((select confidence from stash.facts where namespace_id = stash._namespace_id('/cons/decay1'))
              - (select confidence from stash.facts where namespace_id = stash._namespace_id('/cons/decay2'))) < 1e-5,
          'decay after one run equals decay after three runs over the same two weeks');
select ok(abs((select confidence from stash.facts where namespace_id = stash._namespace_id('/cons/decay1')) - 0.8 * 0.95 ^ 2) < 1e-5,
          'and is 0.95 per week');
do $$ begin perform stash.create_namespace('/cons/decay3'); end $$;
insert into stash.facts (namespace_id, content, confidence, last_reinforced_at, valid_from, pinned)
select stash._namespace_id('/cons/decay3'), c, 0.12, now() - interval '30 weeks', now() - interval '30 weeks', p
  from (values ('fading', false), ('pinned', true)) v(c, p);
select is((stash._stage_decay(stash._namespace_id('/cons/decay3')))->>'facts_expired', '1', 'a fact decayed below the threshold expires');
select is((select count(*)::int from stash.query_facts('{/cons/decay3}') where content = 'fading'), 0, 'and leaves the current facts');
select is((select confidence from stash.facts where content = 'pinned'), 0.12::real, 'a pinned fact does not decay');

-- A failing stage rolls back only itself; the run records it.
do $$ begin perform stash.create_namespace('/cons/broken'); perform stash.remember('/cons/broken', 'Carol works at Initech'); end $$;
update stash.namespaces set settings = '{"decay.window": "not an interval"}' where path = '/cons/broken';
create temp table r4 as select stash.consolidate('/cons/broken') -> 'namespaces' -> 0 as r;
select results_eq($$ select (r->>'facts_created')::int, r->'errors'->0->>'stage' from r4 $$, $$ values (1, 'decay'::text) $$,
                  'the facts stage commits while the broken decay stage is reported');
select is((select status from stash.consolidation_runs where id = (select (r->>'run_id')::bigint from r4)), 'partial', 'the run is partial');

select * from finish();
rollback;

-- recall: hybrid ranking, only current knowledge, filters, paging, explain, errors.
begin;
select plan(30);

do $$
begin
  perform stash.create_namespace('/r/a');
  perform stash.create_namespace('/r/b');
  perform stash.remember_many('/r/a', array[
    'We deploy the backend every Friday afternoon',
    'Alice prefers green tea in the morning',
    'The database runs on PostgreSQL 15 with pgvector',
    'Bob is allergic to peanuts'],
    array['2023-05-08 10:00+00', '2023-06-01 10:00+00', '2024-01-10 10:00+00', '2024-02-01 10:00+00']::timestamptz[]);
  perform stash.remember('/r/b', 'The mobile app deploys every Monday', occurred_at => '2024-03-01 10:00+00');
end
$$;

-- Facts with every kind of validity. Old: believed from ten days ago until yesterday, then
-- superseded by new. Expired, deleted and doubtful facts must never come back.
create temp table f as select
  stash._namespace_id('/r/a') as ns;
insert into stash.facts (namespace_id, content, entity, property, value, confidence, valid_from, valid_until, created_at, embedding, embedding_model)
select ns, c, 'Alice', 'city', v, conf, vf, vu, ca, (stash.embed(array[c]))[1], 'local:all-MiniLM-L6-v2'
  from f, (values
    ('Alice lives in London', 'London', 0.9::real, now() - interval '10 days', now() - interval '1 day', now() - interval '10 days'),
    ('Alice lives in Paris', 'Paris', 0.9::real, now() - interval '1 day', null, now() - interval '1 day'),
    ('Alice lived in Rome for a while', 'Rome', 0.9::real, now() - interval '30 days', now() - interval '20 days', now() - interval '30 days'),
    ('Alice may live in Berlin', 'Berlin', 0.05::real, now() - interval '2 days', null, now() - interval '2 days'),
    ('Alice is moving to Madrid next year', 'Madrid', 0.8::real, now() - interval '2 days', now() + interval '30 days', now() - interval '2 days')
  ) v(c, v, conf, vf, vu, ca);
update stash.facts set superseded_by = (select id from stash.facts where value = 'Paris') where value = 'London';
insert into stash.facts (namespace_id, content, confidence, deleted_at, embedding, embedding_model)
select ns, 'Alice lives in Oslo', 0.9, now(), (stash.embed(array['Alice lives in Oslo']))[1], 'local:all-MiniLM-L6-v2' from f;

select is((select content from stash.recall('when do we deploy the backend?', '{/r/a}') limit 1),
          'We deploy the backend every Friday afternoon', 'the relevant episode comes first');
select set_eq($$ select content from stash.recall('where does Alice live', '{/r}', k => 20, kinds => '{fact}') $$,
              $$ values ('Alice lives in Paris'), ('Alice is moving to Madrid next year') $$,
              'only current facts: not superseded, expired, deleted or below the confidence floor');
select is((select count(*)::int from stash.recall('where does Alice live', '{/r}', k => 20) where content = 'Alice lives in London'), 0,
          'a fact superseded yesterday is not recalled');
select set_eq($$ select content from stash.recall('where does Alice live', '{/r}', k => 20, kinds => '{fact}', as_of => now() - interval '3 days') $$,
              $$ values ('Alice lives in London') $$, 'as_of recalls what was believed then');
select ok((select bool_and(kind = 'episode') from stash.recall('deploy', '{/r}', kinds => '{episode}')), 'kinds => {episode} gives episodes only');
select ok((select bool_and(kind = 'fact') from stash.recall('Alice', '{/r}', kinds => '{fact}')), 'kinds => {fact} gives facts only');
select ok((select bool_and(namespace = '/r/a') from stash.recall('deploy', '{/r/a}', k => 20)), 'a namespace scope excludes its siblings');
select ok((select count(*) from stash.recall('deploy every', '{/r}', k => 20) where namespace = '/r/b') = 1, 'a parent scope includes its children');
select set_eq($$ select content from stash.recall('deploy backend database tea peanuts', '{/r/a}', k => 20, kinds => '{episode}',
                                                    since => '2024-01-01', until => '2024-02-01') $$,
              $$ values ('The database runs on PostgreSQL 15 with pgvector') $$, 'since (inclusive) and until (exclusive) bound occurred_at');
select results_eq($$ select (r.details ? 'vector_rank') and (r.details ? 'text_rank') and (r.details ? 'rrf') and (r.details ? 'neighbour_boost')
                      from stash.recall('deploy', '{/r/a}', k => 1, explain => true) r $$,
                  $$ values (true) $$, 'explain returns the score components');
select is((select details from stash.recall('deploy', '{/r/a}', k => 1)), null, 'without explain there are no details');
select ok((select bool_and(score > 0) from stash.recall('deploy', '{/r}', k => 20)), 'scores are positive');

-- Paging: skip continues where the previous page ended, in the same order.
select results_eq($$ (select kind, id from stash.recall('Alice deploy database', '{/r}', k => 3))
                     union all (select kind, id from stash.recall('Alice deploy database', '{/r}', k => 3, skip => 3)) $$,
                  $$ select kind, id from stash.recall('Alice deploy database', '{/r}', k => 6) $$,
                  'two pages of 3 equal one page of 6');

-- Time-aware: the same words, but the question names when.
do $$ begin perform stash.remember_many('/r/b', array['Caroline went to the support group', 'Caroline went to the support group'],
                                        array['2023-05-07 10:00+00', '2024-01-09 10:00+00']::timestamptz[]); end $$;
select is((select occurred_at from stash.recall('What did Caroline do in May 2023?', '{/r/b}', kinds => '{episode}') limit 1),
          '2023-05-07 10:00+00'::timestamptz, 'a question naming a month and year prefers episodes from then');
select is((select occurred_at from stash.recall('What did Caroline do in January?', '{/r/b}', kinds => '{episode}') limit 1),
          '2024-01-09 10:00+00'::timestamptz, 'a month alone works too');
select is((select (details->>'time_boost')::boolean from stash.recall('What did Caroline do in 2023?', '{/r/b}', kinds => '{episode}', explain => true) limit 1),
          true, 'explain shows the time boost');

-- Facts do not crowd out episodes.
do $$
begin
  perform stash.create_namespace('/r/c');
  perform stash.remember_many('/r/c', array(select 'Episode ' || i || ': we talked about coffee beans and espresso' from generate_series(1, 5) i));
  insert into stash.facts (namespace_id, content, confidence, embedding, embedding_model)
  select stash._namespace_id('/r/c'), c, 0.95, (stash.embed(array[c]))[1], 'local:all-MiniLM-L6-v2'
    from (select 'Fact ' || i || ': coffee beans make espresso' c from generate_series(1, 15) i) s;
end
$$;
select cmp_ok((select count(*)::int from stash.recall('coffee beans espresso', '{/r/c}', k => 10) where kind = 'episode'), '>=', 3,
              'relevant episodes still appear beside many relevant facts');

-- Recall without a vector: a pending episode is found by full text.
insert into stash.episodes (namespace_id, content) values (stash._namespace_id('/r/b'), 'The zebra crossing was repainted in ochre');
select is((select content from stash.recall('ochre zebra', '{/r/b}') limit 1), 'The zebra crossing was repainted in ochre',
          'an episode still waiting for its embedding is found by full text');
select is((select count(*)::int from stash.recall('the a of', '{/r}')) >= 0, true, 'a query of only stop words still answers (vectors only)');

-- Soft-deleted episodes are gone from recall.
update stash.episodes set deleted_at = now() where content = 'Bob is allergic to peanuts';
select is((select count(*)::int from stash.recall('peanut allergy', '{/r}', k => 20) where content = 'Bob is allergic to peanuts'), 0,
          'a forgotten episode is not recalled');

-- Errors.
select throws_ok($$ select * from stash.recall('  ') $$, '22023', null, 'an empty query is refused');
select throws_ok($$ select * from stash.recall(null) $$, '22023', null, 'a null query is refused');
select throws_ok($$ select * from stash.recall('x', k => 0) $$, '22023', null, 'k = 0 is refused');
select throws_ok($$ select * from stash.recall('x', k => 101) $$, '22023', null, 'k above recall.max_k is refused');
select throws_ok($$ select * from stash.recall('x', k => 10, skip => -1) $$, '22023', null, 'a negative skip is refused');
select throws_ok($$ select * from stash.recall('x', kinds => '{pattern}') $$, '22023', null, 'unknown kinds are refused');
select throws_ok($$ select * from stash.recall('x', '{/nope}') $$, 'P0002', null, 'an unknown namespace is refused');
select throws_ok($$ select * from stash.recall('x', '{}') $$, '22023', null, 'an empty scope is refused');
select throws_ok($$ select * from stash.recall('x', since => now(), until => now() - interval '1 day') $$, '22023', null, 'since after until is refused');
select lives_ok($$ select * from stash.recall('x', '{/}') $$, '/ recalls over everything');

select * from finish();
rollback;

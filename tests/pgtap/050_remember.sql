-- remember / remember_many: exact namespace, validation that writes nothing, ids in input order,
-- idempotency keys, embeddings through the cache, and immutability afterwards.
begin;
select plan(28);

do $$ begin perform stash.create_namespace('/mem'); perform stash.create_namespace('/mem/child'); end $$;

select ok(stash.remember('/mem', 'We deploy on Fridays', metadata => '{"topic": "deploy"}', source => 'cli', agent => 'tester') > 0,
          'remember returns the new id');
select results_eq($$ select content, metadata, source, agent, embedding_model from stash.episodes where content = 'We deploy on Fridays' $$,
                  $$ values ('We deploy on Fridays'::text, '{"topic": "deploy"}'::jsonb, 'cli'::text, 'tester'::text, 'local:all-MiniLM-L6-v2'::text) $$,
                  'the episode is stored with its provenance and an embedding');
select is((select vector_dims(embedding) from stash.episodes where content = 'We deploy on Fridays'),
          (select value::int from stash.settings where key = 'embedding.dimension'), 'the embedding has the deployed dimension');
select is((select count(*)::int from stash.embedding_cache where text_hash = sha256(convert_to('We deploy on Fridays', 'UTF8'))), 1,
          'the embedding is cached by SHA-256 of the text');
select is((select namespace_id from stash.episodes where content = 'We deploy on Fridays'), stash._namespace_id('/mem'),
          'written to exactly the named namespace');

-- Batches: ids in input order, parallel arrays honoured.
create temp table batch as
select stash.remember_many('/mem/child', array['first', 'second', 'third'],
                           array['2023-05-08 13:56+00', null, '2024-01-01 00:00+00']::timestamptz[],
                           array['{"n": 1}', null, '{"n": 3}']::jsonb[]) as ids;
select results_eq($$ select e.content from batch, unnest(batch.ids) with ordinality u(id, i) join stash.episodes e on e.id = u.id order by u.i $$,
                  $$ values ('first'::text), ('second'), ('third') $$, 'remember_many returns ids in input order');
select results_eq($$ select occurred_at = '2023-05-08 13:56+00', metadata from stash.episodes where content in ('first', 'third') order by content $$,
                  $$ values (true, '{"n": 1}'::jsonb), (false, '{"n": 3}'::jsonb) $$, 'occurred_at and metadata arrays apply per element');
select is((select metadata from stash.episodes where content = 'second'), '{}'::jsonb, 'a null metadata element means {}');

-- Idempotency keys: a retry returns the first id, nothing is duplicated.
create temp table first_try as select stash.remember('/mem', 'retry me', idempotency_key => 'req-1') as id;
select is(stash.remember('/mem', 'retry me', idempotency_key => 'req-1'), (select id from first_try), 'a retried write returns the first id');
select is((select count(*)::int from stash.episodes where content = 'retry me'), 1, 'and stores nothing twice');
select throws_ok($$ select stash.remember('/mem', 'something else', idempotency_key => 'req-1') $$, '23505', null,
                 'a key reused for other content is refused');
select isnt(stash.remember('/mem/child', 'retry me', idempotency_key => 'req-1'), (select id from first_try),
            'keys are scoped to one namespace');
select is((select stash.remember_many('/mem', array['retry me', 'new one'], idempotency_keys => array['req-1', 'req-2']))[1],
          (select id from first_try), 'a batch mixing old and new keys returns the old id in place');

-- Validation: clear SQLSTATEs, and nothing written.
create temp table before as select count(*) as n from stash.episodes;
select throws_ok($$ select stash.remember('/nope', 'x') $$, 'P0002', null, 'an unknown namespace is an error, not a write to /');
select throws_ok($$ select stash.remember('/mem', '   ') $$, '22023', null, 'blank content is refused');
select throws_ok($$ select stash.remember('/mem', null) $$, '22023', null, 'null content is refused');
select throws_ok($$ select stash.remember('/mem', repeat('x', 40000)) $$, '22001', null, 'content over episode.max_bytes is refused');
select throws_ok($$ select stash.remember('/mem', 'x', metadata => '[1, 2]') $$, '22023', null, 'metadata must be an object');
select throws_ok($$ select stash.remember('/mem', 'x', source => 'Bad Source') $$, '22023', null, 'source must be an identifier');
select throws_ok($$ select stash.remember_many('/mem', array['ok', '', 'fine']) $$, '22023', null, 'one bad element fails the batch');
select throws_ok($$ select stash.remember_many('/mem', array['a', 'b'], array[now()]) $$, '22023', null, 'parallel arrays must match');
select throws_ok($$ select stash.remember_many('/mem', array(select 'x' || i from generate_series(1, 1001) i)) $$, '54000', null,
                 'at most 1000 episodes per call');
select throws_ok($$ select stash.remember_many('/mem', array['a', 'b'], idempotency_keys => array['k', 'k']) $$, '22023', null,
                 'duplicate keys within a call are refused');
select throws_ok($$ select stash.remember('/mem', E'nul \000 byte'::text) $$, '22021', null, 'a NUL byte is refused by the server');
select is((select count(*) from stash.episodes), (select n from before), 'no failed call wrote anything');

-- A namespace subtree can override a setting; the nearest ancestor wins.
update stash.namespaces set settings = '{"episode.max_bytes": 10}' where path = '/mem';
select throws_ok($$ select stash.remember('/mem/child', 'longer than ten bytes') $$, '22001', null,
                 'a namespace override of episode.max_bytes applies to its subtree');
update stash.namespaces set settings = '{"episode.max_bytes": 100}' where path = '/mem/child';
select lives_ok($$ select stash.remember('/mem/child', 'longer than ten bytes') $$, 'the nearest override wins');

-- Immutable afterwards.
select throws_ok($$ update stash.episodes set content = 'edited' where content = 'first' $$, '55000', null, 'episodes cannot be edited');

select * from finish();
rollback;

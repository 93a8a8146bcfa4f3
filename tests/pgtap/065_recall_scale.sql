-- A small namespace among many: recall must return k rows whatever the plan. Rows are inserted
-- with random vectors (this tests SQL, not the embedder). Slow-ish: ~50k rows.
begin;
select plan(6);

do $$
declare
  dim int := (select value::int from stash.settings where key = 'embedding.dimension');
begin
  for i in 1 .. 100 loop
    perform stash.create_namespace('/big/n' || i);
  end loop;
  perform stash.create_namespace('/small');
  -- 50,000 episodes spread over 100 other namespaces. Building the HNSW index after the load is
  -- many times faster than maintaining it row by row.
  drop index stash.episodes_embedding_hnsw_idx;
  insert into stash.episodes (namespace_id, content, embedding, embedding_model)
  select n.id, 'filler ' || g || ' about the weather and the garden',
         (select array_agg(random() - 0.5) from generate_series(1, dim) d where d > 0 * g)::vector, 'random'
    from generate_series(1, 500) g, stash.namespaces n where n.path like '/big/n%';
  perform stash.remember_many('/small', array(select 'Small namespace note ' || i || ': the invoice total was ' || (i * 17) || ' euros'
                                              from generate_series(1, 20) i));
  create index episodes_embedding_hnsw_idx on stash.episodes using hnsw (embedding vector_cosine_ops);
  analyze stash.episodes;
end
$$;

select is((select count(*)::int from stash.episodes), 50020, 'fixture: 50,000 + 20 episodes');
-- 25 calls in one session: a cached generic plan must not change the answer.
select is((select min(n) from (select (select count(*)::int from stash.recall('invoice total euros', '{/small}', k => 10 + 0 * g)) as n
                                 from generate_series(1, 25) g) s), 10,
          'the 20-episode namespace returns k = 10 on each of 25 calls (exact scan)');
-- Without the similarity floor even a query unlike everything there fills k (with the floor it
-- returns only what is similar enough, by design).
update stash.settings set value = '0' where key = 'recall.min_similarity';
select is((select min(n) from (select (select count(*)::int from stash.recall('something unrelated to anything stored', '{/small}', k => 10 + 0 * g, kinds => '{episode}')) as n
                                 from generate_series(1, 25) g) s), 10,
          'even for a query unlike everything in the namespace');
-- Force the HNSW path for the small scope: the iterative scan must still fill k.
update stash.settings set value = '5' where key = 'recall.exact_scan_rows';
select is((select min(n) from (select (select count(*)::int from stash.recall('invoice total euros', '{/small}', k => 10 + 0 * g)) as n
                                 from generate_series(1, 25) g) s), 10,
          'through HNSW with iterative scans, the small namespace still returns k on each of 25 calls');
select ok((select bool_and(namespace = '/small') from stash.recall('invoice total euros', '{/small}', k => 10)),
          'and only its own rows');
select is((select count(*)::int from stash.recall('weather in the garden', '{/}', k => 50, kinds => '{episode}')), 50,
          'a scope of everything returns k = 50 through HNSW');

select * from finish();
rollback;

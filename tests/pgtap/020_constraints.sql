-- The constraints behave: each violation raises its SQLSTATE (23514 check, 23502 not null,
-- 23503 foreign key, 23505 unique) and the valid shape is accepted.
begin;
select plan(53);

-- Fixtures: two namespaces with a fact, an episode and a goal each.
insert into stash.namespaces (path, parent_id) select '/a', id from stash.namespaces where path = '/';
insert into stash.namespaces (path, parent_id) select '/b', id from stash.namespaces where path = '/';
create temp table ns as select (select id from stash.namespaces where path = '/a') a, (select id from stash.namespaces where path = '/b') b;
insert into stash.episodes (namespace_id, content) select a, 'Alice lives in Paris' from ns;
insert into stash.episodes (namespace_id, content) select b, 'Bob lives in Rome' from ns;
insert into stash.facts (namespace_id, content, entity, property, value) select a, 'Alice lives in Paris', 'Alice', 'lives in', 'Paris' from ns;
insert into stash.facts (namespace_id, content) select a, 'Alice likes tea' from ns;
insert into stash.facts (namespace_id, content) select b, 'Bob likes coffee' from ns;
insert into stash.goals (namespace_id, content) select a, 'Ship v1' from ns;
insert into stash.goals (namespace_id, content) select b, 'Ship v2' from ns;
create temp table ids as select
  (select id from stash.facts where content = 'Alice lives in Paris') fa1,
  (select id from stash.facts where content = 'Alice likes tea') fa2,
  (select id from stash.facts where content = 'Bob likes coffee') fb,
  (select id from stash.episodes where content = 'Alice lives in Paris') ea,
  (select id from stash.episodes where content = 'Bob lives in Rome') eb,
  (select id from stash.goals where content = 'Ship v1') ga,
  (select id from stash.goals where content = 'Ship v2') gb;

-- namespaces
select throws_ok($$ insert into stash.namespaces (path, parent_id) select '/Upper', id from stash.namespaces where path = '/' $$, '23514', null, 'path: uppercase refused');
select throws_ok($$ insert into stash.namespaces (path, parent_id) select '/a/', id from stash.namespaces where path = '/' $$, '23514', null, 'path: trailing slash refused');
select throws_ok($$ insert into stash.namespaces (path, parent_id) select '/a//b', id from stash.namespaces where path = '/' $$, '23514', null, 'path: empty segment refused');
select throws_ok($$ insert into stash.namespaces (path, parent_id) select '/' || repeat('x', 65), id from stash.namespaces where path = '/' $$, '23514', null, 'path: a 65-character segment refused');
select lives_ok($$ insert into stash.namespaces (path, parent_id) select '/' || repeat('x', 64), id from stash.namespaces where path = '/' $$, 'path: a 64-character segment accepted');
select throws_ok($$ insert into stash.namespaces (path) values ('/orphan') $$, '23514', null, 'only the root has no parent');
select throws_ok($$ insert into stash.namespaces (path, parent_id) select '/a', id from stash.namespaces where path = '/' $$, '23505', null, 'paths are unique');
select throws_ok($$ insert into stash.namespaces (path, parent_id) values ('/c', -1) $$, '23503', null, 'the parent must exist');
select throws_ok($$ update stash.namespaces set settings = '[]' where path = '/a' $$, '23514', null, 'namespace settings are an object');

-- episodes
select throws_ok($$ insert into stash.episodes (namespace_id, content) select a, '   ' from ns $$, '23514', null, 'episode content: blank refused');
select throws_ok($$ insert into stash.episodes (namespace_id, content) select a, E'\t\n' from ns $$, '23514', null, 'episode content: whitespace refused');
select throws_ok($$ insert into stash.episodes (namespace_id, content) select a, null from ns $$, '23502', null, 'episode content: null refused');
select throws_ok($$ insert into stash.episodes (namespace_id, content) values (-1, 'x') $$, '23503', null, 'episode namespace must exist');
select throws_ok($$ insert into stash.episodes (namespace_id, content, metadata) select a, 'x', '[1]' from ns $$, '23514', null, 'episode metadata is an object');
select throws_ok($$ insert into stash.episodes (namespace_id, content, source) select a, 'x', 'Not A Source' from ns $$, '23514', null, 'episode source is a short identifier');
select throws_ok($$ insert into stash.episodes (namespace_id, content, embedding) select a, 'x', array_fill(0.1, array[(select value::int from stash.settings where key = 'embedding.dimension')])::vector from ns $$, '23514', null, 'an embedding names its model');
select throws_ok($$ insert into stash.episodes (namespace_id, content, embedding, embedding_model) select a, 'x', '[1,2,3]', 'm' from ns $$, '22000', null, 'an embedding of the wrong dimension is refused');
select lives_ok($$ insert into stash.episodes (namespace_id, content, idempotency_key) select a, 'first', 'k1' from ns $$, 'an idempotency key is accepted');
select throws_ok($$ insert into stash.episodes (namespace_id, content, idempotency_key) select a, 'retry', 'k1' from ns $$, '23505', null, 'an idempotency key is unique per namespace');
select lives_ok($$ insert into stash.episodes (namespace_id, content, idempotency_key) select b, 'other ns', 'k1' from ns $$, 'the same key in another namespace is another write');
select ok((select content_tsv @@ to_tsquery('english', 'paris') from stash.episodes where content = 'Alice lives in Paris'), 'the full-text column is generated from content');

-- facts
select throws_ok($$ insert into stash.facts (namespace_id, content, confidence) select a, 'x', 1.5 from ns $$, '23514', null, 'confidence above 1 refused');
select throws_ok($$ insert into stash.facts (namespace_id, content, confidence) select a, 'x', -0.1 from ns $$, '23514', null, 'confidence below 0 refused');
select throws_ok($$ insert into stash.facts (namespace_id, content, confidence) select a, 'x', 'NaN' from ns $$, '23514', null, 'confidence NaN refused');
select throws_ok($$ insert into stash.facts (namespace_id, content, origin) select a, 'x', 'guessed' from ns $$, '23514', null, 'origin is an enum');
select throws_ok($$ insert into stash.facts (namespace_id, content, valid_from, valid_until) select a, 'x', now(), now() - interval '1 day' from ns $$, '23514', null, 'valid_until is not before valid_from');
select throws_ok($$ insert into stash.facts (namespace_id, content, property) select a, 'x', 'colour' from ns $$, '23514', null, 'a property needs an entity');
select throws_ok($$ update stash.facts set superseded_by = (select fa2 from ids) where id = (select fa1 from ids) $$, '23514', null, 'a superseded fact has ended (valid_until)');
select lives_ok($$ update stash.facts set superseded_by = (select fa2 from ids), valid_until = now() where id = (select fa1 from ids) $$, 'supersede within a namespace');
select throws_ok($$ update stash.facts set superseded_by = (select fb from ids), valid_until = now() where id = (select fa2 from ids) $$, '23503', null, 'the successor must be in the same namespace');
select is((select entity_key || '|' || property_key from stash.facts where id = (select fa1 from ids)), 'alice|lives in', 'entity and property keys are normalised');

-- lineage and links stay inside one namespace
select lives_ok($$ insert into stash.fact_sources (namespace_id, fact_id, episode_id) select ns.a, fa1, ea from ns, ids $$, 'a fact sourced from an episode of its namespace');
select throws_ok($$ insert into stash.fact_sources (namespace_id, fact_id, episode_id) select ns.a, fa1, eb from ns, ids $$, '23503', null, 'a fact cannot be sourced from another namespace');
select throws_ok($$ insert into stash.causal_links (namespace_id, cause_fact_id, effect_fact_id) select ns.a, fa1, fb from ns, ids $$, '23503', null, 'a causal link cannot cross namespaces');
select throws_ok($$ insert into stash.causal_links (namespace_id, cause_fact_id, effect_fact_id) select ns.a, fa1, fa1 from ns, ids $$, '23514', null, 'no self-links');
select lives_ok($$ insert into stash.causal_links (namespace_id, cause_fact_id, effect_fact_id) select ns.a, fa1, fa2 from ns, ids $$, 'a causal link within a namespace');
select throws_ok($$ insert into stash.causal_links (namespace_id, cause_fact_id, effect_fact_id) select ns.a, fa1, fa2 from ns, ids $$, '23505', null, 'no duplicate live causal link');
select throws_ok($$ insert into stash.goals (namespace_id, parent_id, content) select ns.a, gb, 'sub' from ns, ids $$, '23503', null, 'a sub-goal lives in its parent''s namespace');
select throws_ok($$ insert into stash.failures (namespace_id, goal_id, content, reason, lesson) select ns.a, gb, 'c', 'r', 'l' from ns, ids $$, '23503', null, 'a failure''s goal is in its namespace');
select throws_ok($$ insert into stash.failures (namespace_id, content, reason, lesson) select a, 'c', ' ', 'l' from ns $$, '23514', null, 'a failure needs a reason');
select throws_ok($$ insert into stash.contradictions (namespace_id, old_fact_id, new_fact_id, classification) select ns.a, fa1, fb, 'contradiction' from ns, ids $$, '23503', null, 'a contradiction stays in one namespace');
select throws_ok($$ insert into stash.contradictions (namespace_id, old_fact_id, new_fact_id, classification, resolved) select ns.a, fa1, fa2, 'contradiction', true from ns, ids $$, '23514', null, 'a resolved contradiction has a resolution');

-- lifecycles are coherent
select throws_ok($$ insert into stash.hypotheses (namespace_id, content, status) select a, 'h', 'confirmed' from ns $$, '23514', null, 'a confirmed hypothesis has confirmed_at');
select throws_ok($$ insert into stash.hypotheses (namespace_id, content, status) select a, 'h', 'maybe' from ns $$, '23514', null, 'hypothesis status is an enum');
select throws_ok($$ insert into stash.goals (namespace_id, content, status) select a, 'g', 'completed' from ns $$, '23514', null, 'a completed goal has completed_at');
select throws_ok($$ insert into stash.goals (namespace_id, content, priority) select a, 'g', 1000 from ns $$, '23514', null, 'goal priority is bounded');
select throws_ok($$ insert into stash.relationships (namespace_id, from_entity, relation_type, to_entity) select a, 'Alice', 'Lives In', 'Paris' from ns $$, '23514', null, 'relation types are snake_case');
select lives_ok($$ insert into stash.relationships (namespace_id, from_entity, relation_type, to_entity) select a, 'Alice', 'lives_in', 'Paris' from ns $$, 'a relationship');
select throws_ok($$ insert into stash.relationships (namespace_id, from_entity, relation_type, to_entity) select a, ' alice ', 'lives_in', 'PARIS' from ns $$, '23505', null, 'no duplicate live edge (case and spacing ignored)');
select throws_ok($$ insert into stash.contexts (namespace_id, focus, expires_at) select a, 'now', now() - interval '1 minute' from ns $$, '23514', null, 'a context expires in the future');
select throws_ok($$ insert into stash.consolidation_progress (namespace_id, checkpoint, last_id) select a, 'episodes', -1 from ns $$, '23514', null, 'checkpoints are not negative');
select throws_ok($$ insert into stash.consolidation_runs (namespace_id, status) select a, 'succeeded' from ns $$, '23514', null, 'a finished run has finished_at');
select throws_ok($$ insert into stash.embedding_cache (text_hash, model, embedding) values ('\x00', 'm', array_fill(0.1, array[(select value::int from stash.settings where key = 'embedding.dimension')])::vector) $$, '23514', null, 'the cache key is a 32-byte SHA-256');

select * from finish();
rollback;

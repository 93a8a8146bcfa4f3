-- forget (soft, with a similarity floor and a preview) and purge (hard, audited, nothing left behind).
begin;
select plan(28);

do $$
begin
  perform stash.create_namespace('/fp/a');
  perform stash.create_namespace('/fp/a/deep');
  perform stash.create_namespace('/fp/b');
  perform stash.remember_many('/fp/a', array['My bank PIN is 4321', 'I prefer dark mode in every editor', 'The cat is called Miso']);
  perform stash.remember('/fp/a/deep', 'Deep note about the roadmap');
  perform stash.remember('/fp/b', 'Sibling namespace note about the roadmap');
  -- A fact from the PIN alone, and one from the PIN and the editor preference.
  insert into stash.facts (namespace_id, content) values (stash._namespace_id('/fp/a'), 'The user has a bank PIN'),
                                                         (stash._namespace_id('/fp/a'), 'The user shares secrets and preferences');
  insert into stash.fact_sources (namespace_id, fact_id, episode_id)
  select stash._namespace_id('/fp/a'), f.id, e.id from stash.facts f, stash.episodes e
   where (f.content = 'The user has a bank PIN' and e.content = 'My bank PIN is 4321')
      or (f.content = 'The user shares secrets and preferences' and e.content in ('My bank PIN is 4321', 'I prefer dark mode in every editor'));
end
$$;

-- forget: a vague description forgets nothing.
select is((select count(*)::int from stash.forget(about => 'quarterly tax filing deadlines', namespaces => '{/fp}')), 0,
          'a description unlike every memory forgets nothing');
select results_eq($$ select kind, content, forgotten from stash.forget(about => 'my bank PIN', namespaces => '{/fp}', dry_run => true) $$,
                  $$ values ('episode'::text, 'My bank PIN is 4321'::text, false), ('fact', 'The user has a bank PIN', false) $$,
                  'dry_run previews the episode and the fact that would lose its only source');
select is((select count(*)::int from stash.episodes where deleted_at is not null), 0, 'and changes nothing');
select results_eq($$ select kind, content, forgotten from stash.forget(about => 'my bank PIN', namespaces => '{/fp}') $$,
                  $$ values ('episode'::text, 'My bank PIN is 4321'::text, true), ('fact', 'The user has a bank PIN', true) $$,
                  'forget soft-deletes the episode and its sole-sourced fact');
select is((select deleted_at is null from stash.facts where content = 'The user shares secrets and preferences'), true,
          'a fact with another live source stays');
select is((select count(*)::int from stash.recall('bank PIN', '{/fp}') where content like '%PIN%'), 0, 'forgotten memories are not recalled');
select results_eq($$ select content from stash.forget(episode_id => (select id from stash.episodes where content = 'The cat is called Miso')) $$,
                  $$ values ('The cat is called Miso'::text) $$, 'forget by id');
select throws_ok($$ select * from stash.forget(episode_id => (select id from stash.episodes where content = 'The cat is called Miso')) $$,
                 'P0002', null, 'an already forgotten episode is not found again');
select throws_ok($$ select * from stash.forget(episode_id => (select id from stash.episodes where content = 'Sibling namespace note about the roadmap'), namespaces => '{/fp/a}') $$,
                 'P0002', null, 'forget by id stays inside the given namespaces');
select throws_ok($$ select * from stash.forget() $$, '22023', null, 'forget needs about or episode_id');
select throws_ok($$ select * from stash.forget(about => 'x', episode_id => 1) $$, '22023', null, 'not both');
select throws_ok($$ select * from stash.forget(about => 'x', max_rows => 0) $$, '22023', null, 'max_rows is bounded');

-- purge one episode: its sole-sourced facts go, shared facts lose the link, the cache row goes.
create temp table editor as select id from stash.episodes where content = 'I prefer dark mode in every editor';
select is((select count(*)::int from stash.embedding_cache where text_hash = sha256(convert_to('I prefer dark mode in every editor', 'UTF8'))), 1,
          'the episode''s embedding is cached before the purge');
create temp table p1 as select stash.purge(episode_id => (select id from editor)) as r;
select is((select count(*)::int from stash.episodes where id = (select id from editor)), 0, 'purge hard-deletes the episode');
select is((select count(*)::int from stash.facts where content = 'The user shares secrets and preferences'), 1,
          'a fact with another source stays');
select is((select count(*)::int from stash.fact_sources fs join editor e on e.id = fs.episode_id), 0, 'but loses the link');
select is((select count(*)::int from stash.embedding_cache where text_hash = sha256(convert_to('I prefer dark mode in every editor', 'UTF8'))), 0,
          'the embedding-cache row of purged text is gone');
select results_eq($$ select target, namespace_path, episode_ids = array[(select id from editor)], counts->>'episodes' from stash.purge_log $$,
                  $$ values ('episode'::text, '/fp/a'::text, true, '1'::text) $$, 'purge writes an audit row');
select is((select count(*)::int from stash.purge_log where counts::text like '%dark mode%' or namespace_path like '%dark%'), 0,
          'the audit row holds no content');

-- purge the PIN episode: the fact it alone sourced goes with it.
select is((stash.purge(episode_id => (select id from stash.episodes where content = 'My bank PIN is 4321')))->>'facts', '2',
          'purging the last source deletes the derived facts');

-- purge a subtree.
select is((stash.purge(namespace => '/fp/a'))->>'namespaces', '2', 'purge of /fp/a removes it and /fp/a/deep');
select is((select count(*)::int from stash.namespaces where path like '/fp/a%'), 0, 'the subtree is gone');
select is((select count(*)::int from stash.episodes e join stash.namespaces n on n.id = e.namespace_id where n.path = '/fp/b'), 1,
          'the sibling is untouched');
select throws_ok($$ select stash.purge(namespace => '/fp/a') $$, 'P0002', null, 'a purged namespace no longer exists');
select throws_ok($$ select stash.purge() $$, '22023', null, 'purge needs a target');
select throws_ok($$ select stash.purge(episode_id => -1) $$, 'P0002', null, 'an unknown episode is an error');

-- purge / is refused: one call (an agent's, say) must not be able to wipe every memory.
select throws_ok($$ select stash.purge(namespace => '/') $$, '22023', null, 'purging / is refused');
select ok((select count(*) > 0 from stash.episodes), 'and deletes nothing');

select * from finish();
rollback;

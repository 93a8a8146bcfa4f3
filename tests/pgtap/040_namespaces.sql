-- Namespaces: path rules, mkdir -p creation, idempotent upsert, listing, the /self scaffold, and
-- resolution of a path to itself plus descendants.
begin;
select plan(23);

select is(stash._normalize_path('/a/b/'), '/a/b', 'a trailing slash is normalised away');
select is(stash._normalize_path('/'), '/', 'the root stays /');
select throws_ok($$ select stash._normalize_path('a/b') $$, '22023', null, 'a path starts with /');
select throws_ok($$ select stash._normalize_path('/A') $$, '22023', null, 'uppercase is refused, not folded');
select throws_ok($$ select stash._normalize_path('/a//b') $$, '22023', null, 'an empty segment is refused');
select throws_ok($$ select stash._normalize_path('') $$, '22023', null, 'an empty path is refused');
select throws_ok($$ select stash._normalize_path(null) $$, '22004', null, 'a null path is refused');

select is((select path::text from stash.create_namespace('/projects/app/backend/', 'Backend', 'The API')),
          '/projects/app/backend', 'create_namespace returns the normalised namespace');
select results_eq($$ select path collate "default", parent_id is not null from stash.namespaces where path like '/projects%' order by path $$,
                  $$ values ('/projects', true), ('/projects/app', true), ('/projects/app/backend', true) $$,
                  'ancestors are created, each with its parent');
select is((select description from stash.create_namespace('/projects/app/backend')), 'The API',
          'creating again without a description keeps it');
select is((select name || '|' || description from stash.create_namespace('/projects/app/backend', description => 'The HTTP API')),
          'Backend|The HTTP API', 'creating again with a description updates only that');
select is((select count(*)::int from stash.namespaces where path = '/projects/app/backend'), 1, 'no duplicate namespace');

select results_eq($$ select path collate "default" from stash.init() $$,
                  $$ values ('/self'), ('/self/capabilities'), ('/self/limits'), ('/self/preferences') $$,
                  'init creates the /self scaffold');
select lives_ok($$ select stash.init() $$, 'init is idempotent');
select is((select count(*)::int from stash.namespaces where path like '/self%'), 4, 'init twice makes four namespaces');
select ok((select bool_and(description <> '') from stash.namespaces where path like '/self%'), 'the scaffold has descriptions');

-- Resolution: a path and its descendants; "_" is a LIKE metacharacter and must match only itself.
do $$ begin perform stash.create_namespace('/a_b/c'); perform stash.create_namespace('/axb/c'); end $$;
select is(cardinality(stash._namespace_ids('{/a_b}')), 2, '/a_b covers itself and /a_b/c only');
select is(cardinality(stash._namespace_ids('{/}')), (select count(*)::int from stash.namespaces), '/ covers everything');
select is(cardinality(stash._namespace_ids('{/a_b,/a_b/c}')), 2, 'overlapping paths are not counted twice');
select throws_ok($$ select stash._namespace_ids('{/nope}') $$, 'P0002', null, 'an unknown path is an error, not an empty scope');
select throws_ok($$ select stash._namespace_ids('{}') $$, '22023', null, 'an empty list is refused');

-- Listing with counts.
do $$ begin perform stash.remember('/projects/app', 'The app ships on Fridays'); end $$;
select results_eq($$ select path, episodes, facts from stash.list_namespaces('{/projects}') $$,
                  $$ values ('/projects'::text, 0::bigint, 0::bigint), ('/projects/app', 1, 0), ('/projects/app/backend', 0, 0) $$,
                  'list_namespaces lists the subtree in path order with counts');
select throws_ok($$ select * from stash.list_namespaces(k => 0) $$, '22023', null, 'a page size of 0 is refused');

select * from finish();
rollback;

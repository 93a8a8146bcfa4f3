-- The offline rules reasoner on a small scenario told over several sessions: a preference, a
-- replacement and a cause become the expected facts, supersession and causal link.
begin;
set local client_min_messages = warning;
select plan(5);

do $$
declare
  said text;
begin
  perform stash.create_namespace('/scenario');
  foreach said in array array['Alice prefers dark mode', 'The API uses PostgreSQL 15', 'We switched the API to PostgreSQL 16',
                              'The disk is full', 'The deploy is failing', 'The deploy is failing because the disk is full',
                              'How was your weekend?'] loop
    perform stash.remember('/scenario', said);
    perform stash.consolidate('/scenario');
  end loop;
end
$$;

select set_eq($$ select content from stash.query_facts('{/scenario}') $$,
              $$ values ('Alice prefers dark mode'), ('API uses PostgreSQL 16'), ('Disk is full'), ('Deploy is failing'),
                        ('The deploy is failing because the disk is full') $$,
              'the current facts: the preference, the new database, the two states and the stated cause');
select results_eq($$ select f.value, s.value from stash.facts f join stash.facts s on s.id = f.superseded_by where f.namespace_id = stash._namespace_id('/scenario') $$,
                  $$ values ('PostgreSQL 15'::text, 'PostgreSQL 16'::text) $$, 'the switch superseded the old database');
select results_eq($$ select method, resolved, resolution from stash.contradictions where namespace_id = stash._namespace_id('/scenario') $$,
                  $$ values ('auto'::text, true, 'superseded'::text) $$, 'recorded as an automatic replacement');
select results_eq($$ select cause, effect from stash.list_causal_links('{/scenario}') $$,
                  $$ values ('Disk is full'::text, 'Deploy is failing'::text) $$, 'the "because" became a causal link between the two facts');
select is((select count(*)::int from stash.facts where namespace_id = stash._namespace_id('/scenario') and content ilike '%weekend%'), 0,
          'small talk made no fact');

select * from finish();
rollback;

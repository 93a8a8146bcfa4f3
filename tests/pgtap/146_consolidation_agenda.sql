-- Consolidation stages 4 and 5 with the rules reasoner: goal progress (bounded notes, own
-- checkpoint even without goals) and failures (old failures matched against new behaviour).
begin;
set local client_min_messages = warning;
select plan(8);

do $$ begin
  perform stash.create_namespace('/agenda');
  perform stash.assert_fact('/agenda', 'The billing service shipped on Monday');
  perform stash.consolidate('/agenda');  -- no goals yet
end $$;
select is(stash._checkpoint(stash._namespace_id('/agenda'), 'goals'), (select max(id) from stash.facts),
          'the goal stage''s checkpoint moves even when there are no goals (no backlog)');

create temp table g as select id from stash.create_goal('/agenda', 'Ship the billing service');
do $$ begin perform stash.assert_fact('/agenda', 'The billing service is finished'); perform stash.consolidate('/agenda'); end $$;
select is((select notes from stash.goals where id = (select id from g)) like '[SUGGESTED COMPLETE]%', true,
          'a fact saying the goal is done is noted on the goal');
select is((select status from stash.goals where id = (select id from g)), 'active', 'the goal is not completed behind the agent''s back');
update stash.goals set notes = (select string_agg('old note ' || i, E'\n') from generate_series(1, 25) i) where id = (select id from g);
do $$ begin perform stash.assert_fact('/agenda', 'The billing service was released'); perform stash.consolidate('/agenda'); end $$;
select is((select cardinality(string_to_array(notes, E'\n')) from stash.goals where id = (select id from g)), 20,
          'notes keep the latest 20 lines');

-- A failure recorded long ago is still matched against new behaviour.
insert into stash.failures (namespace_id, content, reason, lesson, created_at)
values (stash._namespace_id('/agenda'), 'Deploying on Friday evening broke production', 'Nobody was around to roll back',
        'Deploy before Thursday noon', now() - interval '1 year');
do $$ begin perform stash.remember('/agenda', 'We are deploying on Friday evening again'); end $$;
create temp table r as select stash.consolidate('/agenda') as r;
select is((select (r->>'failure_repeats_detected')::int from r), 1, 'an old failure repeated by a new episode is detected');
select ok((select content like 'REPEAT FAILURE [failure #%]: We are deploying on Friday evening again' from stash.episodes
            where source = 'consolidation'), 'and recorded as an episode of its own');
do $$ begin perform stash.consolidate('/agenda'); end $$;
select is((select count(*)::int from stash.episodes where source = 'consolidation'), 1,
          'the repeat record itself does not trigger another one');
select is((select count(*)::int from stash.consolidation_runs where namespace_id = stash._namespace_id('/agenda') and status <> 'succeeded'), 0,
          'every run succeeded');

select * from finish();
rollback;

-- Scheduling through pg_cron: named per-namespace jobs, replaced not duplicated; default jobs.
begin;
select plan(12);

do $$ begin perform stash.create_namespace('/sched/a'); end $$;
select results_eq($$ select job, namespace, schedule, command from stash.schedule_consolidation('/sched/a/', '*/10 * * * *') $$,
                  $$ values ('stash.consolidate:/sched/a'::text, '/sched/a'::text, '*/10 * * * *'::text,
                             'select stash.consolidate(''/sched/a'', ''cron'')'::text) $$,
                  'schedule_consolidation creates a named pg_cron job');
select is((select schedule from stash.schedule_consolidation('/sched/a', '0 * * * *')), '0 * * * *', 'scheduling again replaces the schedule');
select is((select count(*)::int from cron.job where jobname = 'stash.consolidate:/sched/a'), 1, 'and does not duplicate the job');
select throws_ok($$ select * from stash.schedule_consolidation('/sched/a', 'every tuesday') $$, '22023', null, 'an invalid cron expression is refused');
select throws_ok($$ select * from stash.schedule_consolidation('/sched/nope') $$, 'P0002', null, 'an unknown namespace is refused');
select is(stash.unschedule_consolidation('/sched/a'), true, 'unschedule_consolidation removes the job');
select is(stash.unschedule_consolidation('/sched/a'), false, 'and reports when there was none');

do $$ begin perform stash.create_namespace('/sched/b/c'); perform stash.schedule_consolidation('/sched/b/c'); end $$;
do $$ begin perform stash.purge(namespace => '/sched/b'); end $$;
select is((select count(*)::int from cron.job where jobname = 'stash.consolidate:/sched/b/c'), 0,
          'purging a namespace removes its consolidation schedule');

delete from cron.job where jobname in ('stash.auto_consolidate', 'stash.maintenance');
select set_eq($$ select job, command from stash.schedule_defaults() $$,
              $$ values ('stash.auto_consolidate'::text, 'call stash.consolidate_pending()'::text),
                        ('stash.maintenance', 'call stash.run_maintenance()') $$,
              'schedule_defaults installs automatic consolidation and maintenance');
update cron.job set schedule = '*/7 * * * *' where jobname = 'stash.auto_consolidate';
select is((select schedule from stash.schedule_defaults() where job = 'stash.auto_consolidate'), '*/7 * * * *',
          'and leaves a schedule someone changed alone');
select is((select count(*)::int from cron.job where jobname like 'stash.%'), 2, 'no duplicates');
select ok((select bool_and(username = current_user) from cron.job where jobname like 'stash.%'), 'jobs run as the role that scheduled them');

select * from finish();
rollback;

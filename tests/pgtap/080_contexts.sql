-- Contexts: one per exact namespace, replaced on set, and gone once expired.
begin;
select plan(10);

do $$ begin perform stash.create_namespace('/ctx'); perform stash.create_namespace('/ctx/child'); end $$;

select is((select focus from stash.set_context('/ctx', 'Refactoring recall')), 'Refactoring recall', 'set_context returns the context');
select ok((select expires_at between now() + interval '59 minutes' and now() + interval '61 minutes' from stash.get_context('/ctx')),
          'the default TTL is one hour');
select is((select focus from stash.set_context('/ctx', 'Writing tests', interval '5 minutes')), 'Writing tests', 'setting again replaces it');
select is((select count(*)::int from stash.contexts), 1, 'one context per namespace');
select is((select count(*)::int from stash.get_context('/ctx/child')), 0, 'contexts are per exact namespace, not inherited');
update stash.contexts set updated_at = now() - interval '2 hours', expires_at = now() - interval '1 hour';
select is((select count(*)::int from stash.get_context('/ctx')), 0, 'an expired context reads as absent');
select is(stash.clear_context('/ctx'), false, 'clearing an expired context reports nothing live was cleared');
select throws_ok($$ select * from stash.set_context('/ctx', ' ') $$, '22023', null, 'an empty focus is refused');
select throws_ok($$ select * from stash.set_context('/ctx', 'x', interval '-1 minute') $$, '22023', null, 'a negative TTL is refused');
select throws_ok($$ select * from stash.get_context('/nope') $$, 'P0002', null, 'an unknown namespace is refused');

select * from finish();
rollback;

-- Resolving a contradiction applies the decision to the facts, once.
begin;
select plan(14);

do $$ begin perform stash.create_namespace('/cx'); end $$;
-- Four independent pairs, one per decision.
create temp table pairs as
with made as (
  select r, (stash.assert_fact('/cx', 'Server ' || r || ' runs Debian 11', 'server ' || r, 'os', 'Debian 11')).id as old_id
    from unnest(array['keep_old', 'keep_new', 'keep_both', 'neither']) r
)
select r, old_id from made;
insert into stash.facts (namespace_id, content, entity, property, value)
select stash._namespace_id('/cx'), 'Server ' || r || ' runs Ubuntu 22.04', 'server ' || r, 'os', 'Ubuntu 22.04' from pairs;
insert into stash.contradictions (namespace_id, old_fact_id, new_fact_id, entity, property, old_value, new_value, classification)
select stash._namespace_id('/cx'), p.old_id, f.id, 'server ' || p.r, 'os', 'Debian 11', 'Ubuntu 22.04', 'contradiction'
  from pairs p join stash.facts f on f.entity = 'server ' || p.r and f.value = 'Ubuntu 22.04';
create temp table cx as select c.id, p.r, c.old_fact_id, c.new_fact_id from stash.contradictions c join pairs p on p.old_id = c.old_fact_id;

select is((select count(*)::int from stash.list_contradictions('{/cx}')), 4, 'list_contradictions shows the unresolved ones');
select is((select resolution from stash.resolve_contradiction((select id from cx where r = 'keep_old'), 'keep_old')), 'keep_old', 'resolve returns the decision');
select results_eq($$ select (select valid_until is null from stash.facts where id = old_fact_id), (select valid_until is null from stash.facts where id = new_fact_id)
                      from cx where r = 'keep_old' $$, $$ values (true, false) $$, 'keep_old: the old fact stands, the new one ends');
select lives_ok($$ select stash.resolve_contradiction((select id from cx where r = 'keep_new'), 'new_value_correct') $$, 'the reference''s names are accepted');
select results_eq($$ select (select valid_until is null from stash.facts where id = old_fact_id), (select superseded_by = cx.new_fact_id from stash.facts where id = old_fact_id),
                           (select valid_until is null from stash.facts where id = new_fact_id)
                      from cx where r = 'keep_new' $$, $$ values (false, true, true) $$, 'keep_new: the old fact ends, superseded by the new');
select lives_ok($$ select stash.resolve_contradiction((select id from cx where r = 'keep_both'), 'keep_both') $$, 'keep_both');
select results_eq($$ select (select valid_until is null from stash.facts where id = old_fact_id), (select valid_until is null from stash.facts where id = new_fact_id)
                      from cx where r = 'keep_both' $$, $$ values (true, true) $$, 'keep_both: both stay current');
select lives_ok($$ select stash.resolve_contradiction((select id from cx where r = 'neither'), 'neither') $$, 'neither');
select results_eq($$ select (select valid_until is null from stash.facts where id = old_fact_id), (select valid_until is null from stash.facts where id = new_fact_id)
                      from cx where r = 'neither' $$, $$ values (false, false) $$, 'neither: both end');
select is((select count(*)::int from stash.list_contradictions('{/cx}')), 0, 'nothing is left unresolved');
select is((select count(*)::int from stash.list_contradictions('{/cx}', include_resolved => true) where resolved_by = current_user), 4,
          'include_resolved shows them, with who resolved them');
select throws_ok($$ select stash.resolve_contradiction((select id from cx where r = 'keep_old'), 'keep_new') $$, '55000', null,
                 'a contradiction cannot be resolved twice');
select throws_ok($$ select stash.resolve_contradiction((select id from cx where r = 'keep_old'), 'whatever') $$, '22023', null,
                 'an unknown resolution is refused');
select throws_ok($$ select stash.resolve_contradiction(-1, 'keep_old') $$, 'P0002', null, 'an unknown contradiction is refused');

select * from finish();
rollback;

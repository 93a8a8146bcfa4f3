-- stash.status and stash.consolidation_status: what they report, scoped to the namespaces asked,
-- and readable by the reader role.
begin;
set local client_min_messages = warning;
select plan(11);

select stash.create_namespace('/st/a');
select stash.create_namespace('/st/b');
select stash.remember('/st/a', 'Alice lives in Paris');
select stash.remember('/st/b', 'Bob lives in Rome');
select stash.consolidate('/st/a');

create temp table s as select stash.status() as s;
select ok((select (s->'extensions') ?& array['vector', 'pg_cron', 'plpython3u'] from s), 'status lists the extensions');
select is((select s->'embedder'->>'provider' from s), 'local', 'and the embedder');
select is((select (s->>'episodes')::bigint from s), (select count(*) from stash.episodes where deleted_at is null), 'and counts live episodes');
select is((select s->>'role' from s), current_user::text, 'as the calling role');

create temp table c as select stash.consolidation_status('{/st/a}') as c;
select is((select jsonb_array_length(c->'runs') from c), 1, 'runs of the namespaces asked only');
select is((select c->'runs'->0->>'namespace' from c), '/st/a', 'with their namespace');
select is((select c->'pending' from c), '[]'::jsonb, 'nothing pending after consolidation');
select is((select stash.consolidation_status('{/st/b}')->'pending'->0->>'episodes'), '1', 'one episode waiting in /st/b');
select throws_ok($$ select stash.consolidation_status('{/st/none}') $$, 'P0002', null, 'unknown namespace');
select throws_ok($$ select stash.consolidation_status('{/st}', 0) $$, '22023', null, 'bad page');

create role t_status_reader in role stash_reader;
select stash.grant_namespace('t_status_reader', '/st', 'read');
set local role t_status_reader;
select lives_ok($$ select stash.status(), stash.consolidation_status('{/st}') $$, 'the reader may read both');
reset role;

select * from finish();
rollback;

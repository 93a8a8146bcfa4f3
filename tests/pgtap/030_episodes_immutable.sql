-- Episodes are append-only: content and provenance never change; embedding and soft delete may.
begin;
select plan(8);

insert into stash.namespaces (path, parent_id) values ('/imm', (select id from stash.namespaces where path = '/'));
insert into stash.episodes (namespace_id, content, source, agent)
select id, 'The deploy moved to Fridays', 'mcp', 'agent-a' from stash.namespaces where path = '/imm';

select throws_ok($$ update stash.episodes set content = 'rewritten' $$, '55000', null, 'content cannot change');
select throws_ok($$ update stash.episodes set occurred_at = now() - interval '1 day' $$, '55000', null, 'occurred_at cannot change');
select throws_ok($$ update stash.episodes set metadata = '{"a": 1}' $$, '55000', null, 'metadata cannot change');
select throws_ok($$ update stash.episodes set agent = 'someone-else' $$, '55000', null, 'the author cannot change');
select lives_ok($$ update stash.episodes set embedding = array_fill(0.1, array[(select value::int from stash.settings where key = 'embedding.dimension')])::vector,
                                          embedding_model = 'test' $$, 'the embedding can be filled in');
select lives_ok($$ update stash.episodes set deleted_at = now() $$, 'an episode can be soft-deleted');
select is((select content from stash.episodes), 'The deploy moved to Fridays', 'content is unchanged');
select lives_ok($$ delete from stash.episodes $$, 'an episode can be purged');

select * from finish();
rollback;

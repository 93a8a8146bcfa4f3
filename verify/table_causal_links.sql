-- Verify stash:table_causal_links on pg
select id, namespace_id, cause_fact_id, effect_fact_id, confidence, method, created_by, created_at, deleted_at
from stash.causal_links where false;
do $$
begin
  assert (select count(*) from pg_constraint where conrelid = 'stash.causal_links'::regclass and contype = 'c') >= 3,
    'stash.causal_links: check constraints missing';
  assert has_table_privilege('stash_reader', 'stash.causal_links', 'select'), 'stash_reader cannot read stash.causal_links';
  assert not has_table_privilege('stash_reader', 'stash.causal_links', 'insert,update,delete'), 'stash_reader can write stash.causal_links';
  assert has_table_privilege('stash_writer', 'stash.causal_links', 'select') and has_table_privilege('stash_writer', 'stash.causal_links', 'insert')
     and has_table_privilege('stash_writer', 'stash.causal_links', 'update') and has_table_privilege('stash_writer', 'stash.causal_links', 'delete'),
    'stash_writer cannot read and write stash.causal_links';
  assert not has_table_privilege('stash_writer', 'stash.causal_links', 'truncate'), 'stash_writer can truncate stash.causal_links';
  assert (select relowner::regrole::text from pg_class where oid = 'stash.causal_links'::regclass) = 'stash_owner',
    'stash.causal_links is not owned by stash_owner';
end
$$;

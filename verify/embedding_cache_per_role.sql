-- Verify stash:embedding_cache_per_role on pg
select role_name from stash.embedding_cache where false;
do $$
begin
  assert (select array_agg(a.attname::text order by k.i) from pg_constraint c
            cross join unnest(c.conkey) with ordinality k(attnum, i)
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
           where c.conrelid = 'stash.embedding_cache'::regclass and c.contype = 'p') = array['text_hash', 'model', 'role_name'],
    'stash.embedding_cache: the primary key is not (text_hash, model, role_name)';
end
$$;

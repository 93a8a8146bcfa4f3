-- Large scopes search full text on selective words only (by the column's statistics): a word in
-- most rows is dropped from the text query unless nothing rarer is left.
begin;
select plan(4);

do $$
begin
  perform stash.create_namespace('/sel');
  insert into stash.episodes (namespace_id, content)
  select stash._namespace_id('/sel'), 'zebra note ' || i || case when i = 7 then ' about a narwhal' else '' end
    from generate_series(1, 400) i;
end
$$;
analyze stash.episodes;

select is(stash._selective_tsquery('zebra narwhal', 'episodes', 0.05)::text, '''narwhal''',
          'a word in most rows is dropped when a rarer one remains');
select is(stash._selective_tsquery('zebra', 'episodes', 0.05)::text, '''zebra''', 'the rarest word is kept when none is rare');
select is(stash._selective_tsquery('zebra narwhal', 'episodes', 1.01)::text, '''zebra'' | ''narwhal''',
          'a threshold above 1 keeps every word');
update stash.settings set value = '1' where key = 'recall.exact_scan_rows';
select is((select content from stash.recall('zebra narwhal', '{/sel}', kinds => '{episode}') limit 1), 'zebra note 7 about a narwhal',
          'through the large-scope path the rare word finds its row');

select * from finish();
rollback;

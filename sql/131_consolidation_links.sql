-- Consolidation stages 2 (facts -> relationships), 3 (facts -> causal links) and 6 (facts and
-- relationships -> patterns). Each has its own checkpoint; an item the reasoner keeps failing on is
-- retried and then dead-lettered like stage 1's; a provider outage (58000) stops the stage.

create function stash._stage_relationships(ns bigint)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  c jsonb := '{"relationships_found": 0}';
  cp bigint := stash._checkpoint(ns, 'relationships');
  batch bigint[] := stash._new_facts(ns, 'relationships', cp, 50);
  f record;
  r jsonb;
  edge jsonb;
  last_id bigint;
  msg text;
  state text;
  detail text;
begin
  for f in select x.id, x.content, x.entity, x.property, x.value from stash.facts x
            where x.id = any (batch) order by x.id loop
    last_id := greatest(last_id, f.id);
    begin
      r := stash._reason('relationships', jsonb_build_object('fact', f.content, 'entity', f.entity, 'prop', f.property,
                                                              'value', f.value), ns);
      c := stash._bump(c, stash._usage(r));
      for edge in select * from jsonb_array_elements(r -> 'result') loop
        -- One live edge per (from, type, to): seen again, it is reinforced, never duplicated,
        -- also when two runs race (the unique index decides).
        insert into stash.relationships as x (namespace_id, from_entity, relation_type, to_entity, confidence, source_fact_id)
        values (ns, edge ->> 'from', edge ->> 'relation_type', edge ->> 'to', (edge ->> 'confidence')::real, f.id)
        on conflict (namespace_id, from_key, relation_type, to_key) where deleted_at is null do update
           set observation_count = x.observation_count + 1, confidence = greatest(x.confidence, excluded.confidence),
               updated_at = now();
        c := stash._bump(c, '{"relationships_found": 1}');
      end loop;
      perform stash._item_done(ns, 'relationships', null, array[f.id]);
    exception when others then
      get stacked diagnostics msg = message_text, state = returned_sqlstate, detail = pg_exception_detail;
      if state = '58000' then
        raise;
      end if;
      c := stash._item_failed(ns, 'relationships', c, null, array[f.id], msg, state, detail);
    end;
  end loop;
  if last_id is not null then
    perform stash._advance_checkpoint(ns, 'relationships', last_id);
  end if;
  return c;
end
$$;
comment on function stash._stage_relationships(bigint) is
  'Consolidation stage 2: entity relationships from each new fact (own checkpoint), unique per namespace, reinforced when seen again.';

create function stash._stage_causal(ns bigint)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  c jsonb := '{"causal_links_found": 0}';
  cp bigint := stash._checkpoint(ns, 'causal');
  batch bigint[];
  facts jsonb;
  r jsonb;
  link jsonb;
  made bigint;
  msg text;
  state text;
  detail text;
begin
  -- Its own checkpoint: the new facts, seen beside the namespace's most recent current ones.
  batch := stash._new_facts(ns, 'causal', cp, 30);
  if cardinality(batch) = 0 then
    return c;
  end if;
  select jsonb_agg(jsonb_build_object('id', x.id, 'content', x.content) order by x.id) into facts
    from (select x.id, x.content from stash.facts x where x.id = any (batch)
          union
          (select x.id, x.content from stash.facts x
            where x.namespace_id = ns and x.deleted_at is null and (x.valid_until is null or x.valid_until > now())
              and x.id <> all (batch)
            order by x.id desc limit 50)) x;
  begin
    r := stash._reason('causal_links', jsonb_build_object('facts', facts), ns);
    c := stash._bump(c, stash._usage(r));
    for link in select * from jsonb_array_elements(r -> 'result') loop
      insert into stash.causal_links (namespace_id, cause_fact_id, effect_fact_id, confidence, method)
      values (ns, (link ->> 'cause_id')::bigint, (link ->> 'effect_id')::bigint, (link ->> 'confidence')::real, 'extracted')
      on conflict (cause_fact_id, effect_fact_id) where deleted_at is null do nothing
      returning id into made;
      if made is not null then
        c := stash._bump(c, '{"causal_links_found": 1}');  -- only links really added are counted
      end if;
    end loop;
    perform stash._item_done(ns, 'causal', null, batch);
  exception when others then
    get stacked diagnostics msg = message_text, state = returned_sqlstate, detail = pg_exception_detail;
    if state = '58000' then
      raise;
    end if;
    c := stash._item_failed(ns, 'causal', c, null, batch, msg, state, detail);
  end;
  perform stash._advance_checkpoint(ns, 'causal', (select max(x) from unnest(batch) x));
  return c;
end
$$;
comment on function stash._stage_causal(bigint) is
  'Consolidation stage 3: causal links among the new facts and the namespace''s recent ones (own checkpoint; only links really added are counted).';

create function stash._stage_patterns(ns bigint)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  c jsonb := '{"patterns_found": 0}';
  cp_facts bigint := stash._checkpoint(ns, 'patterns_facts');
  cp_rels bigint := stash._checkpoint(ns, 'patterns_relationships');
  new_facts bigint[];
  new_rels bigint[];
  facts jsonb;
  rels jsonb;
  r jsonb;
  p jsonb;
  newer_id bigint;
  newer_facts bigint[];
  newer_rels bigint[];
  inserted boolean;
  conf real;
  msg text;
  state text;
  detail text;
begin
  new_facts := stash._new_facts(ns, 'patterns', cp_facts, 30);  -- new, and failed ones due a retry
  new_rels := array(select x.id from stash.relationships x where x.namespace_id = ns and x.id > cp_rels and x.deleted_at is null
                       order by x.id limit 50);
  if cardinality(new_facts) = 0 and cardinality(new_rels) = 0 then
    return c;
  end if;
  -- The new facts, and the live relationships (new ones first, then the most recent others) so an
  -- aggregate over old and new edges is seen whole.
  select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'content', x.content, 'confidence', x.confidence) order by x.id), '[]')
    into facts from stash.facts x where x.id = any (new_facts);
  select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'from', x.from_entity, 'relation_type', x.relation_type,
                                               'to', x.to_entity, 'confidence', x.confidence) order by x.id), '[]')
    into rels
    from (select x.* from stash.relationships x where x.namespace_id = ns and x.deleted_at is null
           order by x.id = any (new_rels) desc, x.id desc limit 200) x;
  begin
    r := stash._reason('patterns', jsonb_build_object('facts', facts, 'relationships', rels), ns);
    c := stash._bump(c, stash._usage(r));
    for p in select * from jsonb_array_elements(r -> 'result') loop
      -- Confidence: the weakest source's, scaled by how coherent the pattern is. The model's own
      -- attribution of sources is kept as given.
      select least(coalesce(min(f.confidence), 1), coalesce((select min(x.confidence) from stash.relationships x
                    where x.id in (select jsonb_array_elements_text(p -> 'source_relationship_ids')::bigint)), 1))
             * (p ->> 'coherence')::real
        into conf
        from stash.facts f where f.id in (select jsonb_array_elements_text(p -> 'source_fact_ids')::bigint);
      insert into stash.patterns as x (namespace_id, content, confidence, coherence, source_fact_ids, source_relationship_ids,
                                       embedding, embedding_model)
      select ns, p ->> 'pattern', conf, (p ->> 'coherence')::real,
             array(select jsonb_array_elements_text(p -> 'source_fact_ids')::bigint),
             array(select jsonb_array_elements_text(p -> 'source_relationship_ids')::bigint),
             e.v, case when e.v is not null then stash._embedding_model() end
        from (select stash._embed_or_null(p ->> 'pattern') as v) e
      -- Found again in a later run: the same row, refreshed, not a duplicate.
      on conflict (namespace_id, content_key) where deleted_at is null do update
         set confidence = excluded.confidence, coherence = excluded.coherence,
             source_fact_ids = excluded.source_fact_ids, source_relationship_ids = excluded.source_relationship_ids,
             updated_at = now()
      returning x.id, x.source_fact_ids, x.source_relationship_ids, x.xmax = 0
           into newer_id, newer_facts, newer_rels, inserted;
      -- A pattern whose sources a newer one covers is subsumed by it ("A and B ..." by "A, B and C ...").
      update stash.patterns x set deleted_at = now(), updated_at = now()
       where x.namespace_id = ns and x.deleted_at is null and x.id <> newer_id
         and x.source_fact_ids <@ newer_facts and x.source_relationship_ids <@ newer_rels;
      if inserted then
        c := stash._bump(c, '{"patterns_found": 1}');  -- found again (an update) is not new
      end if;
    end loop;
    perform stash._item_done(ns, 'patterns', null, new_facts);
  exception when others then
    get stacked diagnostics msg = message_text, state = returned_sqlstate, detail = pg_exception_detail;
    if state = '58000' then
      raise;
    end if;
    c := stash._item_failed(ns, 'patterns', c, null, new_facts, msg, state, detail);
  end;
  perform stash._advance_checkpoint(ns, 'patterns_facts', coalesce((select max(x) from unnest(new_facts) x), 0));
  perform stash._advance_checkpoint(ns, 'patterns_relationships', coalesce((select max(x) from unnest(new_rels) x), 0));
  return c;
end
$$;
comment on function stash._stage_patterns(bigint) is
  'Consolidation stage 6: patterns over new facts and the live relationships (own checkpoints), kept with the model''s attribution, one row per pattern across runs.';

grant execute on function stash._stage_relationships(bigint), stash._stage_causal(bigint), stash._stage_patterns(bigint)
  to stash_writer;

-- Consolidation stages 4 (goal progress), 5 (failure patterns) and 7 (hypothesis evidence): new
-- facts or episodes weighed against the namespace's goals, failures and open hypotheses. Each stage
-- has its own checkpoint, which moves even when there is nothing to weigh against (so no backlog
-- builds up while there are no goals), and failures follow the same retry / dead-letter rules.

create function stash._stage_goals(ns bigint)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  c jsonb := '{"goals_annotated": 0, "goals_suggested_complete": 0}';
  batch bigint[] := stash._new_facts(ns, 'goals', stash._checkpoint(ns, 'goals'), 30);
  goals jsonb;
  r jsonb;
  a jsonb;
  msg text;
  state text;
  detail text;
begin
  if cardinality(batch) = 0 then
    return c;
  end if;
  select jsonb_agg(jsonb_build_object('id', g.id, 'content', g.content) order by g.priority desc, g.id) into goals
    from (select g.* from stash.goals g where g.namespace_id = ns and g.status = 'active' and g.deleted_at is null
           order by g.priority desc, g.id limit 20) g;
  if goals is not null then
    begin
      r := stash._reason('goal_progress', jsonb_build_object('goals', goals,
             'facts', (select jsonb_agg(jsonb_build_object('id', x.id, 'content', x.content) order by x.id)
                         from stash.facts x where x.id = any (batch))), ns);
      c := stash._bump(c, stash._usage(r));
      for a in select * from jsonb_array_elements(r -> 'result') loop
        -- Notes keep the latest 20 lines: annotations never grow without bound. Goals are never
        -- completed here; a suggestion is for the agent to act on.
        update stash.goals g
           set notes = (select array_to_string(l[greatest(1, cardinality(l) - 19):], E'\n')
                          from (select coalesce(string_to_array(nullif(g.notes, ''), E'\n'), '{}')
                                       || format('[%s] %s (confidence %s)', upper(replace(a ->> 'assessment', '_', ' ')),
                                                 a ->> 'note', round((a ->> 'confidence')::numeric, 2)) as l) s),
               updated_at = now()
         where g.id = (a ->> 'goal_id')::bigint and g.namespace_id = ns and g.status = 'active';
        c := stash._bump(c, jsonb_build_object('goals_annotated', 1,
               'goals_suggested_complete', case when a ->> 'assessment' = 'suggested_complete' then 1 else 0 end));
      end loop;
      perform stash._item_done(ns, 'goals', null, batch);
    exception when others then
      get stacked diagnostics msg = message_text, state = returned_sqlstate, detail = pg_exception_detail;
      if state = '58000' then
        raise;  -- the provider is down: the stage stops, nothing is blamed on the items
      end if;
      c := stash._item_failed(ns, 'goals', c, null, batch, msg, state, detail);
    end;
  end if;
  perform stash._advance_checkpoint(ns, 'goals', (select max(x) from unnest(batch) x));
  return c;
end
$$;
comment on function stash._stage_goals(bigint) is
  'Consolidation stage 4: new facts weighed against active goals; progress, suggested completion or contradiction noted on the goal (bounded notes; goals are never completed automatically).';

create function stash._stage_failures(ns bigint)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  c jsonb := '{"failure_repeats_detected": 0, "failure_patterns_found": 0}';
  cp bigint := stash._checkpoint(ns, 'failures');
  bound bigint := stash._ingest_bound(ns);
  batch bigint[];
  failures jsonb;
  r jsonb;
  f jsonb;
  emb vector;
  msg text;
  state text;
  detail text;
begin
  -- New episodes (not the ones consolidation itself writes) against every recent failure, old
  -- ones included: a repeated mistake is noticed however long ago it was recorded.
  batch := array(select e.id from stash.episodes e
                  where e.namespace_id = ns and e.deleted_at is null and e.source <> 'consolidation'
                    and ((e.id > cp and e.id <= bound) or exists (select from stash.consolidation_failures q where q.namespace_id = ns
                                                and q.stage = 'failures' and q.episode_id = e.id and not q.dead))
                  order by e.id limit 30);
  if cardinality(batch) = 0 then
    return c;
  end if;
  select jsonb_agg(jsonb_build_object('id', x.id, 'content', x.content, 'reason', x.reason, 'lesson', x.lesson) order by x.id)
    into failures
    from (select x.* from stash.failures x where x.namespace_id = ns and x.deleted_at is null
           order by x.created_at desc limit 50) x;
  if failures is not null then
    begin
      r := stash._reason('failure_patterns', jsonb_build_object('failures', failures,
             'episodes', (select jsonb_agg(e.content order by e.id) from stash.episodes e where e.id = any (batch))), ns);
      c := stash._bump(c, stash._usage(r));
      for f in select * from jsonb_array_elements(r -> 'result') loop
        if f ->> 'type' = 'repetition' then
          emb := stash._embed_or_null('Repeated failure: ' || (f ->> 'evidence'));
          insert into stash.episodes (namespace_id, content, source, metadata, embedding, embedding_model)
          values (ns, format('REPEAT FAILURE [failure #%s]: %s', f ->> 'failure_id', f ->> 'evidence'), 'consolidation',
                  jsonb_build_object('failure_id', (f ->> 'failure_id')::bigint, 'confidence', f -> 'confidence'),
                  emb, case when emb is not null then stash._embedding_model() end);
          c := stash._bump(c, '{"failure_repeats_detected": 1}');
        else
          emb := stash._embed_or_null(f ->> 'pattern_fact');
          insert into stash.facts (namespace_id, content, confidence, origin, embedding, embedding_model)
          values (ns, f ->> 'pattern_fact', (f ->> 'confidence')::real, 'failure_pattern', emb,
                  case when emb is not null then stash._embedding_model() end);
          c := stash._bump(c, '{"failure_patterns_found": 1}');
        end if;
      end loop;
      perform stash._item_done(ns, 'failures', batch, null);
    exception when others then
      get stacked diagnostics msg = message_text, state = returned_sqlstate, detail = pg_exception_detail;
      if state = '58000' then
        raise;  -- the provider is down: the stage stops, nothing is blamed on the items
      end if;
      c := stash._item_failed(ns, 'failures', c, batch, null, msg, state, detail);
    end;
  end if;
  perform stash._advance_checkpoint(ns, 'failures', (select max(x) from unnest(batch) x));
  return c;
end
$$;
comment on function stash._stage_failures(bigint) is
  'Consolidation stage 5: new episodes compared with the namespace''s recorded failures (old ones too); a repetition is recorded as an episode, a lesson across failures as a fact.';

create function stash._stage_hypotheses(ns bigint)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  c jsonb := '{"hypotheses_auto_confirmed": 0, "hypotheses_auto_rejected": 0, "hypotheses_updated": 0}';
  batch bigint[] := stash._new_facts(ns, 'hypotheses', stash._checkpoint(ns, 'hypotheses'), 30);
  confirm_at real := stash._setting('hypothesis.auto_confirm_threshold', ns)::real;
  reject_at real := stash._setting('hypothesis.auto_reject_threshold', ns)::real;
  hyps jsonb;
  r jsonb;
  v jsonb;
  h stash.hypotheses;
  msg text;
  state text;
  detail text;
begin
  if cardinality(batch) = 0 then
    return c;
  end if;
  select jsonb_agg(jsonb_build_object('id', x.id, 'content', x.content, 'status', x.status, 'confidence', x.confidence)
                   order by x.id)
    into hyps
    from (select x.* from stash.hypotheses x where x.namespace_id = ns and x.deleted_at is null
             and x.status in ('proposed', 'testing') order by x.updated_at desc limit 20) x;
  if hyps is not null then
    begin
      r := stash._reason('hypothesis_evidence', jsonb_build_object('hypotheses', hyps,
             'facts', (select jsonb_agg(jsonb_build_object('id', x.id, 'content', x.content) order by x.id)
                         from stash.facts x where x.id = any (batch))), ns);
      c := stash._bump(c, stash._usage(r));
      for v in select * from jsonb_array_elements(r -> 'result') loop
        -- Re-read under lock: the hypothesis may have moved on since it was listed.
        select * into h from stash.hypotheses x where x.id = (v ->> 'hypothesis_id')::bigint and x.deleted_at is null for update;
        continue when not found or h.status not in ('proposed', 'testing');
        if v ->> 'verdict' = 'supports' and (v ->> 'confidence')::real >= confirm_at then
          if h.status = 'proposed' then
            perform stash.test_hypothesis(h.id);
            c := stash._bump(c, '{"hypotheses_updated": 1}');
          else
            perform stash.confirm_hypothesis(h.id);  -- one fact, exactly once, under the row lock
            c := stash._bump(c, '{"hypotheses_auto_confirmed": 1}');
          end if;
        elsif v ->> 'verdict' = 'contradicts' and (v ->> 'confidence')::real >= reject_at then
          perform stash.reject_hypothesis(h.id, coalesce(nullif(v ->> 'reasoning', ''),
                                                         'Contradicted by evidence found during consolidation'));
          c := stash._bump(c, '{"hypotheses_auto_rejected": 1}');
        elsif v ->> 'verdict' in ('supports', 'weakens') then
          update stash.hypotheses x set confidence = (v ->> 'new_confidence')::real, updated_at = now() where x.id = h.id;
          c := stash._bump(c, '{"hypotheses_updated": 1}');
        end if;
      end loop;
      perform stash._item_done(ns, 'hypotheses', null, batch);
    exception when others then
      get stacked diagnostics msg = message_text, state = returned_sqlstate, detail = pg_exception_detail;
      if state = '58000' then
        raise;  -- the provider is down: the stage stops, nothing is blamed on the items
      end if;
      c := stash._item_failed(ns, 'hypotheses', c, null, batch, msg, state, detail);
    end;
  end if;
  perform stash._advance_checkpoint(ns, 'hypotheses', (select max(x) from unnest(batch) x));
  return c;
end
$$;
comment on function stash._stage_hypotheses(bigint) is
  'Consolidation stage 7: new facts weighed against open hypotheses: strong support moves proposed to testing and confirms a testing one (its fact created exactly once), strong contradiction rejects, otherwise the confidence follows the evidence.';

grant execute on function stash._stage_goals(bigint), stash._stage_failures(bigint), stash._stage_hypotheses(bigint) to stash_writer;

-- Consolidation: episodes become facts, contradictions are found and resolved, stale beliefs decay.
--
-- stash.consolidate(ns) runs each namespace of the subtree separately: a per-namespace advisory
-- lock (a concurrent run returns {"skipped": "busy"} at once), one row in consolidation_runs, and
-- each stage in its own subtransaction: a failing stage rolls back only its own writes and its
-- checkpoint does not move. Inside a stage each item (a cluster of episodes) is its own
-- subtransaction too: an item that keeps failing is retried on later runs and, after
-- consolidation.max_attempts, dead-lettered in consolidation_failures, so one bad item never
-- stalls the rest. A provider outage (SQLSTATE 58000) is not the item's fault: it stops the stage
-- without counting attempts, and the next run does the work.
-- The eight stages: facts (1, here), relationships (2), causal links (3) and patterns (6) in
-- 131_consolidation_links.sql, goal progress (4), failure patterns (5) and hypothesis evidence (7)
-- in 132_consolidation_agenda.sql, decay (8, here).

create function stash._reason(task text, payload jsonb, namespace_id bigint default null)
returns jsonb
language plpython3u
volatile
security invoker
as $$
import json
from stash import embedders, reasoners
plan = SD.get("settings") or SD.setdefault("settings", plpy.prepare("select stash._settings_like('reasoner.', $1) as s", ["bigint"]))
settings = json.loads(plpy.execute(plan, [namespace_id])[0]["s"])
guc = plpy.execute("select current_setting('stash.openai_api_key', true) as k")[0]["k"]
key = embedders.resolve_secret(None, guc, ("STASH_OPENAI_API_KEY", "OPENAI_API_KEY"))
try:
    return json.dumps(reasoners.reason_for_sql(GD, task, json.loads(payload), settings, key))
except reasoners.ReasonerError as e:
    # The detail carries what the failed call cost, so the run can meter it.
    plpy.error(f"reasoner failed: {e}", detail=json.dumps({"usage": getattr(e, "usage", {})}),
               sqlstate="58000" if e.systemic else "38000")
$$;
comment on function stash._reason(text, jsonb, bigint) is
  'One reasoner call (python stash.reasoners) with the namespace''s reasoner settings: {result, reasoner, usage}. Errors: 58000 provider down / misconfigured (systemic), 38000 no valid answer (the item''s fault).';

create function stash._bump(counters jsonb, deltas jsonb)
returns jsonb
language sql
immutable
parallel safe
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select counters || coalesce((select jsonb_object_agg(d.key, coalesce((counters ->> d.key)::numeric, 0) + (d.value)::numeric)
                                 from jsonb_each_text(deltas) d), '{}');
$$;
comment on function stash._bump(jsonb, jsonb) is 'Adds numeric deltas to a counters object.';

create function stash._usage(r jsonb)
returns jsonb
language sql
immutable
parallel safe
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select jsonb_strip_nulls(jsonb_build_object(
    'llm_calls', r -> 'usage' -> 'calls', 'prompt_tokens', r -> 'usage' -> 'prompt_tokens',
    'completion_tokens', r -> 'usage' -> 'completion_tokens', 'llm_ms', r -> 'usage' -> 'ms',
    'reasoner_ms', r -> 'usage' -> 'elapsed_ms'));
$$;
comment on function stash._usage(jsonb) is
  'The usage counters of one reasoner answer, named as the run counters are: llm_calls, tokens, llm_ms (model requests) and reasoner_ms (time in the reasoner, any provider).';

create function stash._checkpoint(namespace_id bigint, checkpoint text)
returns bigint
language sql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select coalesce((select p.last_id from stash.consolidation_progress p
                    where p.namespace_id = _checkpoint.namespace_id and p.checkpoint = _checkpoint.checkpoint), 0);
$$;
comment on function stash._checkpoint(bigint, text) is 'The last id a consolidation cursor has processed (0 if none).';

create function stash._advance_checkpoint(namespace_id bigint, checkpoint text, last_id bigint)
returns void
language sql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
  -- Only forward: a checkpoint never moves back.
  insert into stash.consolidation_progress as p (namespace_id, checkpoint, last_id)
  values (namespace_id, checkpoint, last_id)
  on conflict (namespace_id, checkpoint) do update
     set last_id = greatest(p.last_id, excluded.last_id), updated_at = now();
$$;
comment on function stash._advance_checkpoint(bigint, text, bigint) is 'Moves a consolidation cursor forward (never back).';

-- Checkpoints are ids, and ids are handed out before their transactions commit: an episode (or a
-- fact asserted, corrected or confirmed by a client) with a smaller id can become visible after a
-- larger one was consolidated and the checkpoint moved past it. So writers hold a shared "ingest"
-- lock on their namespace from insert to commit, and each stage reads new rows only up to a bound
-- taken while no writer was in flight. Writers take the lock after every other lock they need and
-- wait on nothing after it, so a consolidation (which holds row locks from earlier stages) waiting
-- for them cannot deadlock.
create function stash._ingest_lock(ns bigint)
returns void
language sql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select pg_advisory_xact_lock_shared(1398034505, (ns % 2147483647)::int);
$$;
comment on function stash._ingest_lock(bigint) is
  'Taken by writers of episodes, insert to commit, so that a consolidation can wait for them (stash._ingest_bound).';

create function stash._ingest_bound(ns bigint, facts boolean default false)
returns bigint
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  key int := (ns % 2147483647)::int;
  bound bigint;
  old_timeout text := current_setting('lock_timeout');
begin
  if current_setting('transaction_isolation') <> 'read committed' then
    raise exception 'consolidation needs READ COMMITTED: it reads episodes as other sessions commit them'
      using errcode = 'invalid_transaction_state';
  end if;
  -- Wait (briefly: writers queue behind this request) until no writer is in flight in the namespace;
  -- every episode with an id up to the largest visible then is committed. A session lock, released
  -- at once, also when the read fails.
  perform set_config('lock_timeout', '2s', true);
  begin
    perform pg_advisory_lock(1398034505, key);
  exception when lock_not_available then
    perform set_config('lock_timeout', old_timeout, true);
    -- Writers kept the namespace busy: take nothing new this time (retries still run; a bound of 0
    -- is below every checkpoint).
    return 0;
  end;
  perform set_config('lock_timeout', old_timeout, true);
  begin
    if facts then
      select coalesce(max(f.id), 0) into bound from stash.facts f where f.namespace_id = ns;
    else
      select coalesce(max(e.id), 0) into bound from stash.episodes e where e.namespace_id = ns;
    end if;
  exception when others or query_canceled then
    perform pg_advisory_unlock(1398034505, key);
    raise;
  end;
  perform pg_advisory_unlock(1398034505, key);
  return bound;
end
$$;
comment on function stash._ingest_bound(bigint, boolean) is
  'The largest episode (or fact) id of a namespace up to which every row is committed; waits up to 2 s for in-flight writers, else 0 (nothing new this time).';

create function stash._record_failure(ns bigint, stage_name text, episode_ids bigint[], error text,
                                      fact_ids bigint[] default '{}')
returns int
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  max_attempts int := stash._setting('consolidation.max_attempts', ns)::int;
begin
  insert into stash.consolidation_failures as f (namespace_id, stage, episode_id, last_error, dead)
  select ns, stage_name, e, left(error, 2000), max_attempts <= 1 from unnest(coalesce(episode_ids, '{}')) e
  on conflict (namespace_id, episode_id, stage) do update
     set attempts = f.attempts + 1, last_error = excluded.last_error, last_failed_at = now(),
         dead = f.attempts + 1 >= max_attempts;
  insert into stash.consolidation_failures as f (namespace_id, stage, fact_id, last_error, dead)
  select ns, stage_name, x, left(error, 2000), max_attempts <= 1 from unnest(coalesce(fact_ids, '{}')) x
  on conflict (namespace_id, fact_id, stage) do update
     set attempts = f.attempts + 1, last_error = excluded.last_error, last_failed_at = now(),
         dead = f.attempts + 1 >= max_attempts;
  return (select count(*) from stash.consolidation_failures f
           where f.namespace_id = ns and f.stage = stage_name and f.dead
             and (f.episode_id = any (coalesce(episode_ids, '{}')) or f.fact_id = any (coalesce(fact_ids, '{}'))));
end
$$;
comment on function stash._record_failure(bigint, text, bigint[], text, bigint[]) is
  'Counts a failed attempt on episodes or facts for a stage; returns how many of them are now dead-lettered.';

create function stash._item_failed(ns bigint, stage_name text, c jsonb, episode_ids bigint[], fact_ids bigint[],
                                   msg text, state text, detail text)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  -- A failed reasoner call still cost something: its usage travels in the error's detail.
  if state = '38000' and detail like '{"usage"%' then
    c := stash._bump(c, stash._usage(detail::jsonb));
  end if;
  return stash._bump(c, jsonb_build_object(
           'items_failed', coalesce(cardinality(episode_ids), 0) + coalesce(cardinality(fact_ids), 0),
           'items_dead_lettered', stash._record_failure(ns, stage_name, episode_ids, msg, fact_ids)))
         || jsonb_build_object('last_item_error', left(msg, 500));
end
$$;
comment on function stash._item_failed(bigint, text, jsonb, bigint[], bigint[], text, text, text) is
  'Records that a stage failed on some items (retried later, dead-lettered after consolidation.max_attempts) and meters the failed call.';

create function stash._item_done(ns bigint, stage_name text, episode_ids bigint[], fact_ids bigint[])
returns void
language sql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
  -- The twin of _item_failed: items a stage has now handled leave the retry list.
  delete from stash.consolidation_failures q
   where q.namespace_id = ns and q.stage = stage_name
     and (q.episode_id = any (coalesce(episode_ids, '{}')) or q.fact_id = any (coalesce(fact_ids, '{}')));
$$;
comment on function stash._item_done(bigint, text, bigint[], bigint[]) is
  'Removes items a stage has handled from its retry list (consolidation_failures).';

create function stash._new_facts(ns bigint, stage_name text, cp bigint, n int)
returns bigint[]
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  bound bigint := stash._ingest_bound(ns, true);
begin
  return array(select x.id from stash.facts x
                where x.namespace_id = ns and x.deleted_at is null and (x.valid_until is null or x.valid_until > now())
                  and ((x.id > cp and x.id <= bound)
                       or exists (select from stash.consolidation_failures q where q.namespace_id = ns
                                   and q.stage = stage_name and q.fact_id = x.id and not q.dead))
                order by x.id limit n);
end
$$;
comment on function stash._new_facts(bigint, text, bigint, int) is
  'Current facts after a stage''s checkpoint (up to the ingest bound), plus those waiting for a retry, oldest first.';

-- Stage 1: episodes -> facts, with inline contradiction handling.
create function stash._stage_facts(ns bigint)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  c jsonb := '{"episodes_read": 0, "clusters": 0, "facts_created": 0, "facts_deduplicated": 0,
               "contradictions_found": 0, "contradictions_auto_resolved": 0, "items_failed": 0,
               "items_dead_lettered": 0}';
  cp bigint := stash._checkpoint(ns, 'facts');
  bound bigint := stash._ingest_bound(ns);
  batch int := stash._setting('consolidation.batch_size', ns)::int;
  join_at double precision := stash._setting('consolidation.cluster_threshold', ns)::double precision;
  dedup_at double precision := stash._setting('consolidation.dedup_threshold', ns)::double precision;
  replace_at real := stash._setting('consolidation.replacement_threshold', ns)::real;
  ids bigint[];
  embs vector[];
  texts text[];
  cluster_of int[];
  seeds int[] := '{}';
  best int;
  best_sim double precision;
  members bigint[];
  member_texts text[];
  n int;
  r jsonb;
  ans jsonb;
  emb vector;
  structured boolean;
  conf real;
  dup stash.facts;
  new_fact stash.facts;
  old stash.facts;
  kind text;
  msg text;
  state text;
  detail text;
begin
  -- New episodes after the checkpoint, and earlier ones waiting for a retry (not dead).
  select coalesce(array_agg(e.id order by e.id), '{}'), coalesce(array_agg(e.embedding order by e.id), '{}'),
         coalesce(array_agg(e.content order by e.id), '{}')
    into ids, embs, texts
    from (select e.id, e.embedding, e.content from stash.episodes e
           where e.namespace_id = ns and e.deleted_at is null
             and ((e.id > cp and e.id <= bound)
                  or exists (select from stash.consolidation_failures q
                              where q.namespace_id = ns and q.stage = 'facts' and q.episode_id = e.id and not q.dead))
           order by e.id limit batch) e;
  n := cardinality(ids);
  c := stash._bump(c, jsonb_build_object('episodes_read', n));
  if n = 0 then
    return c;
  end if;

  -- Cluster: each episode joins the seed it is most similar to (at least join_at), else seeds a
  -- cluster of its own; an episode without an embedding stays alone.
  cluster_of := array_fill(0, array[n]);
  for i in 1 .. n loop
    best := null;
    if embs[i] is not null then
      select s.ord, 1 - (embs[s.pos] <=> embs[i]) into best, best_sim
        from unnest(seeds) with ordinality s(pos, ord)
       where embs[s.pos] is not null
       order by 2 desc, 1 limit 1;
    end if;
    if best is not null and best_sim >= join_at then
      cluster_of[i] := best;
    else
      seeds := seeds || i;
      cluster_of[i] := cardinality(seeds);
    end if;
  end loop;
  c := stash._bump(c, jsonb_build_object('clusters', cardinality(seeds)));

  for k in 1 .. cardinality(seeds) loop
    members := array(select ids[i] from generate_subscripts(ids, 1) i where cluster_of[i] = k order by i);
    member_texts := array(select texts[i] from generate_subscripts(ids, 1) i where cluster_of[i] = k order by i);
    begin
      r := stash._reason('structured', jsonb_build_object('texts', to_jsonb(member_texts)), ns);
      c := stash._bump(c, stash._usage(r));
      ans := r -> 'result';
      if ans ->> 'summary' is not null then
        emb := stash._embed_or_null(ans ->> 'summary');
        structured := ans ->> 'entity' is not null and ans ->> 'property' is not null;
        -- n/(n+2) from the observations, boosted when the fact is structured.
        conf := cardinality(members)::real / (cardinality(members) + 2);
        if structured then
          conf := conf + (1 - conf) * 0.3;
        end if;
        -- The same fact, already known and current? Found by meaning, or by the same
        -- (entity, property, value). A different value for the same (entity, property) is never
        -- a duplicate: it is a change, handled below.
        select f.* into dup from stash.facts f
         where f.namespace_id = ns and f.deleted_at is null and (f.valid_until is null or f.valid_until > now())
           and ((emb is not null and f.embedding is not null and 1 - ((f.embedding <=> emb) + 0) >= dedup_at)
                or (structured and f.entity_key = stash._key(ans ->> 'entity')
                    and f.property_key = stash._key(ans ->> 'property')
                    and lower(btrim(coalesce(f.value, ''))) = lower(btrim(coalesce(ans ->> 'value', '')))))
           and not (structured and f.entity_key = stash._key(ans ->> 'entity')
                    and f.property_key = stash._key(ans ->> 'property')
                    and lower(btrim(coalesce(f.value, ''))) <> lower(btrim(coalesce(ans ->> 'value', ''))))
         order by case when emb is not null and f.embedding is not null then (f.embedding <=> emb) + 0 else 1 end, f.id
         limit 1 for update;
        if found then
          -- Reinforce: more observations, confidence recomputed from them, decay clock reset.
          update stash.facts f
             set observation_count = f.observation_count + cardinality(members),
                 confidence = greatest(f.confidence,
                   ((f.observation_count + cardinality(members))::real / (f.observation_count + cardinality(members) + 2))
                   * case when f.entity_key is not null and f.property_key is not null then 0.7 else 1 end
                   + case when f.entity_key is not null and f.property_key is not null then 0.3 else 0 end),
                 last_reinforced_at = now(), decayed_at = null, updated_at = now()
           where f.id = dup.id;
          insert into stash.fact_sources (namespace_id, fact_id, episode_id)
          select ns, dup.id, m from unnest(members) m on conflict do nothing;
          c := stash._bump(c, '{"facts_deduplicated": 1}');
        else
          insert into stash.facts (namespace_id, content, entity, property, value, confidence, origin, embedding, embedding_model)
          values (ns, ans ->> 'summary', ans ->> 'entity', case when structured then ans ->> 'property' end,
                  case when structured then ans ->> 'value' end, conf, 'consolidated', emb,
                  case when emb is not null then stash._embedding_model() end)
          returning * into new_fact;
          insert into stash.fact_sources (namespace_id, fact_id, episode_id)
          select ns, new_fact.id, m from unnest(members) m;
          c := stash._bump(c, '{"facts_created": 1}');
          -- Contradictions: current facts with the same (entity, property) and another value.
          for old in select f.* from stash.facts f
                      where structured and f.namespace_id = ns and f.id <> new_fact.id and f.deleted_at is null
                        and (f.valid_until is null or f.valid_until > now())
                        and f.entity_key = new_fact.entity_key and f.property_key = new_fact.property_key
                        and lower(btrim(coalesce(f.value, ''))) <> lower(btrim(coalesce(new_fact.value, '')))
                      -- The most recent few: each check is a reasoner call, and unresolved
                      -- contradictions keep both sides current, so all of them would grow without bound.
                      order by f.id desc limit 5 for update loop
            r := stash._reason('contradiction', jsonb_build_object(
                   'entity', new_fact.entity, 'prop', new_fact.property, 'old', coalesce(old.value, ''),
                   'new', coalesce(new_fact.value, ''), 'new_text', array_to_string(member_texts, E'\n')), ns);
            c := stash._bump(c, stash._usage(r));
            kind := r -> 'result' ->> 'classification';
            continue when kind = 'compatible';
            c := stash._bump(c, '{"contradictions_found": 1}');
            if kind = 'replacement' and (r -> 'result' ->> 'confidence')::real >= replace_at then
              perform stash._supersede(old, new_fact.id, 'auto', r -> 'result' ->> 'explanation',
                                       (r -> 'result' ->> 'confidence')::real);
              c := stash._bump(c, '{"contradictions_auto_resolved": 1}');
            else
              insert into stash.contradictions (namespace_id, old_fact_id, new_fact_id, entity, property, old_value,
                                                new_value, classification, confidence, method, explanation)
              values (ns, old.id, new_fact.id, coalesce(new_fact.entity, ''), coalesce(new_fact.property, ''),
                      coalesce(old.value, ''), coalesce(new_fact.value, ''), kind,
                      (r -> 'result' ->> 'confidence')::real, 'structured', coalesce(r -> 'result' ->> 'explanation', ''))
              on conflict on constraint contradictions_pair_key do nothing;
            end if;
          end loop;
        end if;
      end if;
      perform stash._item_done(ns, 'facts', members, null);
    exception when others then
      get stacked diagnostics msg = message_text, state = returned_sqlstate, detail = pg_exception_detail;
      if state = '58000' then
        raise;  -- the provider is down: stop the stage, nothing counted against the items
      end if;
      c := stash._item_failed(ns, 'facts', c, members, null, msg, state, detail);
    end;
  end loop;
  perform stash._advance_checkpoint(ns, 'facts', (select max(x) from unnest(ids) x));
  return c;
end
$$;
comment on function stash._stage_facts(bigint) is
  'Consolidation stage 1 for one namespace: clusters new episodes, synthesises a fact per cluster, reinforces a known fact instead of duplicating it, records or auto-resolves contradictions; failing clusters are retried, then dead-lettered.';

-- Stage 8: decay by elapsed time, in pure SQL.
create function stash._stage_decay(ns bigint, at timestamptz default now())
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  factor double precision := stash._setting('decay.factor', ns)::double precision;
  window_s double precision := extract(epoch from (stash._setting('decay.window', ns) ->> 0)::interval);
  expiry real := stash._setting('decay.expiry_threshold', ns)::real;
  decayed int := 0;
  expired int := 0;
begin
  if factor > 0 and factor < 1 and window_s > 0 then
    -- confidence × factor^(elapsed / window) since decay last applied or the fact was last
    -- reinforced: the exponents add up, so running often or rarely gives the same confidence.
    with d as (
      update stash.facts f
         set confidence = f.confidence * power(factor, extract(epoch from at - greatest(f.decayed_at, f.last_reinforced_at)) / window_s),
             decayed_at = at
       where f.namespace_id = ns and f.deleted_at is null and not f.pinned
         and (f.valid_until is null or f.valid_until > at)
         -- At most hourly per fact: the result is the same, without rewriting every row each run.
         and at >= greatest(f.decayed_at, f.last_reinforced_at) + interval '1 hour'
      returning 1)
    select count(*) into decayed from d;
  end if;
  with e as (
    update stash.facts f set valid_until = greatest(at, f.valid_from), updated_at = now()
     where f.namespace_id = ns and f.deleted_at is null and not f.pinned
       and (f.valid_until is null or f.valid_until > at) and f.confidence < expiry
    returning 1)
  select count(*) into expired from e;
  return jsonb_build_object('facts_decayed', decayed, 'facts_expired', expired);
end
$$;
comment on function stash._stage_decay(bigint, timestamptz) is
  'Consolidation stage 8: confidence decays by decay.factor per decay.window since the fact was last reinforced (independent of how often it runs); pinned facts are exempt; facts below decay.expiry_threshold expire.';

create function stash._consolidate_namespace(ns bigint, triggered_by text)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  path text := (select n.path from stash.namespaces n where n.id = ns);
  run bigint;
  started timestamptz := clock_timestamp();
  totals jsonb := '{}';
  problems jsonb := '[]';
  stage text;
  stage_start timestamptz;
  out jsonb;
  msg text;
  failed int := 0;
begin
  -- One run per namespace at a time; a concurrent one returns at once and does nothing.
  if not pg_try_advisory_xact_lock(1398034504, (ns % 2147483647)::int) then
    return jsonb_build_object('namespace', path, 'skipped', 'busy');
  end if;
  insert into stash.consolidation_runs (namespace_id, triggered_by) values (ns, triggered_by) returning id into run;
  -- The reference's order.
  foreach stage in array array['facts', 'relationships', 'causal', 'goals', 'failures', 'patterns', 'hypotheses',
                               'decay'] loop
    stage_start := clock_timestamp();
    begin
      out := case stage when 'facts' then stash._stage_facts(ns) when 'relationships' then stash._stage_relationships(ns)
                        when 'causal' then stash._stage_causal(ns) when 'goals' then stash._stage_goals(ns)
                        when 'failures' then stash._stage_failures(ns) when 'patterns' then stash._stage_patterns(ns)
                        when 'hypotheses' then stash._stage_hypotheses(ns) when 'decay' then stash._stage_decay(ns) end;
      if out ? 'last_item_error' then
        problems := problems || jsonb_build_object('stage', stage, 'error', out ->> 'last_item_error', 'items', out -> 'items_failed');
        out := out - 'last_item_error';
      end if;
      totals := stash._bump(totals, out);
    exception when others then
      -- The stage's writes are rolled back and its checkpoint stays where it was.
      get stacked diagnostics msg = message_text;
      failed := failed + 1;
      problems := problems || jsonb_build_object('stage', stage, 'error', left(msg, 1000));
    end;
    -- Time per stage, for the run log and the benchmark (ms_facts, ms_relationships, ...).
    totals := stash._bump(totals, jsonb_build_object('ms_' || stage,
                                                     round(extract(epoch from clock_timestamp() - stage_start) * 1000, 1)));
    raise notice 'stash.consolidate %: stage % done', path, stage;
  end loop;
  update stash.consolidation_runs r
     set finished_at = clock_timestamp(), counters = totals,
         status = case when failed = 8 then 'failed' when jsonb_array_length(problems) > 0 then 'partial' else 'succeeded' end,
         errors = problems,
         llm_calls = coalesce((totals ->> 'llm_calls')::numeric, 0), prompt_tokens = coalesce((totals ->> 'prompt_tokens')::numeric, 0),
         completion_tokens = coalesce((totals ->> 'completion_tokens')::numeric, 0), llm_ms = coalesce((totals ->> 'llm_ms')::numeric, 0)
   where r.id = run;
  return jsonb_build_object('namespace', path, 'run_id', run,
                            'duration_ms', round(extract(epoch from clock_timestamp() - started) * 1000),
                            'errors', problems) || totals;
end
$$;
comment on function stash._consolidate_namespace(bigint, text) is
  'Runs every consolidation stage for one namespace under its advisory lock and logs the run; {"skipped": "busy"} if another run holds it.';

create function stash.consolidate(namespace text default '/', triggered_by text default 'manual')
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(array[namespace]);
  results jsonb := '[]';
  totals jsonb := '{}';
  one jsonb;
  nid bigint;
begin
  if triggered_by is null or triggered_by !~ '^[a-z][a-z0-9_]{0,31}$' then
    raise exception 'triggered_by must be a short identifier such as manual, cron or mcp' using errcode = 'invalid_parameter_value';
  end if;
  -- Under row-level security, only the namespaces this role may write: the others' memory (an
  -- ancestor it sees as a bare path, a subtree it may only read) is not its to consolidate.
  if row_security_active('stash.consolidation_runs') then
    ns_ids := array(select unnest(ns_ids) intersect select unnest(stash._granted_namespaces(true)));
    if cardinality(ns_ids) = 0 then
      raise exception 'role % may not write any namespace under %', current_user, namespace
        using errcode = 'insufficient_privilege';
    end if;
  end if;
  for nid in select n.id from stash.namespaces n where n.id = any (ns_ids) order by n.path loop
    one := stash._consolidate_namespace(nid, triggered_by);
    results := results || one;
    totals := stash._bump(totals, (select coalesce(jsonb_object_agg(key, value), '{}') from jsonb_each(one)
                                    where jsonb_typeof(value) = 'number' and key <> 'run_id'));
  end loop;
  return totals || jsonb_build_object('namespaces', results);
end
$$;
comment on function stash.consolidate(text, text) is
  'Consolidates a namespace and each of its descendants separately (each under its own lock, with its own run row): episodes become facts (reinforcing known ones), contradictions are recorded or auto-resolved, confidence decays. Returns the totals under the reference''s counter names (facts_created, facts_deduplicated, contradictions_found, contradictions_auto_resolved, facts_decayed, facts_expired, llm_calls, ...) and "namespaces": the per-namespace results ({"skipped": "busy"} where a run was already going). Under row-level security, only the namespaces the role may write are consolidated. Errors: P0002 unknown namespace, 22023 bad triggered_by, 42501 no namespace there the role may write.';

grant execute on function stash.consolidate(text, text), stash._consolidate_namespace(bigint, text), stash._stage_facts(bigint),
  stash._stage_decay(bigint, timestamptz), stash._reason(text, jsonb, bigint), stash._bump(jsonb, jsonb), stash._usage(jsonb),
  stash._checkpoint(bigint, text), stash._advance_checkpoint(bigint, text, bigint), stash._ingest_bound(bigint, boolean),
  stash._ingest_lock(bigint),
  stash._record_failure(bigint, text, bigint[], text, bigint[]),
  stash._item_failed(bigint, text, jsonb, bigint[], bigint[], text, text, text), stash._new_facts(bigint, text, bigint, int),
  stash._item_done(bigint, text, bigint[], bigint[]) to stash_writer;

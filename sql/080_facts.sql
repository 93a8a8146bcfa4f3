-- Facts: query (current by default, or as of a time), lineage, and what agents assert directly.
-- A fact is current while it is not deleted and valid_until is null or in the future. A changed
-- value never overwrites: the old fact ends (valid_until) and points at its successor.

create view stash.fact_details with (security_invoker = true) as
  select f.id, n.path::text collate "default" as namespace, f.namespace_id, f.content, f.entity, f.property, f.value,
         f.confidence, f.observation_count, f.origin, f.pinned, f.valid_from, f.valid_until, f.superseded_by,
         f.last_reinforced_at, f.created_by, f.created_at, f.updated_at, f.deleted_at,
         f.deleted_at is null and (f.valid_until is null or f.valid_until > now()) as is_current
    from stash.facts f join stash.namespaces n on n.id = f.namespace_id;
comment on view stash.fact_details is
  'Facts with their namespace path and whether they are current, without vectors: the shape the fact functions return.';
grant select on stash.fact_details to stash_writer, stash_reader;

create function stash._key(text)
returns text
language sql
immutable
strict
parallel safe
security invoker
set search_path = pg_catalog, pg_temp
as $$
  -- The same normalisation as the tables' generated key columns (facts.entity_key, property_key,
  -- relationships.from_key, to_key): those are DDL and cannot call code, so this mirrors them and a
  -- pgTAP test holds the two together.
  select lower(regexp_replace(btrim($1), '\s+', ' ', 'g'));
$$;
comment on function stash._key(text) is
  'An entity or property as compared: trimmed, inner whitespace collapsed, lower case (as facts.entity_key).';

create function stash._embed_or_null(content text)
returns vector
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
begin
  return (stash.embed(array[content]))[1];
exception when external_routine_exception then
  -- The write goes ahead; stash.backfill_embeddings() fills the vector in later.
  raise warning 'stored without an embedding: %', sqlerrm;
  return null;
end
$$;
comment on function stash._embed_or_null(text) is
  'The embedding of content, or null (with a warning) when the embedder is down: writes never fail for it.';

create function stash._check_confidence(confidence real, what text default 'confidence')
returns real
language plpgsql
immutable
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  if confidence is null or confidence = 'NaN' or confidence < 0 or confidence > 1 then
    raise exception '% must be between 0 and 1', what using errcode = 'invalid_parameter_value';
  end if;
  return confidence;
end
$$;
comment on function stash._check_confidence(real, text) is 'Validates a confidence in [0, 1]. Errors: 22023.';

create function stash._check_text(value text, what text, max_bytes int default 65536, required boolean default true)
returns text
language plpgsql
immutable
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  if value is null or value !~ '[^[:space:]]' then
    if required then
      raise exception '% must not be empty', what using errcode = 'invalid_parameter_value';
    end if;
    return null;
  end if;
  if octet_length(value) > max_bytes then
    raise exception '% is longer than % bytes', what, max_bytes using errcode = 'string_data_right_truncation';
  end if;
  return value;
end
$$;
comment on function stash._check_text(text, text, int, boolean) is
  'Validates a text argument: non-blank when required (null when optional and blank), bounded. Errors: 22023, 22001.';

create function stash._fact_for_update(fact_id bigint)
returns stash.facts
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  f stash.facts;
begin
  select * into f from stash.facts where id = fact_id and deleted_at is null for update;
  if not found then
    raise exception 'fact % does not exist', fact_id using errcode = 'no_data_found';
  end if;
  return f;
end
$$;
comment on function stash._fact_for_update(bigint) is 'Locks and returns a live fact. Errors: P0002.';

create function stash.query_facts(namespaces text[] default '{/}', entity text default null,
                                  property text default null, min_confidence real default null,
                                  since timestamptz default null, until timestamptz default null,
                                  as_of timestamptz default null, include_history boolean default false,
                                  k int default 100, skip int default 0)
returns setof stash.fact_details
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(namespaces);
  at_time timestamptz := coalesce(as_of, now());
begin
  perform stash._check_page(k, skip);
  if min_confidence is not null then
    perform stash._check_confidence(min_confidence, 'min_confidence');
  end if;
  return query
    select d.* from stash.fact_details d join stash.facts f on f.id = d.id
     where f.namespace_id = any (ns_ids) and f.deleted_at is null
       and (include_history or (f.valid_from <= at_time and (f.valid_until is null or f.valid_until > at_time)
                                and f.created_at <= at_time))
       and (query_facts.entity is null or f.entity_key = stash._key(query_facts.entity))
       and (query_facts.property is null or f.property_key = stash._key(query_facts.property))
       and (min_confidence is null or f.confidence >= min_confidence)
       and (since is null or f.valid_from >= since) and (until is null or f.valid_from < until)
     order by f.valid_from desc, f.id desc
     limit k offset skip;
end
$$;
comment on function stash.query_facts(text[], text, text, real, timestamptz, timestamptz, timestamptz, boolean, int, int) is
  'Facts in the given namespaces (and descendants): current ones by default (not superseded, expired or deleted), or those believed as_of a past time, or every version with include_history. Filters: entity and property (case- and space-insensitive), min_confidence, since/until on valid_from. Newest first; k rows after skip. Errors: P0002 unknown namespace, 22023 bad page or confidence.';

create function stash.get_fact(id bigint)
returns jsonb
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  result jsonb;
begin
  select jsonb_build_object(
    'fact', to_jsonb(d),
    'sources', coalesce((select jsonb_agg(jsonb_build_object('episode_id', e.id, 'content', e.content,
                                                             'occurred_at', e.occurred_at, 'forgotten', e.deleted_at is not null)
                                          order by e.occurred_at, e.id)
                           from stash.fact_sources s join stash.episodes e on e.id = s.episode_id
                          where s.fact_id = d.id), '[]'),
    'supersedes', coalesce((select jsonb_agg(to_jsonb(o) order by o.valid_from) from stash.fact_details o
                             where o.superseded_by = d.id), '[]'),
    'superseded_by', (select to_jsonb(o) from stash.fact_details o where o.id = d.superseded_by),
    'contradictions', coalesce((select jsonb_agg(to_jsonb(c) order by c.id) from stash.contradictions c
                                 where d.id in (c.old_fact_id, c.new_fact_id)), '[]'))
    into result
    from stash.fact_details d
   where d.id = get_fact.id and d.deleted_at is null;
  if result is null then
    raise exception 'fact % does not exist', id using errcode = 'no_data_found';
  end if;
  return result;
end
$$;
comment on function stash.get_fact(bigint) is
  'A fact with its lineage: source episodes, the facts it superseded, the fact that superseded it, and the contradictions it is part of. Errors: P0002 no such live fact.';

create function stash._supersede(old stash.facts, new_id bigint, method text, explanation text,
                                 confidence real default 1)
returns void
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  -- The old fact ends where the new one starts; the replacement is recorded as a resolved
  -- contradiction so the history shows why.
  update stash.facts set valid_until = greatest(now(), valid_from), superseded_by = new_id, updated_at = now()
   where id = old.id;
  insert into stash.contradictions (namespace_id, old_fact_id, new_fact_id, entity, property, old_value, new_value,
                                    classification, confidence, method, resolved, resolution, resolved_at, resolved_by,
                                    explanation)
  select old.namespace_id, old.id, new_id, coalesce(old.entity, ''), coalesce(old.property, ''), coalesce(old.value, ''),
         coalesce(n.value, ''), 'replacement', _supersede.confidence, _supersede.method, true, 'superseded', now(),
         current_user, coalesce(_supersede.explanation, '')
    from stash.facts n where n.id = new_id
  on conflict on constraint contradictions_pair_key do nothing;
end
$$;
comment on function stash._supersede(stash.facts, bigint, text, text, real) is
  'Ends old (valid_until, superseded_by) in favour of new_id and records the replacement.';

create function stash.assert_fact(namespace text, content text, entity text default null, property text default null,
                                  value text default null, confidence real default 0.9, pinned boolean default false)
returns setof stash.fact_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  ns bigint := stash._namespace_id(namespace);
  c text := stash._check_text(content, 'content');
  e text := stash._check_text(entity, 'entity', 500, false);
  p text := stash._check_text(property, 'property', 500, false);
  v text := stash._check_text(value, 'value', 4000, false);
  conf real := stash._check_confidence(confidence);
  same stash.facts;
  old stash.facts;
  olds bigint[] := '{}';
  emb vector;
  new_id bigint;
begin
  if (p is not null and e is null) or (v is not null and p is null) then
    raise exception 'a property needs an entity, and a value needs a property' using errcode = 'invalid_parameter_value';
  end if;
  if e is not null and p is not null then
    -- One writer per (namespace, entity, property) at a time, so two asserts cannot both win.
    perform pg_advisory_xact_lock(hashtextextended(ns || '/' || stash._key(e)
                                                   || '/' || stash._key(p), 0));
    select * into same from stash.facts f
     where f.namespace_id = ns and f.deleted_at is null and (f.valid_until is null or f.valid_until > now())
       and f.entity_key = stash._key(e)
       and f.property_key = stash._key(p)
       and lower(btrim(coalesce(f.value, ''))) = lower(btrim(coalesce(v, '')))
     order by f.id desc limit 1 for update;
    if found then
      -- Said again: reinforce instead of duplicating.
      update stash.facts f
         set observation_count = f.observation_count + 1, confidence = greatest(f.confidence, conf),
             last_reinforced_at = now(), updated_at = now(), pinned = f.pinned or assert_fact.pinned
       where f.id = same.id;
      return query select * from stash.fact_details where id = same.id;
      return;
    end if;
  end if;
  -- Lock what the new fact supersedes, embed, then take the ingest lock (130_consolidation): from
  -- here to commit nothing waits on another session.
  if e is not null and p is not null then
    olds := array(select f.id from stash.facts f
                   where f.namespace_id = ns and f.deleted_at is null and (f.valid_until is null or f.valid_until > now())
                     and f.entity_key = stash._key(e)
                     and f.property_key = stash._key(p)
                   order by f.id for update);
  end if;
  emb := stash._embed_or_null(c);
  perform stash._ingest_lock(ns);
  insert into stash.facts (namespace_id, content, entity, property, value, confidence, origin, pinned, embedding, embedding_model)
  values (ns, c, e, p, v, conf, 'asserted', assert_fact.pinned, emb, case when emb is not null then stash._embedding_model() end)
  returning id into new_id;
  -- A changed value supersedes every current fact of that entity and property, atomically.
  for old in select * from stash.facts f where f.id = any (olds) order by f.id loop
    perform stash._supersede(old, new_id, 'asserted', 'asserted by ' || current_user);
  end loop;
  return query select * from stash.fact_details where id = new_id;
end
$$;
comment on function stash.assert_fact(text, text, text, text, text, real, boolean) is
  'An agent states a fact in exactly this namespace, without waiting for consolidation. With entity and property: the same value again reinforces the current fact (observation count, decay clock); a different value supersedes the current fact(s) atomically (history kept, replacement recorded). Returns the current fact. Errors: P0002 unknown namespace, 22023 empty content / bad confidence / value without property, 22001 too long.';

create function stash.correct_fact(id bigint, content text default null, value text default null,
                                   confidence real default null)
returns setof stash.fact_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  old stash.facts := stash._fact_for_update(correct_fact.id);
  c text := coalesce(stash._check_text(content, 'content', 65536, false), old.content);
  v text := coalesce(stash._check_text(value, 'value', 4000, false), old.value);
  conf real := stash._check_confidence(coalesce(confidence, old.confidence));
  emb vector;
  new_id bigint;
begin
  if content is null and value is null and confidence is null then
    raise exception 'nothing to correct: give content, value or confidence' using errcode = 'invalid_parameter_value';
  end if;
  if old.valid_until is not null and old.valid_until <= now() then
    raise exception 'fact % is no longer current; correct its successor %', old.id, old.superseded_by
      using errcode = 'object_not_in_prerequisite_state';
  end if;
  if v is not null and old.property is null then
    raise exception 'fact % has no property, so it has no value to correct', old.id using errcode = 'invalid_parameter_value';
  end if;
  emb := case when c = old.content then old.embedding else stash._embed_or_null(c) end;
  perform stash._ingest_lock(old.namespace_id);  -- last lock, see assert_fact
  insert into stash.facts (namespace_id, content, entity, property, value, confidence, origin, pinned, embedding, embedding_model)
  values (old.namespace_id, c, old.entity, old.property, v, conf, 'corrected', old.pinned, emb,
          case when emb is not null then stash._embedding_model() end)
  returning facts.id into new_id;
  -- The corrected version keeps the original's sources.
  insert into stash.fact_sources (namespace_id, fact_id, episode_id)
  select s.namespace_id, new_id, s.episode_id from stash.fact_sources s where s.fact_id = old.id;
  perform stash._supersede(old, new_id, 'asserted', 'corrected by ' || current_user);
  return query select * from stash.fact_details d where d.id = new_id;
end
$$;
comment on function stash.correct_fact(bigint, text, text, real) is
  'Corrects a current fact: a new version (origin corrected) with the given content, value or confidence replaces it; the old one ends and points at the new one, its sources carry over. Returns the new version. Errors: P0002 no such fact, 55000 not current, 22023 nothing to correct or bad confidence.';

create function stash.pin_fact(id bigint, pinned boolean default true)
returns setof stash.fact_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  perform stash._fact_for_update(pin_fact.id);
  if pinned is null then
    raise exception 'pinned must be true or false' using errcode = 'null_value_not_allowed';
  end if;
  update stash.facts f set pinned = pin_fact.pinned, updated_at = now() where f.id = pin_fact.id;
  return query select * from stash.fact_details d where d.id = pin_fact.id;
end
$$;
comment on function stash.pin_fact(bigint, boolean) is
  'Pins a fact (exempt from decay) or unpins it. Errors: P0002 no such fact.';

grant execute on function stash.query_facts(text[], text, text, real, timestamptz, timestamptz, timestamptz, boolean, int, int),
  stash.get_fact(bigint) to stash_writer, stash_reader;
grant execute on function stash.assert_fact(text, text, text, text, text, real, boolean),
  stash.correct_fact(bigint, text, text, real), stash.pin_fact(bigint, boolean),
  stash._embed_or_null(text), stash._fact_for_update(bigint), stash._supersede(stash.facts, bigint, text, text, real) to stash_writer;
grant execute on function stash._check_confidence(real, text), stash._check_text(text, text, int, boolean), stash._key(text)
  to stash_writer, stash_reader;

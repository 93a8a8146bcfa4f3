-- Episodes are append-only: once written, only the embedding (backfill, re-embed) and the soft
-- delete may change. Purge is a hard DELETE and is not affected.

create function stash._episodes_guard_immutable()
returns trigger
language plpgsql
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  if (new.id, new.namespace_id, new.content, new.occurred_at, new.metadata, new.source, new.agent,
      new.created_by, new.idempotency_key, new.created_at)
     is distinct from
     (old.id, old.namespace_id, old.content, old.occurred_at, old.metadata, old.source, old.agent,
      old.created_by, old.idempotency_key, old.created_at) then
    raise exception 'episode % is immutable', old.id
      using errcode = 'object_not_in_prerequisite_state',
            hint = 'Only the embedding and deleted_at of an episode can change; remember a new episode instead.';
  end if;
  return new;
end
$$;
comment on function stash._episodes_guard_immutable() is
  'Trigger: rejects changes to an episode other than its embedding and soft delete (SQLSTATE 55000).';

create trigger episodes_immutable
  before update on stash.episodes
  for each row execute function stash._episodes_guard_immutable();

create function stash.remember_many(namespace text, contents text[], occurred_at timestamptz[] default null,
                                    metadata jsonb[] default null, source text default 'sql',
                                    agent text default null, idempotency_keys text[] default null)
returns bigint[]
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  ns bigint := stash._namespace_id(namespace);
  n int := coalesce(cardinality(contents), 0);
  max_bytes int := stash._setting('episode.max_bytes', ns)::int;
  bad int;
  ids bigint[] := array_fill(null::bigint, array[n]);
  todo int[];           -- positions that need a new row
  vectors vector[];
  new_ids bigint[];
  model text := stash._embedding_model();
begin
  -- Validate everything before writing anything: one bad element fails the whole call.
  if n = 0 then
    raise exception 'contents must hold at least one episode' using errcode = 'invalid_parameter_value';
  end if;
  if n > 1000 then
    raise exception 'at most 1000 episodes per call (got %)', n using errcode = 'program_limit_exceeded',
      hint = 'Split the batch.';
  end if;
  if (occurred_at is not null and cardinality(occurred_at) <> n)
     or (metadata is not null and cardinality(metadata) <> n)
     or (idempotency_keys is not null and cardinality(idempotency_keys) <> n) then
    raise exception 'occurred_at, metadata and idempotency_keys must have one element per content (%)', n
      using errcode = 'invalid_parameter_value';
  end if;
  select min(i) into bad from generate_subscripts(contents, 1) i
   where contents[i] is null or contents[i] !~ '[^[:space:]]';
  if bad is not null then
    raise exception 'episode content must not be empty (element %)', bad using errcode = 'invalid_parameter_value',
      hint = 'Remember something worth keeping: a decision, a preference, a fact, an outcome.';
  end if;
  select min(i) into bad from generate_subscripts(contents, 1) i where octet_length(contents[i]) > max_bytes;
  if bad is not null then
    raise exception 'episode content is % bytes (element %); the limit is % bytes',
      octet_length(contents[bad]), bad, max_bytes using errcode = 'string_data_right_truncation',
      hint = 'Split it into smaller episodes, or raise the episode.max_bytes setting.';
  end if;
  select min(i) into bad from generate_subscripts(metadata, 1) i
   where metadata[i] is not null and jsonb_typeof(metadata[i]) <> 'object';
  if bad is not null then
    raise exception 'metadata must be a JSON object (element %)', bad using errcode = 'invalid_parameter_value';
  end if;
  if source is null or source !~ '^[a-z][a-z0-9_-]{0,31}$' then
    raise exception 'source must be a short lowercase identifier such as mcp, sql or cli' using errcode = 'invalid_parameter_value';
  end if;
  if agent is not null and length(agent) not between 1 and 200 then
    raise exception 'agent must be 1 to 200 characters' using errcode = 'invalid_parameter_value';
  end if;
  select min(i) into bad from generate_subscripts(idempotency_keys, 1) i
   where length(idempotency_keys[i]) not between 1 and 200
      or idempotency_keys[i] = any (idempotency_keys[:i - 1]);
  if bad is not null then
    raise exception 'idempotency keys must be 1 to 200 characters and distinct within a call (element %)', bad
      using errcode = 'invalid_parameter_value';
  end if;

  -- A retried write: keys already stored return the first write's id (same content required).
  if idempotency_keys is not null then
    select min(k.i) into bad
      from unnest(idempotency_keys) with ordinality k(key, i)
      join stash.episodes e on e.namespace_id = ns and e.idempotency_key = k.key
     where e.content <> contents[k.i];
    if bad is not null then
      raise exception 'idempotency key % was already used for different content', idempotency_keys[bad]
        using errcode = 'unique_violation', hint = 'Use a new key for a new episode.';
    end if;
    select array_agg(coalesce(e.id, ids[k.i]) order by k.i) into ids
      from unnest(idempotency_keys) with ordinality k(key, i)
      left join stash.episodes e on e.namespace_id = ns and e.idempotency_key = k.key;
  end if;
  todo := array(select i from generate_subscripts(contents, 1) i where ids[i] is null order by i);
  if cardinality(todo) = 0 then
    return ids;
  end if;

  -- Embed in one batch. If the embedder is down the episodes are stored anyway, pending.
  begin
    vectors := stash.embed(array(select contents[i] from unnest(todo) i));
  exception when external_routine_exception then
    raise warning 'stored % episode(s) without embeddings: %', cardinality(todo), sqlerrm
      using hint = 'They are found by full-text recall now; stash.backfill_embeddings() embeds them later.';
    vectors := null;
  end;

  -- Until commit: a consolidation waits for this insert before reading new episodes (130).
  perform stash._ingest_lock(ns);
  -- One statement: all rows or none. Identity values follow the ORDER BY, so the new unkeyed ids,
  -- sorted, come back in input order; keyed rows are matched by key. A concurrent retry with the
  -- same key loses the race here (ON CONFLICT) and reads the winner's id below.
  with inserted as (
    insert into stash.episodes (namespace_id, content, embedding, embedding_model, occurred_at, metadata,
                                source, agent, idempotency_key)
    select ns, contents[t.i], vectors[t.o], case when vectors[t.o] is not null then model end,
           coalesce(occurred_at[t.i], now()), coalesce(metadata[t.i], '{}'), source, agent, idempotency_keys[t.i]
      from unnest(todo) with ordinality t(i, o)
     order by t.o
    on conflict (namespace_id, idempotency_key) where idempotency_key is not null do nothing
    returning id, idempotency_key
  )
  select array_agg(x.id order by x.id) filter (where x.idempotency_key is null) into new_ids from inserted x;
  todo := array(select i from unnest(todo) i where idempotency_keys[i] is null order by i);
  for j in 1 .. coalesce(cardinality(todo), 0) loop
    ids[todo[j]] := new_ids[j];
  end loop;
  if idempotency_keys is not null then
    select array_agg(coalesce(ids[k.i], e.id) order by k.i) into ids
      from unnest(idempotency_keys) with ordinality k(key, i)
      left join stash.episodes e on e.namespace_id = ns and e.idempotency_key = k.key;
  end if;
  return ids;
end
$$;
comment on function stash.remember_many(text, text[], timestamptz[], jsonb[], text, text, text[]) is
  'Stores up to 1000 episodes in one namespace atomically, embedding them in one batch; returns their ids in input order. occurred_at, metadata and idempotency_keys are optional parallel arrays (null elements: now, {}, none). A key already stored in the namespace returns that episode''s id instead of a duplicate. If the embedder is down the episodes are stored without embeddings (warning) and backfilled later. Errors: P0002 unknown namespace, 22023 empty content / mismatched arrays / bad metadata, source or key, 22001 content over episode.max_bytes, 54000 over 1000 episodes, 23505 key reused for other content.';

create function stash.remember(namespace text, content text, occurred_at timestamptz default now(),
                               metadata jsonb default '{}', source text default 'sql',
                               agent text default null, idempotency_key text default null)
returns bigint
language sql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select (stash.remember_many(namespace, array[content], array[occurred_at], array[metadata], source, agent,
                              case when idempotency_key is not null then array[idempotency_key] end))[1];
$$;
comment on function stash.remember(text, text, timestamptz, jsonb, text, text, text) is
  'Stores one episode (a raw observation) in exactly this namespace and returns its id; see remember_many for the rules. With an idempotency_key, a retried call returns the first call''s id. Errors: P0002 unknown namespace, 22023 empty content or bad metadata, 22001 content over episode.max_bytes, 23505 key reused for other content.';

grant execute on function stash.remember_many(text, text[], timestamptz[], jsonb[], text, text, text[]),
  stash.remember(text, text, timestamptz, jsonb, text, text, text) to stash_writer;

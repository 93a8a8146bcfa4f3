-- Embeddings: the plpython3u bridge to python/stash/embedders.py, the SHA-256 cache around it,
-- and the backfill of rows stored while the embedder was down.

create function stash._embedding_model()
returns text
language sql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select (stash._setting('embedding.provider') ->> 0) || ':' || (stash._setting('embedding.model') ->> 0);
$$;
comment on function stash._embedding_model() is
  'The active embedding model as recorded with vectors and cache rows: provider:model.';

create function stash._embed_uncached(texts text[], settings jsonb)
returns vector[]
language plpython3u
volatile
security invoker
as $$
import json
from stash import embedders
guc = plpy.execute("select current_setting('stash.openai_api_key', true) as k")[0]["k"]
key = embedders.resolve_secret(None, guc, ("STASH_OPENAI_API_KEY", "OPENAI_API_KEY"))
try:
    return embedders.embed_for_sql(GD, texts, json.loads(settings), key)
except Exception as e:  # provider down, bad response, broken install: one clear SQL error
    plpy.error(f"embedder failed: {e}", sqlstate="38000",
               hint="Episodes are still stored (embedding pending); stash.backfill_embeddings() fills them later.")
$$;
comment on function stash._embed_uncached(text[], jsonb) is
  'Calls the configured embedder (python stash.embedders) for texts, in order. Errors: 38000 when the embedder fails.';

create function stash.embed(texts text[])
returns vector[]
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  active_model text := stash._embedding_model();
  hashes bytea[];
  result vector[];
  missing text[];
  fresh vector[];
begin
  if texts is null or array_position(texts, null) is not null then
    raise exception 'texts to embed must not be null' using errcode = 'null_value_not_allowed';
  end if;
  hashes := array(select sha256(convert_to(t, 'UTF8')) from unnest(texts) with ordinality u(t, i) order by i);
  result := array(
    select c.embedding
      from unnest(hashes) with ordinality h(hash, i)
      left join stash.embedding_cache c
             on c.text_hash = h.hash and c.model = active_model and c.role_name = current_user
     order by h.i);
  missing := array(select distinct texts[i] from generate_subscripts(texts, 1) i where result[i] is null);
  if cardinality(missing) = 0 then
    return result;
  end if;
  fresh := stash._embed_uncached(missing, stash._settings_like('embedding.'));
  -- Fill the gaps; write the cache unless this is a standby, a read-only transaction, or a role
  -- that may not write it (a miss there must not fail the read).
  result := array(
    select coalesce(result[i], fresh[array_position(missing, texts[i])])
      from generate_subscripts(texts, 1) i order by i);
  if not pg_is_in_recovery() and current_setting('transaction_read_only') = 'off'
     and has_table_privilege('stash.embedding_cache', 'insert') then
    insert into stash.embedding_cache (text_hash, model, embedding)
    select sha256(convert_to(m, 'UTF8')), active_model, fresh[i]
      from unnest(missing) with ordinality u(m, i)
    on conflict do nothing;
  end if;
  return result;
end
$$;
comment on function stash.embed(text[]) is
  'Embeds texts with the configured embedder, in order, through the SHA-256 cache (no plaintext stored; read-only safe). Errors: 38000 embedder failure, 22004 null text.';

create function stash.backfill_embeddings(max_rows int default 1000)
returns int
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  model text := stash._embedding_model();
  batch constant int := 64;
  filled int := 0;
  ids bigint[];
  contents text[];
  vectors vector[];
  tbl text;
begin
  if max_rows is null or max_rows < 1 then
    raise exception 'max_rows must be 1 or more' using errcode = 'invalid_parameter_value';
  end if;
  foreach tbl in array array['episodes', 'facts', 'patterns'] loop
    loop
      exit when filled >= max_rows;
      -- Oldest first; rows another session is filling are skipped, not waited for.
      execute format('select array_agg(id order by id), array_agg(content order by id) from (
                        select id, content from stash.%I where embedding is null and deleted_at is null
                         order by id limit $1 for update skip locked) s', tbl)
        into ids, contents using least(batch, max_rows - filled);
      exit when ids is null;
      begin
        vectors := stash.embed(contents);
      exception when external_routine_exception then
        if filled > 0 then
          raise warning 'backfill stopped after % rows: %', filled, sqlerrm;
          return filled;
        end if;
        raise;
      end;
      execute format('update stash.%I t set embedding = v.e, embedding_model = $3
                        from unnest($1, $2) v(id, e) where t.id = v.id', tbl)
        using ids, vectors, model;
      filled := filled + cardinality(ids);
    end loop;
  end loop;
  return filled;
end
$$;
comment on function stash.backfill_embeddings(int) is
  'Embeds up to max_rows episodes, facts and patterns stored without an embedding (the embedder was down, or stash.reembed cleared them), oldest first. Returns how many it filled. Errors: 38000 if the embedder fails before anything was filled (after that it stops with a warning), 22023 bad max_rows.';

grant execute on function stash.embed(text[]), stash._embed_uncached(text[], jsonb), stash._embedding_model()
  to stash_writer, stash_reader;
grant execute on function stash.backfill_embeddings(int) to stash_writer;

-- Changing the embedding model or dimension without resetting the database.

create function stash.reembed(provider text default null, model text default null, dimension int default null,
                              base_url text default null)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  old_dim int := stash._setting('embedding.dimension')::int;
  new_dim int := coalesce(dimension, old_dim);
  new_provider text := coalesce(provider, stash._setting('embedding.provider') ->> 0);
  pending bigint;
  probe vector;
begin
  if new_provider not in ('local', 'openai') then
    raise exception 'provider must be local or openai' using errcode = 'invalid_parameter_value';
  end if;
  if new_dim < 1 or new_dim > 2000 then
    -- pgvector's HNSW index handles at most 2000 dimensions.
    raise exception 'dimension must be between 1 and 2000' using errcode = 'invalid_parameter_value';
  end if;
  if new_provider = 'local' and new_dim <> 384 then
    raise exception 'the local model has 384 dimensions' using errcode = 'invalid_parameter_value';
  end if;
  update stash.settings s set value = v.value, updated_at = now()
    from (values ('embedding.provider', to_jsonb(new_provider)),
                 ('embedding.model', to_jsonb(model)),
                 ('embedding.base_url', to_jsonb(base_url)),
                 ('embedding.dimension', to_jsonb(new_dim))) v(key, value)
   where s.key = v.key and v.value is not null;
  if model is null and provider = 'local' then
    update stash.settings s set value = '"all-MiniLM-L6-v2"' where s.key = 'embedding.model';
  end if;

  if new_dim <> old_dim then
    -- New column types; the HNSW indexes are rebuilt with the same names as a fresh deploy's.
    drop index stash.episodes_embedding_hnsw_idx;
    drop index stash.facts_embedding_hnsw_idx;
    execute format('alter table stash.episodes alter column embedding type vector(%s) using null', new_dim);
    execute format('alter table stash.facts alter column embedding type vector(%s) using null', new_dim);
    execute format('alter table stash.patterns alter column embedding type vector(%s) using null', new_dim);
    delete from stash.embedding_cache;
    execute format('alter table stash.embedding_cache alter column embedding type vector(%s)', new_dim);
    create index episodes_embedding_hnsw_idx on stash.episodes using hnsw (embedding vector_cosine_ops);
    create index facts_embedding_hnsw_idx on stash.facts using hnsw (embedding vector_cosine_ops);
  end if;
  -- Everything becomes pending: recall keeps working on full text while backfill re-embeds.
  update stash.episodes set embedding = null, embedding_model = null where embedding is not null;
  update stash.facts set embedding = null, embedding_model = null where embedding is not null;
  update stash.patterns set embedding = null, embedding_model = null where embedding is not null;
  delete from stash.embedding_cache c where c.model <> stash._embedding_model();
  -- Prove the new embedder answers before committing to it.
  probe := (stash.embed(array['stash reembed probe']))[1];
  select (select count(*) from stash.episodes where embedding is null and deleted_at is null)
       + (select count(*) from stash.facts where embedding is null and deleted_at is null)
       + (select count(*) from stash.patterns where embedding is null and deleted_at is null) into pending;
  return jsonb_build_object('model', stash._embedding_model(), 'dimension', new_dim, 'pending', pending,
                            'next', 'select stash.backfill_embeddings(10000); -- repeat until it returns 0');
end
$$;
comment on function stash.reembed(text, text, int, text) is
  'Switches the embedding provider/model/dimension/base_url (null keeps the current one): vector columns change type if the dimension changes, HNSW indexes are rebuilt, every vector is cleared and becomes pending, and the new embedder is probed (an error rolls everything back). Then run stash.backfill_embeddings until it returns 0; recall uses full text meanwhile. Owner only (alters tables). Errors: 22023 bad provider or dimension, 38000 the new embedder does not answer.';

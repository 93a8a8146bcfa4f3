-- Settings: defaults (inserted when absent, never overwritten) and the accessor every function uses.
-- A namespace may override any key in namespaces.settings; the nearest ancestor's override wins.

insert into stash.settings (key, value, description) values
  ('embedding.provider',           '"local"',             'Embedder: local (in-process MiniLM, offline) or openai (any OpenAI-compatible /embeddings)'),
  ('embedding.model',              '"all-MiniLM-L6-v2"',  'Embedding model name (sent to the openai provider; recorded with every vector)'),
  ('embedding.base_url',           'null',                'Base URL of an OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (openai provider)'),
  ('embedding.request_dimensions', 'false',               'Send embedding.dimension as the `dimensions` request parameter (OpenAI text-embedding-3 models)'),
  ('embedding.timeout',            '30',                  'Seconds before an embedding request times out (openai provider)'),
  ('embedding.max_retries',        '2',                   'Retries of a failed embedding request (openai provider)'),
  ('embedding.batch_size',         '64',                  'Texts per embedding request (openai provider)'),
  ('embedding.cache_max_age',      '"30 days"',           'Cached embeddings older than this are dropped by the daily maintenance (recomputed when needed again)'),
  ('embedding.threads',            '0',                   'onnxruntime threads per backend for the local model (0 = one per core)'),
  ('episode.max_bytes',            '32768',               'Largest episode content accepted by remember, in bytes'),
  ('recall.max_k',                 '100',                 'Largest k (results per call) recall accepts'),
  ('recall.candidates',            '100',                 'Candidates each retriever (vector, full text) contributes before fusion'),
  ('recall.rrf_k',                 '10',                  'Reciprocal rank fusion constant: score = sum of 1 / (rrf_k + rank)'),
  ('recall.neighbour_weight',      '0.25',                'Share of a hit''s score given to the episodes just before and after it in its namespace'),
  ('recall.neighbour_hits',        '30',                  'How many of the best hits lend to their neighbours (at least 2 x (k + skip))'),
  ('recall.time_boost',            '0.5',                 'Relative boost for episodes inside a month or year the query names'),
  ('recall.min_similarity',        '0.2',                 'Vector candidates less similar (cosine) than this do not count: an unrelated nearest neighbour is noise (model-specific; 0.2 suits MiniLM)'),
  ('recall.fact_min_confidence',   '0.1',                 'Facts below this confidence are not recalled'),
  ('recall.large_scope_max_lexeme_frequency', '0.05',    'In large scopes, full text searches only query words rarer than this share of rows (pg_stats), or the rarest one'),
  ('recall.exact_scan_rows',       '20000',               'Scopes with at most this many rows get an exact vector scan; larger ones use HNSW with iterative scans'),
  ('forget.min_similarity',        '0.7',                 'forget(about => …) only forgets episodes at least this similar (cosine) to the text'),
  ('causal.max_depth',             '20',                  'Deepest trace_causal_chain accepts'),
  ('causal.max_rows',              '1000',                'Most rows trace_causal_chain returns (bounds dense graphs)'),
  ('reasoner.provider',            '"rules"',             'Reasoner: rules (offline, deterministic, plain declarative sentences) or openai (any OpenAI-compatible chat endpoint)'),
  ('reasoner.model',               '"gpt-4o-mini"',       'Chat model for the openai reasoner'),
  ('reasoner.base_url',            'null',                'Base URL of an OpenAI-compatible chat endpoint, e.g. http://localhost:11434/v1 (openai reasoner)'),
  ('reasoner.timeout',             '60',                  'Seconds before a reasoner request times out'),
  ('reasoner.max_retries',         '1',                   'Transport retries of a failed reasoner request (an invalid answer is retried once regardless)'),
  ('reasoner.structured_output',   'true',                'Ask for JSON-schema structured output (false: plain JSON mode, for servers without it)'),
  ('consolidation.batch_size',     '100',                 'Episodes per consolidation run and namespace'),
  ('consolidation.cluster_threshold', '0.85',             'Cosine similarity for an episode to join a cluster (it joins the most similar one)'),
  ('consolidation.dedup_threshold', '0.9',                'Cosine similarity at which a new fact is the same as a current one and reinforces it'),
  ('consolidation.replacement_threshold', '0.9',          'Confidence at which a replacement supersedes the old fact without asking'),
  ('consolidation.max_attempts',   '3',                   'Failed attempts before an item is dead-lettered (kept, skipped)'),
  ('consolidation.auto_min_backlog', '10',                'Automatic consolidation runs for a namespace once this many episodes wait...'),
  ('consolidation.auto_max_wait',  '"5 minutes"',         '...or once its oldest waiting episode is this old'),
  ('consolidation.auto_max_namespaces', '10',             'Namespaces consolidated per automatic run (the rest wait for the next)'),
  ('hypothesis.auto_confirm_threshold', '0.9',           'Evidence confidence at which consolidation moves a hypothesis on (proposed -> testing -> confirmed)'),
  ('hypothesis.auto_reject_threshold', '0.9',            'Evidence confidence at which consolidation rejects a contradicted hypothesis'),
  ('decay.factor',                 '0.95',                'Confidence kept per decay.window without reinforcement (1 disables decay)'),
  ('decay.window',                 '"7 days"',            'The period decay.factor applies to'),
  ('decay.expiry_threshold',       '0.1',                 'Facts whose confidence decays below this expire (valid_until) and leave recall'),
  ('list.max_rows',                '1000',                'Largest page size of list functions'),
  ('context.default_ttl',          '"1 hour"',            'How long a context lives when set_context is given no ttl')
on conflict (key) do nothing;

create function stash._setting(key text, namespace_id bigint default null)
returns jsonb
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  result jsonb;
begin
  if namespace_id is not null then
    -- The nearest namespace (itself, then ancestors) that overrides the key.
    with recursive up as (
      select n.id, n.parent_id, n.settings, 0 as depth from stash.namespaces n where n.id = _setting.namespace_id
      union all
      select n.id, n.parent_id, n.settings, up.depth + 1 from stash.namespaces n join up on n.id = up.parent_id
    )
    select up.settings -> _setting.key into result from up where up.settings ? _setting.key order by depth limit 1;
    if found then
      return result;
    end if;
  end if;
  select s.value into result from stash.settings s where s.key = _setting.key;
  if not found then
    raise exception 'setting % is missing', key
      using errcode = 'undefined_object',
            hint = 'Redeploy (make deploy) to restore the default settings.';
  end if;
  return result;
end
$$;
comment on function stash._setting(text, bigint) is
  'A setting''s value: the nearest namespace override, else stash.settings. Errors: 42704 if the key does not exist.';

create function stash._settings_like(prefix text, namespace_id bigint default null)
returns jsonb
language sql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
  select coalesce(jsonb_object_agg(s.key, stash._setting(s.key, namespace_id)), '{}')
    from stash.settings s
   where starts_with(s.key, prefix);
$$;
comment on function stash._settings_like(text, bigint) is
  'Every setting whose key starts with prefix, as one object, namespace overrides applied.';

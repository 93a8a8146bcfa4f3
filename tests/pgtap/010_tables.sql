-- Every table of the data model, with exactly its columns and indexes, and the column types
-- that matter to the API (ids, vectors, full text, time, JSON).
begin;
select plan(58);

select tables_are('stash', array['causal_links', 'consolidation_progress', 'consolidation_runs', 'contexts', 'contradictions', 'embedding_cache', 'episodes', 'fact_sources', 'facts', 'failures', 'goals', 'hypotheses', 'namespaces', 'patterns', 'purge_log', 'relationships', 'settings'], 'schema stash has exactly the data-model tables');

select columns_are('stash', 'causal_links', array['id', 'namespace_id', 'cause_fact_id', 'effect_fact_id', 'confidence', 'method', 'created_by', 'created_at', 'deleted_at']);
select indexes_are('stash', 'causal_links', array['causal_links_cause_idx', 'causal_links_effect_idx', 'causal_links_pair_key', 'causal_links_pkey']);
select columns_are('stash', 'consolidation_progress', array['namespace_id', 'checkpoint', 'last_id', 'updated_at']);
select indexes_are('stash', 'consolidation_progress', array['consolidation_progress_pkey']);
select columns_are('stash', 'consolidation_runs', array['id', 'namespace_id', 'triggered_by', 'status', 'started_at', 'finished_at', 'counters', 'llm_calls', 'prompt_tokens', 'completion_tokens', 'llm_ms', 'errors']);
select indexes_are('stash', 'consolidation_runs', array['consolidation_runs_namespace_started_idx', 'consolidation_runs_pkey']);
select columns_are('stash', 'contexts', array['namespace_id', 'focus', 'expires_at', 'created_at', 'updated_at']);
select indexes_are('stash', 'contexts', array['contexts_pkey']);
select columns_are('stash', 'contradictions', array['id', 'namespace_id', 'old_fact_id', 'new_fact_id', 'entity', 'property', 'old_value', 'new_value', 'classification', 'confidence', 'method', 'explanation', 'resolved', 'resolution', 'resolved_at', 'resolved_by', 'created_at']);
select indexes_are('stash', 'contradictions', array['contradictions_new_fact_idx', 'contradictions_open_idx', 'contradictions_pair_key', 'contradictions_pkey']);
select columns_are('stash', 'embedding_cache', array['text_hash', 'model', 'embedding', 'created_at']);
select indexes_are('stash', 'embedding_cache', array['embedding_cache_created_idx', 'embedding_cache_pkey']);
select columns_are('stash', 'episodes', array['id', 'namespace_id', 'content', 'content_tsv', 'embedding', 'embedding_model', 'occurred_at', 'metadata', 'source', 'agent', 'created_by', 'idempotency_key', 'created_at', 'deleted_at']);
select indexes_are('stash', 'episodes', array['episodes_content_tsv_idx', 'episodes_embedding_hnsw_idx', 'episodes_idempotency_key_idx', 'episodes_namespace_id_id_key', 'episodes_namespace_occurred_idx', 'episodes_pending_embedding_idx', 'episodes_pkey']);
select columns_are('stash', 'fact_sources', array['namespace_id', 'fact_id', 'episode_id', 'created_at']);
select indexes_are('stash', 'fact_sources', array['fact_sources_episode_idx', 'fact_sources_pkey']);
select columns_are('stash', 'facts', array['id', 'namespace_id', 'content', 'entity', 'property', 'value', 'entity_key', 'property_key', 'confidence', 'observation_count', 'origin', 'pinned', 'valid_from', 'valid_until', 'superseded_by', 'last_reinforced_at', 'embedding', 'embedding_model', 'content_tsv', 'created_by', 'created_at', 'updated_at', 'deleted_at']);
select indexes_are('stash', 'facts', array['facts_content_tsv_idx', 'facts_embedding_hnsw_idx', 'facts_entity_property_idx', 'facts_namespace_id_id_key', 'facts_pkey', 'facts_superseded_by_idx']);
select columns_are('stash', 'failures', array['id', 'namespace_id', 'goal_id', 'content', 'reason', 'lesson', 'created_by', 'created_at', 'deleted_at']);
select indexes_are('stash', 'failures', array['failures_goal_idx', 'failures_namespace_created_idx', 'failures_pkey']);
select columns_are('stash', 'goals', array['id', 'namespace_id', 'parent_id', 'content', 'status', 'priority', 'notes', 'completed_at', 'abandoned_at', 'created_at', 'updated_at', 'deleted_at']);
select indexes_are('stash', 'goals', array['goals_namespace_id_id_key', 'goals_namespace_status_idx', 'goals_parent_idx', 'goals_pkey']);
select columns_are('stash', 'hypotheses', array['id', 'namespace_id', 'content', 'confidence', 'status', 'verification_plan', 'method', 'confirmed_fact_id', 'rejection_reason', 'source_fact_ids', 'tested_at', 'confirmed_at', 'rejected_at', 'created_at', 'updated_at', 'deleted_at']);
select indexes_are('stash', 'hypotheses', array['hypotheses_confirmed_fact_key', 'hypotheses_namespace_status_idx', 'hypotheses_pkey']);
select columns_are('stash', 'namespaces', array['id', 'path', 'parent_id', 'name', 'description', 'settings', 'created_at', 'updated_at']);
select indexes_are('stash', 'namespaces', array['namespaces_parent_id_idx', 'namespaces_path_key', 'namespaces_pkey']);
select columns_are('stash', 'patterns', array['id', 'namespace_id', 'content', 'content_key', 'confidence', 'coherence', 'source_fact_ids', 'source_relationship_ids', 'embedding', 'embedding_model', 'content_tsv', 'created_at', 'updated_at', 'deleted_at']);
select indexes_are('stash', 'patterns', array['patterns_content_key', 'patterns_content_tsv_idx', 'patterns_namespace_created_idx', 'patterns_pkey']);
select columns_are('stash', 'purge_log', array['id', 'purged_at', 'purged_by', 'target', 'namespace_path', 'episode_ids', 'fact_ids', 'counts']);
select indexes_are('stash', 'purge_log', array['purge_log_pkey', 'purge_log_purged_at_idx']);
select columns_are('stash', 'relationships', array['id', 'namespace_id', 'from_entity', 'relation_type', 'to_entity', 'from_key', 'to_key', 'confidence', 'observation_count', 'source_fact_id', 'created_at', 'updated_at', 'deleted_at']);
select indexes_are('stash', 'relationships', array['relationships_edge_key', 'relationships_from_idx', 'relationships_pkey', 'relationships_source_fact_idx', 'relationships_to_idx']);
select columns_are('stash', 'settings', array['key', 'value', 'description', 'updated_at']);
select indexes_are('stash', 'settings', array['settings_pkey']);

select col_type_is('stash'::name, 'episodes'::name, 'embedding'::name, 'vector(' || (select value from stash.settings where key = 'embedding.dimension')::text || ')');
select col_type_is('stash'::name, 'facts'::name, 'embedding'::name, 'vector(' || (select value from stash.settings where key = 'embedding.dimension')::text || ')');
select col_type_is('stash'::name, 'patterns'::name, 'embedding'::name, 'vector(' || (select value from stash.settings where key = 'embedding.dimension')::text || ')');
select col_type_is('stash'::name, 'embedding_cache'::name, 'embedding'::name, 'vector(' || (select value from stash.settings where key = 'embedding.dimension')::text || ')');
select col_type_is('stash'::name, 'episodes'::name, 'content_tsv'::name, 'tsvector');
select col_type_is('stash'::name, 'facts'::name, 'content_tsv'::name, 'tsvector');
select col_type_is('stash'::name, 'episodes'::name, 'id'::name, 'bigint');
select col_type_is('stash'::name, 'facts'::name, 'id'::name, 'bigint');
select col_type_is('stash'::name, 'episodes'::name, 'occurred_at'::name, 'timestamp with time zone');
select col_type_is('stash'::name, 'episodes'::name, 'metadata'::name, 'jsonb');
select col_type_is('stash'::name, 'facts'::name, 'confidence'::name, 'real');
select col_type_is('stash'::name, 'facts'::name, 'valid_until'::name, 'timestamp with time zone');
select col_type_is('stash'::name, 'facts'::name, 'superseded_by'::name, 'bigint');
select col_type_is('stash'::name, 'embedding_cache'::name, 'text_hash'::name, 'bytea');
select col_type_is('stash'::name, 'patterns'::name, 'source_fact_ids'::name, 'bigint[]');
select col_type_is('stash'::name, 'namespaces'::name, 'path'::name, 'text');
select col_type_is('stash'::name, 'settings'::name, 'value'::name, 'jsonb');
select col_type_is('stash'::name, 'consolidation_runs'::name, 'errors'::name, 'jsonb');
select is((select collname::text from pg_attribute a join pg_collation co on co.oid = a.attcollation where a.attrelid = 'stash.namespaces'::regclass and a.attname = 'path'), 'C', 'namespace paths use the C collation (index-backed prefix search)');
select index_is_type('stash', 'episodes', 'episodes_embedding_hnsw_idx', 'hnsw');
select index_is_type('stash', 'facts', 'facts_embedding_hnsw_idx', 'hnsw');
select is((select attstorage::text from pg_attribute where attrelid = 'stash.episodes'::regclass and attname = 'embedding'), 'm', 'episode vectors are kept in the row (storage main)');
select ok((select attgenerated = 's' from pg_attribute where attrelid = 'stash.facts'::regclass and attname = 'entity_key'), 'facts.entity_key is a stored generated column');

select * from finish();
rollback;

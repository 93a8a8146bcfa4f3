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

-- Contradictions: listing them, and resolving one so that the decision really applies to the facts.

create view stash.contradiction_details with (security_invoker = true) as
  select c.id, n.path::text collate "default" as namespace, c.namespace_id, c.old_fact_id, o.content as old_fact, c.new_fact_id,
         nf.content as new_fact, c.entity, c.property, c.old_value, c.new_value, c.classification, c.confidence,
         c.method, c.explanation, c.resolved, c.resolution, c.resolved_at, c.resolved_by, c.created_at
    from stash.contradictions c
    join stash.namespaces n on n.id = c.namespace_id
    join stash.facts o on o.id = c.old_fact_id
    join stash.facts nf on nf.id = c.new_fact_id;
comment on view stash.contradiction_details is 'Contradictions with both facts'' text and their namespace path.';
grant select on stash.contradiction_details to stash_writer, stash_reader;

create function stash.list_contradictions(namespaces text[] default '{/}', include_resolved boolean default false,
                                          k int default 100, skip int default 0)
returns setof stash.contradiction_details
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(namespaces);
begin
  perform stash._check_page(k, skip);
  return query
    select d.* from stash.contradiction_details d
     where d.namespace_id = any (ns_ids) and (include_resolved or not d.resolved)
     order by d.created_at desc, d.id desc
     limit k offset skip;
end
$$;
comment on function stash.list_contradictions(text[], boolean, int, int) is
  'Contradictions in the given namespaces (and descendants): unresolved ones unless include_resolved; newest first, k rows after skip. Errors: P0002 unknown namespace, 22023 bad page.';

create function stash.resolve_contradiction(id bigint, resolution text)
returns setof stash.contradiction_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  c stash.contradictions;
  decision text := case lower(btrim(resolution))
                     when 'old_value_correct' then 'keep_old' when 'new_value_correct' then 'keep_new'
                     when 'both_correct' then 'keep_both' when 'neither_correct' then 'neither'
                     else lower(btrim(resolution)) end;
begin
  if decision is null or decision not in ('keep_old', 'keep_new', 'keep_both', 'neither') then
    raise exception 'resolution must be keep_old, keep_new, keep_both or neither' using errcode = 'invalid_parameter_value',
      hint = 'keep_old: the old fact stands; keep_new: the new one replaces it; keep_both: both hold; neither: both end.';
  end if;
  select * into c from stash.contradictions x where x.id = resolve_contradiction.id for update;
  if not found then
    raise exception 'contradiction % does not exist', resolve_contradiction.id using errcode = 'no_data_found';
  end if;
  if c.resolved then
    raise exception 'contradiction % was already resolved (%)', c.id, c.resolution
      using errcode = 'object_not_in_prerequisite_state';
  end if;
  perform 1 from stash.facts f where f.id in (c.old_fact_id, c.new_fact_id) for update;
  -- Apply the decision to the facts: the fact that loses ends now; the one that stands is current.
  update stash.facts f
     set valid_until = case when (f.id = c.old_fact_id and decision in ('keep_new', 'neither'))
                              or (f.id = c.new_fact_id and decision in ('keep_old', 'neither'))
                            then greatest(now(), f.valid_from) end,
         superseded_by = case when f.id = c.old_fact_id and decision = 'keep_new' then c.new_fact_id end,
         updated_at = now()
   where f.id in (c.old_fact_id, c.new_fact_id) and f.deleted_at is null;
  update stash.contradictions x
     set resolved = true, resolution = decision, resolved_at = now(), resolved_by = current_user
   where x.id = c.id;
  return query select * from stash.contradiction_details d where d.id = c.id;
end
$$;
comment on function stash.resolve_contradiction(bigint, text) is
  'Resolves a contradiction and applies it: keep_old ends the new fact, keep_new ends the old one (superseded by the new), keep_both keeps both current, neither ends both. The reference''s old_value_correct / new_value_correct / both_correct / neither_correct are accepted. Once only. Errors: 22023 unknown resolution, P0002 no such contradiction, 55000 already resolved.';

grant execute on function stash.list_contradictions(text[], boolean, int, int) to stash_writer, stash_reader;
grant execute on function stash.resolve_contradiction(bigint, text) to stash_writer;

-- Relationships, patterns and causal links: reading them, and the causal graph's own writes.

create view stash.relationship_details with (security_invoker = true) as
  select r.id, n.path::text collate "default" as namespace, r.namespace_id, r.from_entity, r.relation_type, r.to_entity, r.confidence,
         r.observation_count, r.source_fact_id, r.created_at, r.updated_at
    from stash.relationships r join stash.namespaces n on n.id = r.namespace_id
   where r.deleted_at is null;
comment on view stash.relationship_details is 'Live relationships (entity edges) with their namespace path.';

create view stash.pattern_details with (security_invoker = true) as
  select p.id, n.path::text collate "default" as namespace, p.namespace_id, p.content, p.confidence, p.coherence, p.source_fact_ids,
         p.source_relationship_ids, p.created_at, p.updated_at
    from stash.patterns p join stash.namespaces n on n.id = p.namespace_id
   where p.deleted_at is null;
comment on view stash.pattern_details is 'Live patterns with their namespace path, without vectors.';

create view stash.causal_link_details with (security_invoker = true) as
  select l.id, n.path::text collate "default" as namespace, l.namespace_id, l.cause_fact_id, c.content as cause, l.effect_fact_id,
         e.content as effect, l.confidence, l.method, l.created_by, l.created_at
    from stash.causal_links l
    join stash.namespaces n on n.id = l.namespace_id
    join stash.facts c on c.id = l.cause_fact_id
    join stash.facts e on e.id = l.effect_fact_id
   where l.deleted_at is null;
comment on view stash.causal_link_details is 'Live causal links with the text of both facts.';

grant select on stash.relationship_details, stash.pattern_details, stash.causal_link_details to stash_writer, stash_reader;

create function stash.query_relationships(namespaces text[] default '{/}', entity text default null,
                                          relation_type text default null, k int default 100, skip int default 0)
returns setof stash.relationship_details
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(namespaces);
  key text := stash._key(entity);
begin
  perform stash._check_page(k, skip);
  return query
    select d.* from stash.relationship_details d join stash.relationships r on r.id = d.id
     where r.namespace_id = any (ns_ids)
       and (key is null or r.from_key = key or r.to_key = key)
       and (query_relationships.relation_type is null or r.relation_type = query_relationships.relation_type)
     order by r.id
     limit k offset skip;
end
$$;
comment on function stash.query_relationships(text[], text, text, int, int) is
  'Live relationships in the given namespaces (and descendants), optionally touching entity at either end (case- and space-insensitive) and of one relation_type; oldest first, k rows after skip. Errors: P0002 unknown namespace, 22023 bad page.';

create function stash.query_patterns(namespaces text[] default '{/}', min_confidence real default null,
                                     k int default 100, skip int default 0)
returns setof stash.pattern_details
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(namespaces);
begin
  perform stash._check_page(k, skip);
  if min_confidence is not null then
    perform stash._check_confidence(min_confidence, 'min_confidence');
  end if;
  return query
    select d.* from stash.pattern_details d
     where d.namespace_id = any (ns_ids) and (min_confidence is null or d.confidence >= min_confidence)
     order by d.confidence desc, d.id
     limit k offset skip;
end
$$;
comment on function stash.query_patterns(text[], real, int, int) is
  'Live patterns in the given namespaces (and descendants), most confident first, k rows after skip. Errors: P0002 unknown namespace, 22023 bad page or confidence.';

create function stash.create_causal_link(cause_id bigint, effect_id bigint, confidence real default 0.8,
                                         namespace text default null)
returns setof stash.causal_link_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  cause stash.facts;
  effect stash.facts;
  conf real := stash._check_confidence(confidence);
  new_id bigint;
begin
  if cause_id is null or effect_id is null then
    raise exception 'cause_id and effect_id are required' using errcode = 'null_value_not_allowed';
  end if;
  if cause_id = effect_id then
    raise exception 'a fact cannot cause itself' using errcode = 'invalid_parameter_value';
  end if;
  select * into cause from stash.facts f where f.id = cause_id and f.deleted_at is null;
  select * into effect from stash.facts f where f.id = effect_id and f.deleted_at is null;
  if cause.id is null or effect.id is null then
    raise exception 'fact % does not exist', case when cause.id is null then cause_id else effect_id end
      using errcode = 'no_data_found';
  end if;
  if cause.namespace_id <> effect.namespace_id then
    raise exception 'facts % and % are in different namespaces', cause_id, effect_id
      using errcode = 'invalid_parameter_value', hint = 'A causal link joins two facts of one namespace.';
  end if;
  if namespace is not null and stash._namespace_id(namespace) <> cause.namespace_id then
    raise exception 'the facts are not in namespace %', namespace using errcode = 'invalid_parameter_value';
  end if;
  begin
    insert into stash.causal_links (namespace_id, cause_fact_id, effect_fact_id, confidence, method)
    values (cause.namespace_id, cause_id, effect_id, conf, 'asserted')
    returning id into new_id;
  exception when unique_violation then
    raise exception 'a causal link from fact % to fact % already exists', cause_id, effect_id
      using errcode = 'unique_violation', hint = 'list_causal_links shows it; delete_causal_link removes it.';
  end;
  return query select * from stash.causal_link_details d where d.id = new_id;
end
$$;
comment on function stash.create_causal_link(bigint, bigint, real, text) is
  'Records that fact cause_id causes fact effect_id (both live, in one namespace; namespace, if given, must be theirs). Errors: P0002 no such fact, 22023 self-link / different namespaces / bad confidence, 23505 the link exists.';

create function stash.list_causal_links(namespaces text[] default '{/}', fact_id bigint default null,
                                        k int default 100, skip int default 0)
returns setof stash.causal_link_details
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
    select d.* from stash.causal_link_details d
     where d.namespace_id = any (ns_ids) and (fact_id is null or fact_id in (d.cause_fact_id, d.effect_fact_id))
     order by d.id
     limit k offset skip;
end
$$;
comment on function stash.list_causal_links(text[], bigint, int, int) is
  'Live causal links in the given namespaces (and descendants), optionally only those touching fact_id; k rows after skip. Errors: P0002 unknown namespace, 22023 bad page.';

create function stash.delete_causal_link(id bigint)
returns boolean
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  update stash.causal_links l set deleted_at = now() where l.id = delete_causal_link.id and l.deleted_at is null;
  if not found then
    raise exception 'causal link % does not exist', id using errcode = 'no_data_found';
  end if;
  return true;
end
$$;
comment on function stash.delete_causal_link(bigint) is 'Deletes (soft) a causal link. Errors: P0002 no such live link.';

create function stash.trace_causal_chain(fact_id bigint, direction text default 'forward', max_depth int default 10)
returns table (depth int, link_id bigint, cause_fact_id bigint, cause text, effect_fact_id bigint, effect text,
               confidence real, path bigint[])
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  cap int := stash._setting('causal.max_depth')::int;
  max_rows int := stash._setting('causal.max_rows')::int;
begin
  if direction is null or direction not in ('forward', 'backward') then
    raise exception 'direction must be forward or backward' using errcode = 'invalid_parameter_value';
  end if;
  if max_depth is null or max_depth < 1 or max_depth > cap then
    raise exception 'max_depth must be between 1 and %', cap using errcode = 'invalid_parameter_value';
  end if;
  if not exists (select from stash.facts f where f.id = fact_id and f.deleted_at is null) then
    raise exception 'fact % does not exist', fact_id using errcode = 'no_data_found';
  end if;
  -- Breadth first from the fact; path holds the facts visited, so a cycle ends a branch instead of
  -- looping, and max_rows bounds a dense graph.
  return query
    with recursive walk (depth, link_id, cause_fact_id, effect_fact_id, confidence, path) as (
      select 1, l.id, l.cause_fact_id, l.effect_fact_id, l.confidence,
             array[fact_id, case when direction = 'forward' then l.effect_fact_id else l.cause_fact_id end]
        from stash.causal_links l
       where l.deleted_at is null
         and fact_id = case when direction = 'forward' then l.cause_fact_id else l.effect_fact_id end
      union all
      select w.depth + 1, l.id, l.cause_fact_id, l.effect_fact_id, l.confidence,
             w.path || case when direction = 'forward' then l.effect_fact_id else l.cause_fact_id end
        from walk w
        join stash.causal_links l on l.deleted_at is null
         and case when direction = 'forward' then l.cause_fact_id = w.effect_fact_id
                  else l.effect_fact_id = w.cause_fact_id end
       where w.depth < max_depth
         and not (case when direction = 'forward' then l.effect_fact_id else l.cause_fact_id end) = any (w.path)
    )
    select w.depth, w.link_id, w.cause_fact_id, c.content, w.effect_fact_id, e.content, w.confidence, w.path
      from walk w
      join stash.facts c on c.id = w.cause_fact_id
      join stash.facts e on e.id = w.effect_fact_id
     where c.deleted_at is null and e.deleted_at is null
     order by w.depth, w.link_id
     limit max_rows;
end
$$;
comment on function stash.trace_causal_chain(bigint, text, int) is
  'Follows causal links from a fact, forward (its effects) or backward (its causes), up to max_depth (at most setting causal.max_depth) and causal.max_rows rows; cycle-safe (a branch stops where it would revisit a fact). Each row: depth, the link, both facts and the path of fact ids from the start. Errors: 22023 bad direction or depth, P0002 no such fact.';

grant execute on function stash.query_relationships(text[], text, text, int, int), stash.query_patterns(text[], real, int, int),
  stash.list_causal_links(text[], bigint, int, int), stash.trace_causal_chain(bigint, text, int) to stash_writer, stash_reader;
grant execute on function stash.create_causal_link(bigint, bigint, real, text), stash.delete_causal_link(bigint) to stash_writer;

-- Hypotheses: testable beliefs with an enforced lifecycle.
--   proposed --test--> testing --confirm--> confirmed (creates its fact, exactly once)
--   proposed|testing --reject--> rejected;  proposed|testing --refine--> proposed
-- confirmed and rejected are final; deleted hypotheses take part in nothing.

create view stash.hypothesis_details with (security_invoker = true) as
  select h.id, n.path::text collate "default" as namespace, h.namespace_id, h.content, h.confidence, h.status, h.verification_plan,
         h.method, h.confirmed_fact_id, h.rejection_reason, h.source_fact_ids, h.tested_at, h.confirmed_at,
         h.rejected_at, h.created_at, h.updated_at
    from stash.hypotheses h join stash.namespaces n on n.id = h.namespace_id
   where h.deleted_at is null;
comment on view stash.hypothesis_details is 'Live hypotheses with their namespace path.';
grant select on stash.hypothesis_details to stash_writer, stash_reader;

create function stash._hypothesis_for_update(id bigint, allowed text[], action text)
returns stash.hypotheses
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  h stash.hypotheses;
begin
  -- The row lock serialises transitions: a second confirm waits, then sees "confirmed".
  select * into h from stash.hypotheses x where x.id = _hypothesis_for_update.id and x.deleted_at is null for update;
  if not found then
    raise exception 'hypothesis % does not exist', _hypothesis_for_update.id using errcode = 'no_data_found';
  end if;
  if not h.status = any (allowed) then
    raise exception 'hypothesis % is %; only a % hypothesis can be %', h.id, h.status,
      array_to_string(allowed, ' or '), action
      using errcode = 'object_not_in_prerequisite_state';
  end if;
  return h;
end
$$;
comment on function stash._hypothesis_for_update(bigint, text[], text) is
  'Locks a live hypothesis whose status allows action. Errors: P0002 no such hypothesis, 55000 wrong status.';

create function stash.create_hypothesis(namespace text, content text, verification_plan text default '',
                                        confidence real default 0.5, source_fact_ids bigint[] default '{}')
returns setof stash.hypothesis_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns bigint := stash._namespace_id(namespace);
  bad bigint;
  new_id bigint;
begin
  select min(s) into bad from unnest(coalesce(source_fact_ids, '{}')) s
   where not exists (select from stash.facts f where f.id = s and f.namespace_id = ns and f.deleted_at is null);
  if bad is not null then
    raise exception 'source fact % is not a live fact of namespace %', bad, namespace using errcode = 'invalid_parameter_value';
  end if;
  insert into stash.hypotheses (namespace_id, content, verification_plan, confidence, source_fact_ids)
  values (ns, stash._check_text(content, 'content'),
          coalesce(stash._check_text(verification_plan, 'verification_plan', 65536, false), ''),
          stash._check_confidence(confidence), array(select distinct unnest(coalesce(source_fact_ids, '{}'))))
  returning id into new_id;
  return query select * from stash.hypothesis_details d where d.id = new_id;
end
$$;
comment on function stash.create_hypothesis(text, text, text, real, bigint[]) is
  'Proposes a hypothesis in exactly this namespace, with how to verify it and the facts it rests on (live facts of the same namespace). Errors: P0002 unknown namespace, 22023 empty content / bad confidence / foreign source fact.';

create function stash.test_hypothesis(id bigint)
returns setof stash.hypothesis_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  h stash.hypotheses := stash._hypothesis_for_update(id, '{proposed}', 'put to the test');
begin
  update stash.hypotheses x set status = 'testing', tested_at = now(), updated_at = now() where x.id = h.id;
  return query select * from stash.hypothesis_details d where d.id = h.id;
end
$$;
comment on function stash.test_hypothesis(bigint) is 'proposed -> testing. Errors: P0002, 55000 not proposed.';

create function stash.confirm_hypothesis(id bigint)
returns jsonb
language plpgsql
volatile
security invoker
set search_path = pg_catalog, public, pg_temp
as $$
declare
  h stash.hypotheses := stash._hypothesis_for_update(id, '{testing}', 'confirmed');
  emb vector;
  fact bigint;
begin
  emb := stash._embed_or_null(h.content);
  perform stash._ingest_lock(h.namespace_id);  -- last lock, see assert_fact
  insert into stash.facts (namespace_id, content, confidence, origin, embedding, embedding_model)
  values (h.namespace_id, h.content, h.confidence, 'hypothesis', emb, case when emb is not null then stash._embedding_model() end)
  returning facts.id into fact;
  update stash.hypotheses x
     set status = 'confirmed', confirmed_at = now(), confirmed_fact_id = fact, updated_at = now()
   where x.id = h.id;
  return jsonb_build_object(
    'hypothesis', (select to_jsonb(d) from stash.hypothesis_details d where d.id = h.id),
    'fact', (select to_jsonb(d) from stash.fact_details d where d.id = fact));
end
$$;
comment on function stash.confirm_hypothesis(bigint) is
  'testing -> confirmed: the hypothesis becomes a fact (origin hypothesis) exactly once, even when two sessions confirm at once (the second gets 55000). Returns {hypothesis, fact}. Errors: P0002, 55000 not testing.';

create function stash.reject_hypothesis(id bigint, reason text default null)
returns setof stash.hypothesis_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  h stash.hypotheses := stash._hypothesis_for_update(id, '{proposed,testing}', 'rejected');
begin
  update stash.hypotheses x
     set status = 'rejected', rejected_at = now(), updated_at = now(),
         rejection_reason = stash._check_text(reason, 'reason', 65536, false)
   where x.id = h.id;
  return query select * from stash.hypothesis_details d where d.id = h.id;
end
$$;
comment on function stash.reject_hypothesis(bigint, text) is
  'proposed or testing -> rejected, with an optional reason. Errors: P0002, 55000 already confirmed or rejected.';

create function stash.refine_hypothesis(id bigint, content text default null, verification_plan text default null,
                                        confidence real default null)
returns setof stash.hypothesis_details
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  h stash.hypotheses := stash._hypothesis_for_update(id, '{proposed,testing}', 'refined');
begin
  if content is null and verification_plan is null and confidence is null then
    raise exception 'nothing to refine: give content, verification_plan or confidence' using errcode = 'invalid_parameter_value';
  end if;
  -- A refined hypothesis is a new proposal: it goes back to proposed and must be tested again.
  update stash.hypotheses x
     set content = coalesce(stash._check_text(refine_hypothesis.content, 'content', 65536, false), x.content),
         verification_plan = coalesce(stash._check_text(refine_hypothesis.verification_plan, 'verification_plan', 65536, false),
                                      x.verification_plan),
         confidence = case when refine_hypothesis.confidence is null then x.confidence
                           else stash._check_confidence(refine_hypothesis.confidence) end,
         status = 'proposed', tested_at = null, updated_at = now()
   where x.id = h.id;
  return query select * from stash.hypothesis_details d where d.id = h.id;
end
$$;
comment on function stash.refine_hypothesis(bigint, text, text, real) is
  'Changes a proposed or testing hypothesis''s content, plan or confidence (null keeps each); it returns to proposed. Errors: P0002, 55000 final status, 22023 nothing to change or bad confidence.';

create function stash.list_hypotheses(namespaces text[] default '{/}', status text default null,
                                      k int default 100, skip int default 0)
returns setof stash.hypothesis_details
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  ns_ids bigint[] := stash._namespace_ids(namespaces);
begin
  perform stash._check_page(k, skip);
  if status is not null and status not in ('proposed', 'testing', 'confirmed', 'rejected') then
    raise exception 'status must be proposed, testing, confirmed or rejected' using errcode = 'invalid_parameter_value';
  end if;
  return query
    select d.* from stash.hypothesis_details d
     where d.namespace_id = any (ns_ids) and (list_hypotheses.status is null or d.status = list_hypotheses.status)
     order by d.updated_at desc, d.id desc
     limit k offset skip;
end
$$;
comment on function stash.list_hypotheses(text[], text, int, int) is
  'Live hypotheses in the given namespaces (and descendants), optionally of one status; most recently changed first. Errors: P0002 unknown namespace, 22023 bad status or page.';

create function stash.get_hypothesis(id bigint)
returns setof stash.hypothesis_details
language plpgsql
stable
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  return query select * from stash.hypothesis_details d where d.id = get_hypothesis.id;
  if not found then
    raise exception 'hypothesis % does not exist', id using errcode = 'no_data_found';
  end if;
end
$$;
comment on function stash.get_hypothesis(bigint) is 'One live hypothesis. Errors: P0002 no such live hypothesis.';

create function stash.delete_hypothesis(id bigint)
returns boolean
language plpgsql
volatile
security invoker
set search_path = pg_catalog, pg_temp
as $$
begin
  update stash.hypotheses x set deleted_at = now(), updated_at = now() where x.id = delete_hypothesis.id and x.deleted_at is null;
  if not found then
    raise exception 'hypothesis % does not exist', id using errcode = 'no_data_found';
  end if;
  return true;
end
$$;
comment on function stash.delete_hypothesis(bigint) is 'Deletes (soft) a hypothesis; it can no longer be used. Errors: P0002.';

grant execute on function stash.list_hypotheses(text[], text, int, int), stash.get_hypothesis(bigint) to stash_writer, stash_reader;
grant execute on function stash.create_hypothesis(text, text, text, real, bigint[]), stash.test_hypothesis(bigint),
  stash.confirm_hypothesis(bigint), stash.reject_hypothesis(bigint, text), stash.refine_hypothesis(bigint, text, text, real),
  stash.delete_hypothesis(bigint), stash._hypothesis_for_update(bigint, text[], text) to stash_writer;

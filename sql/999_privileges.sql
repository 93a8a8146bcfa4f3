-- Last step of the code deploy: nothing in schema stash is executable by PUBLIC. PostgreSQL grants
-- EXECUTE to PUBLIC on every new function, and per-schema default privileges cannot take that
-- away, so it is revoked here, after every function exists. Client roles get EXECUTE explicitly,
-- function by function, next to each definition.
do $$
declare
  r record;
begin
  for r in select p.oid::regprocedure as fn, p.prokind
             from pg_proc p
            where p.pronamespace = 'stash'::regnamespace and p.prokind in ('f', 'p') loop
    execute format('revoke execute on %s %s from public',
                   case r.prokind when 'p' then 'procedure' else 'function' end, r.fn);
  end loop;
end
$$;

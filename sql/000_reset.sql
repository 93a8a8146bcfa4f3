-- Re-runnable code, step 0: remove the previous version of every code object in schema stash.
--
-- The deploy model (README "Schema changes"): sqitch owns the run-once DDL (roles, schema,
-- extensions, tables, indexes, constraints); the files in sql/ own the code (functions, views,
-- triggers, policies, their grants and comments) and are applied, in file-name order and in one
-- transaction with this file first, after every `sqitch deploy`. Dropping first means a renamed
-- or removed function does not linger, so an upgraded database ends up with the same catalog as
-- a fresh one. Functions are dropped without CASCADE: if a table ever depended on one (a
-- default, a check), this fails loudly instead of silently dropping the constraint.
do $$
declare
  r record;
begin
  for r in select pol.polname, c.oid::regclass as tbl
             from pg_policy pol join pg_class c on c.oid = pol.polrelid
            where c.relnamespace = 'stash'::regnamespace loop
    execute format('drop policy %I on %s', r.polname, r.tbl);
  end loop;
  for r in select t.tgname, c.oid::regclass as tbl
             from pg_trigger t join pg_class c on c.oid = t.tgrelid
            where c.relnamespace = 'stash'::regnamespace and not t.tgisinternal loop
    execute format('drop trigger %I on %s', r.tgname, r.tbl);
  end loop;
  for r in select c.oid::regclass as v, c.relkind
             from pg_class c
            where c.relnamespace = 'stash'::regnamespace and c.relkind in ('v', 'm') loop
    execute format('drop %s view if exists %s cascade', case r.relkind when 'm' then 'materialized' else '' end, r.v);
  end loop;
  for r in select p.oid::regprocedure as fn, p.prokind
             from pg_proc p
            where p.pronamespace = 'stash'::regnamespace
              and not exists (select from pg_depend d
                               where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e') loop
    execute format('drop %s %s', case r.prokind when 'p' then 'procedure' when 'a' then 'aggregate' else 'function' end, r.fn);
  end loop;
end
$$;

-- Revert stash:role_reader from pg
-- Another database in this cluster may still use the role: keep it then, rather than fail.
begin;
do $$
begin
  drop role if exists stash_reader;
exception when dependent_objects_still_exist then
  raise notice 'role stash_reader is still used elsewhere in this cluster; kept';
end
$$;
commit;

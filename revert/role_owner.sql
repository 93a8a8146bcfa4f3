-- Revert stash:role_owner from pg
-- Another database in this cluster may still use the role: keep it then, rather than fail.
begin;
do $$
begin
  drop role if exists stash_owner;
exception when dependent_objects_still_exist then
  raise notice 'role stash_owner is still used elsewhere in this cluster; kept';
end
$$;
commit;

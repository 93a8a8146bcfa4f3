-- Deploy stash:role_writer to pg
-- Roles are cluster-wide: create only if absent, so a second stash database can share them.
begin;
do $$
begin
  if not exists (select from pg_roles where rolname = 'stash_writer') then
    create role stash_writer nologin;
  end if;
end
$$;
comment on role stash_writer is 'Stash: clients that remember, consolidate and manage records';
commit;

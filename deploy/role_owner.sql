-- Deploy stash:role_owner to pg
-- Roles are cluster-wide: create only if absent, so a second stash database can share them.
begin;
do $$
begin
  if not exists (select from pg_roles where rolname = 'stash_owner') then
    create role stash_owner nologin;
  end if;
end
$$;
comment on role stash_owner is 'Stash: owns the stash schema and tables; no login, holds no client grants';
commit;

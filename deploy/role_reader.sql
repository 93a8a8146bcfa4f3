-- Deploy stash:role_reader to pg
-- Roles are cluster-wide: create only if absent, so a second stash database can share them.
begin;
do $$
begin
  if not exists (select from pg_roles where rolname = 'stash_reader') then
    create role stash_reader nologin;
  end if;
end
$$;
comment on role stash_reader is 'Stash: clients that recall and list; cannot write';
commit;

-- Verify stash:role_owner on pg
do $$
begin
  assert exists (select from pg_roles where rolname = 'stash_owner' and not rolsuper and not rolcanlogin),
    'role stash_owner missing, a superuser, or able to log in';
end
$$;

-- Verify stash:role_reader on pg
do $$
begin
  assert exists (select from pg_roles where rolname = 'stash_reader' and not rolsuper and not rolcanlogin),
    'role stash_reader missing, a superuser, or able to log in';
end
$$;

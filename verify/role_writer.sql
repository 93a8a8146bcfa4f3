-- Verify stash:role_writer on pg
do $$
begin
  assert exists (select from pg_roles where rolname = 'stash_writer' and not rolsuper and not rolcanlogin),
    'role stash_writer missing, a superuser, or able to log in';
end
$$;

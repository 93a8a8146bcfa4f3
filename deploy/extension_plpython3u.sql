-- Deploy stash:extension_plpython3u to pg
begin;
create extension if not exists plpython3u;
commit;

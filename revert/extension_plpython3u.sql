-- Revert stash:extension_plpython3u from pg
begin;
drop extension if exists plpython3u;
commit;

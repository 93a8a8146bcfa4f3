-- Revert stash:extension_vector from pg
begin;
drop extension if exists vector;
commit;

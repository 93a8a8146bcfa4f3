-- Deploy stash:extension_vector to pg
begin;
-- In public, where other services look for the vector type and its operators.
create extension if not exists vector schema public;
commit;

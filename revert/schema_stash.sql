-- Revert stash:schema_stash from pg
-- By now every table is gone; what remains is re-runnable code from sql/, which goes with it.
begin;
drop schema stash cascade;
commit;

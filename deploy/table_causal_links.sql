-- Deploy stash:table_causal_links to pg
-- Fact -> fact causation. Both facts in the link's namespace (composite keys), no self-links,
-- one live link per ordered pair.
begin;
set local role stash_owner;

create table stash.causal_links (
  id             bigint generated always as identity primary key,
  namespace_id   bigint not null references stash.namespaces (id) on delete cascade,
  cause_fact_id  bigint not null,
  effect_fact_id bigint not null,
  confidence     real not null default 0.8 check (confidence between 0 and 1),
  method         text not null default 'asserted' check (method in ('extracted', 'asserted')),
  created_by     text not null default current_user,
  created_at     timestamptz not null default now(),
  deleted_at     timestamptz,
  constraint causal_links_not_self check (cause_fact_id <> effect_fact_id),
  constraint causal_links_cause_fkey foreign key (namespace_id, cause_fact_id)
    references stash.facts (namespace_id, id) on delete cascade,
  constraint causal_links_effect_fkey foreign key (namespace_id, effect_fact_id)
    references stash.facts (namespace_id, id) on delete cascade
);
create unique index causal_links_pair_key on stash.causal_links (cause_fact_id, effect_fact_id)
  where deleted_at is null;
create index causal_links_cause_idx on stash.causal_links (namespace_id, cause_fact_id);
create index causal_links_effect_idx on stash.causal_links (namespace_id, effect_fact_id);
comment on table stash.causal_links is 'Cause -> effect links between facts of one namespace';

grant select on stash.causal_links to stash_reader;
grant select, insert, update, delete on stash.causal_links to stash_writer;
commit;

-- Deploy stash:table_hypotheses to pg
-- Testable beliefs: proposed -> testing -> confirmed | rejected (transitions enforced by the API).
-- A confirmed hypothesis points at the fact it became, in the same namespace.
begin;
set local role stash_owner;

create table stash.hypotheses (
  id                bigint generated always as identity primary key,
  namespace_id      bigint not null references stash.namespaces (id) on delete cascade,
  content           text not null check (content ~ '[^[:space:]]') check (octet_length(content) <= 65536),
  confidence        real not null default 0.5 check (confidence between 0 and 1),
  status            text not null default 'proposed' check (status in ('proposed', 'testing', 'confirmed', 'rejected')),
  verification_plan text not null default '' check (octet_length(verification_plan) <= 65536),
  method            text not null default 'asserted' check (method in ('asserted', 'inferred')),
  confirmed_fact_id bigint,
  rejection_reason  text,
  source_fact_ids   bigint[] not null default '{}' check (array_position(source_fact_ids, null) is null),
  tested_at         timestamptz,
  confirmed_at      timestamptz,
  rejected_at       timestamptz,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz not null default now(),
  deleted_at        timestamptz,
  constraint hypotheses_testing_has_tested_at check (status <> 'testing' or tested_at is not null),
  constraint hypotheses_confirmed_has_confirmed_at check ((status = 'confirmed') = (confirmed_at is not null)),
  constraint hypotheses_rejected_has_rejected_at check ((status = 'rejected') = (rejected_at is not null)),
  constraint hypotheses_fact_only_when_confirmed check (confirmed_fact_id is null or status = 'confirmed'),
  -- Purging the fact keeps the hypothesis (confirmed, unlinked).
  constraint hypotheses_confirmed_fact_fkey foreign key (namespace_id, confirmed_fact_id)
    references stash.facts (namespace_id, id) on delete set null (confirmed_fact_id)
);
create index hypotheses_namespace_status_idx on stash.hypotheses (namespace_id, status);
-- One fact per hypothesis, and the FK's index.
create unique index hypotheses_confirmed_fact_key on stash.hypotheses (namespace_id, confirmed_fact_id);
comment on table stash.hypotheses is 'Testable beliefs with a lifecycle; confirming one creates its fact exactly once';

grant select on stash.hypotheses to stash_reader;
grant select, insert, update, delete on stash.hypotheses to stash_writer;
commit;

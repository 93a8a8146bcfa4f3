#!/usr/bin/env bash
# Deploy the schema into the container's database: sqitch changes, then sql/ in one transaction
# (the same two steps as `make deploy`). Runs once from docker-entrypoint-initdb.d on a fresh
# volume; after an image upgrade run it again:  docker compose exec db /opt/stash/deploy.sh
set -euo pipefail
export PGHOST=${PGHOST:-/var/run/postgresql} PGUSER=${POSTGRES_USER:-postgres} PGDATABASE=stash
export SQITCH_FULLNAME=stash SQITCH_EMAIL=stash@localhost
cd /opt/stash/schema
sqitch deploy --verify db:pg: ${STASH_EMBED_DIM:+--set embed_dim=$STASH_EMBED_DIM}
psql -X -q -v ON_ERROR_STOP=1 -1 $(printf -- '-f %s ' sql/*.sql)
# The default jobs: automatic consolidation every 5 minutes, daily maintenance (if absent).
psql -X -q -v ON_ERROR_STOP=1 -c 'select stash.schedule_defaults()' >/dev/null
# The MCP container's login: a member of stash_writer for privileges, granted every namespace
# (row-level security gives a role only what it was granted; README "Security model").
if [ -n "${STASH_MCP_DB_PASSWORD:-}" ]; then
  psql -X -q -v ON_ERROR_STOP=1 -v pw="$STASH_MCP_DB_PASSWORD" <<'SQL'
select format('create role stash_mcp login in role stash_writer') where not exists (select from pg_roles where rolname = 'stash_mcp') \gexec
alter role stash_mcp password :'pw';
select stash.grant_namespace('stash_mcp', '/', 'write') \g /dev/null
SQL
fi

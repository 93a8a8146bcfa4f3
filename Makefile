# Stash: persistent memory for AI agents, inside PostgreSQL.
#
#   make run     install what is missing, start the local cluster, deploy, serve MCP (foreground)
#   make test    install what is missing, run every test in a throwaway cluster
#
# Everything is idempotent: each install step leaves a stamp under .stash/stamps and is skipped
# when its inputs have not changed. Runtime state (data directory, socket, logs, the server-side
# Python package) lives where the `postgres` OS user can read it; .stash/ links to it.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory
# One shell per recipe, so the cluster macros below can keep variables across lines.
.ONESHELL:

PG_MAJOR          := 15
PG_BIN            := /usr/lib/postgresql/$(PG_MAJOR)/bin
PG_CONFIG         := $(PG_BIN)/pg_config
PGVECTOR_VERSION  := 0.8.0
# plpython3u embeds Debian's interpreter, so the server-side package and the venv both use it.
SYS_PYTHON        := /usr/bin/python3
STASH_PGPORT      ?= 54329
STASH_TEST_PGPORT ?= 54339
# Vector dimension, read only when the schema is first deployed (384 = the local MiniLM model).
STASH_EMBED_DIM   ?= 384

ROOT   := $(CURDIR)
STATE  := $(ROOT)/.stash
STAMPS := $(STATE)/stamps
VENV   := $(ROOT)/.venv

# The server runs as a non-root OS user. As root we use `postgres` and keep runtime files under
# /var/lib/stash (a checkout in /root is unreadable to it); otherwise the caller runs the server.
ifeq ($(shell id -u),0)
  RUNTIME_BASE := /var/lib/stash
  PG_OS_USER   := postgres
  AS_PG        := runuser -u postgres --
  SUDO         :=
else
  RUNTIME_BASE := $(STATE)/runtime
  PG_OS_USER   := $(shell id -un)
  AS_PG        :=
  SUDO         := sudo
endif
RUNTIME := $(RUNTIME_BASE)/$(notdir $(ROOT))-$(shell printf %s '$(ROOT)' | sha1sum | cut -c1-8)
PYLIB   := $(RUNTIME)/pylib

APT_PACKAGES := postgresql-$(PG_MAJOR) postgresql-client-$(PG_MAJOR) postgresql-$(PG_MAJOR)-cron \
  postgresql-plpython3-$(PG_MAJOR) postgresql-$(PG_MAJOR)-pgtap postgresql-server-dev-$(PG_MAJOR) \
  sqitch libtap-parser-sourcehandler-pgtap-perl python3-venv python3-pip dpkg-dev build-essential

PY_SOURCES := $(shell find python/stash -name '*.py' 2>/dev/null)
SQL_CODE   := $(sort $(wildcard sql/*.sql))
SQITCH_ENV := SQITCH_FULLNAME=stash SQITCH_EMAIL=stash@localhost

# $(call fail,step,fix): stop with a message naming the failed step and how to fix it.
fail = { echo "stash: step '$(1)' failed. Fix: $(2)" >&2; exit 1; }
# pip, minus the noise of running as root and of local find-links that do not exist; its own
# exit status survives the filter (pipefail).
PIP_FILTER = 2>&1 | { grep -v -e 'WARNING: Location' -e "as the 'root' user" -e 'Target directory' || true; }

.PHONY: help run up down psql deploy revert test lint bench install clean-test clean-bench

help:
	@sed -n 's/^#   //p' Makefile | head -2
	@echo "  also: up down psql deploy revert bench lint"

# ---------------------------------------------------------------------------------------------
# Installation
# ---------------------------------------------------------------------------------------------

install: $(STAMPS)/apt $(STAMPS)/pgvector $(STAMPS)/venv $(PYLIB)/.stamp

$(STAMPS)/apt:
	@mkdir -p $(STAMPS)
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
	    | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "stash: installing system packages:" $$missing; \
	  $(SUDO) apt-get update -qq >/dev/null \
	    || $(call fail,system packages,apt-get update failed: check the network and that no other apt is running); \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null \
	    || $(call fail,system packages,apt-get install failed: wait for any other apt/dpkg to finish (lock) and check the network); \
	fi
	@touch $@

# pgvector is not packaged for Debian 12: build Debian 13's source package against PG $(PG_MAJOR).
$(STAMPS)/pgvector: $(STAMPS)/apt
	@if ! grep -qs "default_version = '$(PGVECTOR_VERSION)'" "$$($(PG_CONFIG) --sharedir)/extension/vector.control"; then \
	  echo "stash: building pgvector $(PGVECTOR_VERSION)"; \
	  src=/etc/apt/sources.list.d/stash-trixie-src.sources; \
	  [ -f $$src ] || printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' 'Suites: trixie' \
	    'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' | $(SUDO) tee $$src >/dev/null; \
	  $(SUDO) apt-get update -qq >/dev/null || $(call fail,pgvector,apt-get update failed: check the network); \
	  b=$$(mktemp -d); cd $$b; \
	  apt-get source -qq pgvector=$(PGVECTOR_VERSION)-1 >/dev/null 2>&1 \
	    || $(call fail,pgvector,could not download the pgvector source package: check the network and $$src); \
	  cd pgvector-$(PGVECTOR_VERSION) && make -s -j2 PG_CONFIG=$(PG_CONFIG) >/dev/null 2>&1 \
	    && $(SUDO) make -s install PG_CONFIG=$(PG_CONFIG) >/dev/null \
	    || $(call fail,pgvector,the build failed: is postgresql-server-dev-$(PG_MAJOR) installed?); \
	  rm -rf $$b; \
	fi
	@touch $@

# Tools and tests: a venv made by the server's interpreter, so compiled wheels are the same.
$(STAMPS)/venv: $(STAMPS)/apt python/requirements-dev.txt python/requirements-server.txt python/pyproject.toml \
  mcp_server/requirements.txt mcp_server/pyproject.toml
	@[ -x $(VENV)/bin/python ] || $(SYS_PYTHON) -m venv $(VENV) \
	  || $(call fail,venv,$(SYS_PYTHON) -m venv failed: install python3-venv)
	@echo "stash: installing Python packages into .venv"
	@$(VENV)/bin/pip install -q --disable-pip-version-check -r python/requirements-dev.txt $(PIP_FILTER) \
	  || $(call fail,venv,pip could not install python/requirements-dev.txt: check access to PyPI)
	@$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps -r python/requirements-nodeps.txt $(PIP_FILTER) \
	  || $(call fail,venv,pip could not install python/requirements-nodeps.txt: check access to PyPI)
	@$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e python -e mcp_server $(PIP_FILTER) \
	  || $(call fail,venv,pip could not install the stash packages from python/ and mcp_server/)
	@touch $@

# The server side: dependencies, then our package copied beside them, readable by the server.
$(RUNTIME)/pydeps/.stamp: $(STAMPS)/apt python/requirements-server.txt python/requirements-nodeps.txt
	@echo "stash: installing the server-side Python dependencies into $(RUNTIME)/pydeps"
	@mkdir -p $(RUNTIME) && rm -rf $(RUNTIME)/pydeps.tmp
	@$(SYS_PYTHON) -m pip install -q --disable-pip-version-check --no-warn-script-location \
	    --target $(RUNTIME)/pydeps.tmp -r python/requirements-server.txt $(PIP_FILTER) \
	  || $(call fail,server python packages,pip could not install python/requirements-server.txt: check access to PyPI)
	@$(SYS_PYTHON) -m pip install -q --disable-pip-version-check --no-warn-script-location --no-deps \
	    --target $(RUNTIME)/pydeps.tmp -r python/requirements-nodeps.txt $(PIP_FILTER) \
	  || $(call fail,server python packages,pip could not install python/requirements-nodeps.txt: check access to PyPI)
	@rm -rf $(RUNTIME)/pydeps && mv $(RUNTIME)/pydeps.tmp $(RUNTIME)/pydeps && chmod -R a+rX $(RUNTIME)/pydeps
	@touch $@

$(PYLIB)/.stamp: $(RUNTIME)/pydeps/.stamp $(PY_SOURCES)
	@rm -rf $(PYLIB).tmp && mkdir -p $(PYLIB).tmp
	@cp -r python/stash $(PYLIB).tmp/stash && find $(PYLIB).tmp -name __pycache__ -prune -exec rm -rf {} +
	@rm -rf $(PYLIB) && mv $(PYLIB).tmp $(PYLIB) && chmod -R a+rX $(PYLIB) && chmod a+rx $(RUNTIME)
	@mkdir -p $(STATE) && ln -sfn $(PYLIB) $(STATE)/pylib
	@touch $@

# ---------------------------------------------------------------------------------------------
# Clusters: $(call cluster-start,dir,port,listen,extra-conf) initialises (once) and starts one.
# ---------------------------------------------------------------------------------------------

define cluster-start
	d=$(1); mkdir -p $$d/run $$d/log; chown $(PG_OS_USER) $$d $$d/run $$d/log; chmod 0755 $$d; chmod 0700 $$d/run
	if [ ! -f $$d/data/PG_VERSION ]; then
	  (cd / && $(AS_PG) $(PG_BIN)/initdb -D $$d/data -E UTF8 --locale=C.UTF-8 -U postgres \
	     --auth-local=trust --auth-host=scram-sha-256 >$$d/log/initdb.log 2>&1) \
	    || $(call fail,cluster,initdb failed; see $$d/log/initdb.log)
	  echo "include = 'stash.conf'" >> $$d/data/postgresql.conf
	fi
	printf '%s\n' "port = $(2)" "listen_addresses = '$(3)'" "unix_socket_directories = '$$d/run'" \
	  "shared_preload_libraries = 'pg_cron'" "cron.database_name = 'stash'" "cron.host = '$$d/run'" \
	  "max_connections = 50" "shared_buffers = 256MB" "maintenance_work_mem = 256MB" \
	  "max_parallel_maintenance_workers = 2" "log_min_messages = warning" $(4) > $$d/data/stash.conf
	chown $(PG_OS_USER) $$d/data/stash.conf
	if ! (cd / && $(AS_PG) $(PG_BIN)/pg_ctl -D $$d/data status >/dev/null 2>&1); then
	  if [ -n "$(3)" ] && (exec 3<>/dev/tcp/127.0.0.1/$(2)) 2>/dev/null; then
	    $(call fail,cluster,port $(2) on 127.0.0.1 is taken by another program: stop it or choose another port with STASH_PGPORT=<port>)
	  fi
	  (cd / && $(AS_PG) env PYTHONPATH=$(PYLIB):$(RUNTIME)/pydeps $(PG_BIN)/pg_ctl -D $$d/data \
	     -l $$d/log/postgresql.log -w -t 60 start >/dev/null) \
	    || $(call fail,cluster,the server did not start; see $$d/log/postgresql.log)
	fi
	$(PG_BIN)/psql -X -q -h $$d/run -p $(2) -U postgres -d postgres -tAc \
	  "select 1 from pg_database where datname = 'stash'" | grep -q 1 \
	  || $(PG_BIN)/createdb -h $$d/run -p $(2) -U postgres stash
endef

# $(call deploy-db,dir,port): sqitch changes (run-once DDL), then sql/ (re-runnable code) in one
# transaction (README "Schema changes"). The code is re-applied only when sql/ or the deployed
# sqitch state changed, so a second `make up` changes nothing.
define deploy-db
	export PGHOST=$(1)/run PGPORT=$(2) PGUSER=postgres PGDATABASE=stash $(SQITCH_ENV)
	sqitch --quiet deploy --verify db:pg: $(if $(filter command line environment,$(origin STASH_EMBED_DIM)),--set embed_dim=$(STASH_EMBED_DIM)) \
	  || $(call fail,deploy,sqitch deploy failed; the message above names the change)
	code=$$(cat $(SQL_CODE) | sha256sum | cut -c1-16)-$$($(PG_BIN)/psql -X -tAc "select max(committed_at) from sqitch.events")
	if [ "$$code" != "$$($(PG_BIN)/psql -X -tAc "select value->>0 from stash.settings where key = 'code.version'")" ]; then
	  PGOPTIONS="-c client_min_messages=warning" $(PG_BIN)/psql -X -q -v ON_ERROR_STOP=1 -1 $(addprefix -f ,$(SQL_CODE)) \
	    -c "insert into stash.settings (key, value, description) values ('code.version', jsonb_build_array('$$code'), 'sql/ digest and sqitch state the code was applied for') on conflict (key) do update set value = excluded.value, updated_at = now()" >/dev/null \
	    || $(call fail,deploy,applying sql/ failed; the message above names the file)
	fi
endef

up: install
	@$(call cluster-start,$(RUNTIME),$(STASH_PGPORT),localhost,)
	@$(call deploy-db,$(RUNTIME),$(STASH_PGPORT))
	@$(PG_BIN)/psql -X -q -h $(RUNTIME)/run -p $(STASH_PGPORT) -U postgres -d stash -c 'select stash.schedule_defaults()' >/dev/null
	@ln -sfn $(RUNTIME)/data $(STATE)/data; ln -sfn $(RUNTIME)/run $(STATE)/run; ln -sfn $(RUNTIME)/log $(STATE)/log
	@printf '%s\n' "export PGHOST=$(RUNTIME)/run" "export PGPORT=$(STASH_PGPORT)" "export PGDATABASE=stash" \
	  "export PGUSER=postgres" > $(STATE)/env
	@echo "stash: database up. Connect with:  . .stash/env && psql"

# DEPLOY_RT/DEPLOY_PORT pick another cluster (the tests redeploy their own this way).
DEPLOY_RT   ?= $(RUNTIME)
DEPLOY_PORT ?= $(STASH_PGPORT)
deploy: $(PYLIB)/.stamp
	@$(call deploy-db,$(DEPLOY_RT),$(DEPLOY_PORT))

revert:
	@export PGHOST=$(DEPLOY_RT)/run PGPORT=$(DEPLOY_PORT) PGUSER=postgres PGDATABASE=stash $(SQITCH_ENV)
	sqitch revert -y db:pg: $(REVERT_TO)

down:
	@if [ -f $(RUNTIME)/data/PG_VERSION ]; then \
	  (cd / && $(AS_PG) $(PG_BIN)/pg_ctl -D $(RUNTIME)/data status >/dev/null 2>&1 \
	    && $(AS_PG) $(PG_BIN)/pg_ctl -D $(RUNTIME)/data -m fast -w stop >/dev/null) || true; \
	fi
	@echo "stash: database stopped"

psql:
	@. $(STATE)/env && exec $(PG_BIN)/psql

run: up
	@echo "stash: agent clients that start their own servers (stdio) use: $(VENV)/bin/stash mcp"
	@. $(STATE)/env && exec $(VENV)/bin/stash mcp --transport http

# ---------------------------------------------------------------------------------------------
# Tests: a throwaway cluster on its own port, socket only, so the user's cluster is never touched.
# ---------------------------------------------------------------------------------------------

TEST_RT := $(RUNTIME)/test
# Narrow a run while developing: make test PGTAP=tests/pgtap/050_remember.sql PYTEST=tests/python/test_x.py
PGTAP  ?= tests/pgtap/*.sql
PYTEST ?= tests/python

test: install
	@$(MAKE) clean-test
	trap '$(MAKE) clean-test' EXIT
	$(call cluster-start,$(TEST_RT),$(STASH_TEST_PGPORT),,"fsync = off" "synchronous_commit = off" "full_page_writes = off")
	$(call deploy-db,$(TEST_RT),$(STASH_TEST_PGPORT))
	$(PG_BIN)/psql -X -q -c 'create extension if not exists pgtap'
	status=0
	pg_prove --failures $(PGTAP) || status=1
	STASH_TEST_CLUSTER=$(TEST_RT) PYTHONPATH= $(VENV)/bin/python -m pytest -q --tb=short -p no:cacheprovider $(PYTEST) || status=1
	exit $$status

clean-test:
	@if [ -f $(TEST_RT)/data/PG_VERSION ]; then \
	  (cd / && $(AS_PG) $(PG_BIN)/pg_ctl -D $(TEST_RT)/data -m immediate -w stop >/dev/null 2>&1) || true; \
	fi
	@rm -rf $(TEST_RT)

lint: $(STAMPS)/venv
	@$(VENV)/bin/ruff check --config python/pyproject.toml python mcp_server tests bench
	@$(VENV)/bin/ruff format --config python/pyproject.toml --check python mcp_server tests bench

# Benchmarks get their own throwaway cluster too: they load 100k rows and rebuild indexes.
BENCH_RT := $(RUNTIME)/bench
STASH_BENCH_PGPORT ?= 54349
bench: install
	@$(MAKE) clean-bench
	trap '$(MAKE) clean-bench' EXIT
	$(call cluster-start,$(BENCH_RT),$(STASH_BENCH_PGPORT),,)
	$(call deploy-db,$(BENCH_RT),$(STASH_BENCH_PGPORT))
	PYTHONPATH= $(VENV)/bin/python bench/run.py

clean-bench:
	@if [ -f $(BENCH_RT)/data/PG_VERSION ]; then \
	  (cd / && $(AS_PG) $(PG_BIN)/pg_ctl -D $(BENCH_RT)/data -m immediate -w stop >/dev/null 2>&1) || true; \
	fi
	@rm -rf $(BENCH_RT)

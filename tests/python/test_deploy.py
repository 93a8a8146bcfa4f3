"""Deploy, verify, revert to zero, deploy again: the catalog comes back exactly the same.

The schema model (README "Schema changes"): sqitch owns run-once DDL, sql/ owns re-runnable
code applied after every deploy. This test proves both halves: a full revert and redeploy, a
partial revert of the newest change and redeploy, and a forced re-application of sql/ each
leave the same catalog as the fresh deploy `make test` started with.
"""

import os
import subprocess

import psycopg
from conftest import ROOT, TEST_RT

PG_BIN = "/usr/lib/postgresql/15/bin"
PORT = os.environ["PGPORT"]


def make(*args):
    done = subprocess.run(
        ["make", "-s", "-C", str(ROOT), *args, f"DEPLOY_RT={TEST_RT}", f"DEPLOY_PORT={PORT}"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def catalog():
    """The stash schema's DDL, comments and privileges, as pg_dump prints them (stable order)."""
    out = subprocess.run(
        [f"{PG_BIN}/pg_dump", "--schema-only", "--schema=stash"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    # Drop the header and pg_dump's per-run random \restrict key.
    noise = ("-- Dumped", "\\restrict", "\\unrestrict")
    return [line for line in out.splitlines() if not line.startswith(noise)]


def scalar(sql):
    with psycopg.connect(autocommit=True) as c:
        return c.execute(sql).fetchone()[0]


def test_revert_to_zero_and_redeploy_gives_the_same_catalog():
    fresh = catalog()
    assert "CREATE TABLE stash.episodes (" in fresh

    make("revert")
    assert scalar("select count(*) from pg_namespace where nspname = 'stash'") == 0
    assert (
        scalar("select count(*) from pg_extension where extname in ('vector', 'pg_cron', 'plpython3u')") == 0
    )
    assert scalar("select count(*) from pg_roles where rolname like 'stash\\_%'") == 0

    make("deploy")
    assert catalog() == fresh
    assert scalar("select value::int from stash.settings where key = 'embedding.dimension'") > 0


def test_partial_revert_and_redeploy_reapplies_the_code():
    fresh = catalog()
    # Reverting the episodes table drops its trigger (code) with it; the redeploy must restore both.
    make("revert", "REVERT_TO=--to table_namespaces")
    assert scalar("select to_regclass('stash.episodes')") is None
    make("deploy")
    assert catalog() == fresh
    assert scalar("select count(*) from pg_trigger where tgname = 'episodes_immutable'") == 1


def test_reapplying_the_code_changes_nothing():
    fresh = catalog()
    with psycopg.connect(autocommit=True) as c:
        c.execute("delete from stash.settings where key = 'code.version'")
    make("deploy")  # the code is applied again: every function dropped and recreated
    assert catalog() == fresh
    make("deploy")  # and now skipped: nothing changed
    assert catalog() == fresh


def test_verify_scripts_fail_when_the_object_is_wrong():
    """A verify script that cannot fail is no check: break a table and watch sqitch verify refuse."""
    env = {**os.environ, "SQITCH_FULLNAME": "stash", "SQITCH_EMAIL": "stash@localhost"}
    ok = subprocess.run(["sqitch", "verify", "db:pg:"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    with psycopg.connect(autocommit=True) as c:
        c.execute("grant insert on stash.settings to stash_reader")
        try:
            bad = subprocess.run(
                ["sqitch", "verify", "db:pg:"], cwd=ROOT, env=env, capture_output=True, text=True
            )
        finally:
            c.execute("revoke insert on stash.settings from stash_reader")
    assert bad.returncode != 0
    assert "table_settings" in bad.stdout + bad.stderr

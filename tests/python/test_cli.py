"""The `stash` command: each memory command calls its SQL function; tables for people, --json for
scripts; errors on stderr with the SQLSTATE; exit codes 0 / 1 (refused) / 2 (usage) / 3 (no database)."""

import json
import os
import subprocess

import psycopg
import pytest
from conftest import ROOT, purge_namespace

STASH = str(ROOT / ".venv" / "bin" / "stash")
PG_ENV = {k: os.environ[k] for k in ("PGHOST", "PGPORT", "PGDATABASE", "PGUSER") if k in os.environ}
NS = "/cli/test"


def stash(*args, env=None):
    return subprocess.run(
        [STASH, *args],
        env={"PATH": os.environ["PATH"], **(PG_ENV if env is None else env)},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def db():
    with psycopg.connect(autocommit=True) as c:
        purge_namespace(c, NS)
        yield c
        purge_namespace(c, NS)


def test_a_terminal_session(db):
    r = stash("namespaces", "create", NS, "--description", "from the CLI")
    assert r.returncode == 0 and NS in r.stdout
    r = stash("remember", "Alice lives in Paris", "-n", NS, "--metadata", '{"k": 1}', "--json")
    episode = json.loads(r.stdout)["id"]
    assert db.execute("select source, metadata from stash.episodes where id = %s", (episode,)).fetchone() == (
        "cli",
        {"k": 1},
    )
    stash("remember", "Alice works at Acme", "-n", NS)
    r = stash("recall", "where does Alice live", "-n", NS, "--limit", "2")
    assert r.returncode == 0 and r.stdout.splitlines()[0].split()[:3] == ["KIND", "ID", "NAMESPACE"]
    assert "Alice lives in Paris" in r.stdout
    r = stash("consolidate", NS)
    assert r.returncode == 0 and "stage facts done" in r.stderr and "stage decay done" in r.stderr
    facts = json.loads(stash("facts", "list", "-n", NS, "--json").stdout)["results"]
    assert {f["value"] for f in facts} == {"Paris", "Acme"}
    r = stash("goals", "create", "Ship it", "-n", NS, "--priority", "5", "--json")
    goal = json.loads(r.stdout)["id"]
    assert stash("goals", "complete", str(goal)).returncode == 0
    assert db.execute("select status from stash.goals where id = %s", (goal,)).fetchone() == ("completed",)
    r = stash(
        "failures", "create", "Cache warmup", "-n", NS, "--reason", "OOM", "--lesson", "batch it", "--json"
    )
    assert json.loads(r.stdout)["lesson"] == "batch it"
    r = stash("hypotheses", "create", "Alice will move", "-n", NS, "--plan", "ask", "--json")
    assert json.loads(r.stdout)["status"] == "proposed"
    assert stash("schedules", "add", NS, "*/30 * * * *").returncode == 0
    status = json.loads(stash("schedules", "status", "-n", NS, "--json").stdout)
    assert any(s["namespace"] == NS for s in status["schedules"]) and status["runs"]
    assert stash("schedules", "remove", NS).returncode == 0
    preview = json.loads(stash("forget", "Alice works at Acme", "-n", NS, "--dry-run", "--json").stdout)
    assert preview["results"][0]["forgotten"] is False
    status = json.loads(stash("status", "--json").stdout)
    assert status["extensions"]["vector"] and status["embedder"]["provider"] == "local"


def test_errors_and_exit_codes(db):
    r = stash("recall", "")
    assert r.returncode == 1 and "SQLSTATE 22023" in r.stderr and r.stdout == ""
    r = stash("goals", "get", "999999999")
    assert r.returncode == 1 and "SQLSTATE P0002" in r.stderr
    r = stash("remember", "x", "-n", "/no/such/namespace")
    assert r.returncode == 1 and "P0002" in r.stderr and "HINT" in r.stderr
    assert stash("recall").returncode == 2  # argparse: missing query
    assert stash("recall", "x", "--limit", "100000").returncode == 2  # the schema's bound
    assert stash("purge", "--namespace", NS).returncode == 2  # without --yes
    r = stash("status", env={"PGHOST": "127.0.0.1", "PGPORT": "1"})
    assert r.returncode == 3 and "unreachable" in r.stderr
    for args in ([], ["goals"], ["facts", "list"], ["mcp"]):
        assert stash(*args, "--help").returncode == 0

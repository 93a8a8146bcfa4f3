"""Faults, each shown to lose nothing: concurrent consolidations beside concurrent writers, a
reasoner answering truncated JSON, the database restarted in the middle of a consolidation, and a
hot standby serving recall. (Embedder down or slow: test_embedding_in_db.py; reasoner down and
timing out: test_consolidation.py.)"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import threading
import time

import psycopg
import pytest
from conftest import TEST_RT, one, purge_namespace
from fake_openai import FakeOpenAI, use_as_reasoner, well_behaved

PG_BIN = pathlib.Path("/usr/lib/postgresql/15/bin")


def as_postgres(*cmd: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run a server binary as the OS user that owns the cluster (root may not)."""
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run(
        [*prefix, "env", *(f"{k}={v}" for k, v in (env or {}).items()), *cmd],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
    )


def server_pythonpath() -> str:
    """The running server's PYTHONPATH (plpython3u imports the stash package from it)."""
    pid = (pathlib.Path(TEST_RT) / "data" / "postmaster.pid").read_text().split()[0]
    for item in pathlib.Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
        if item.startswith(b"PYTHONPATH="):
            return item.split(b"=", 1)[1].decode()
    raise AssertionError("the test server has no PYTHONPATH")


def fresh(c, path: str) -> None:
    purge_namespace(c, path)
    c.execute("select stash.create_namespace(%s)", (path,))


def test_concurrent_consolidations_and_writers_lose_nothing_and_duplicate_nothing():
    ns = "/faults/concurrent"
    with psycopg.connect(autocommit=True) as c:
        fresh(c, ns)
    acknowledged: list[int] = []
    asserted: list[int] = []
    checkpoints: list[int] = []
    errors: list[BaseException] = []
    writing = threading.Event()
    writing.set()

    def writer(w: int) -> None:
        try:
            with psycopg.connect(autocommit=True) as c:
                for i in range(30):
                    text = f"Person{w}x{i} lives in Town{w}x{i}"
                    acknowledged.append(one(c, "select stash.remember(%s, %s)", ns, text))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def fact_writer(w: int) -> None:
        # Facts written by clients go through the fact stages too (relationships, causal, ...).
        try:
            with psycopg.connect(autocommit=True) as c:
                for i in range(15):
                    asserted.append(
                        one(
                            c,
                            "select id from stash.assert_fact(%s, %s, %s, 'uses', %s)",
                            ns,
                            f"Team{w}x{i} uses Tool{w}x{i}",
                            f"Team{w}x{i}",
                            f"Tool{w}x{i}",
                        )
                    )
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    def consolidator() -> None:
        try:
            with psycopg.connect(autocommit=True) as c:
                while writing.is_set():
                    c.execute("select stash.consolidate(%s)", (ns,))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    def monitor() -> None:
        with psycopg.connect(autocommit=True) as c:
            nid = one(c, "select id from stash.namespaces where path = %s", ns)
            while writing.is_set():
                checkpoints.append(one(c, "select stash._checkpoint(%s, 'facts')", nid))
                time.sleep(0.01)

    writers = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    writers += [threading.Thread(target=fact_writer, args=(w,)) for w in range(2)]
    others = [threading.Thread(target=consolidator) for _ in range(4)] + [threading.Thread(target=monitor)]
    for t in writers + others:
        t.start()
    for t in writers:
        t.join()
    writing.clear()
    for t in others:
        t.join()
    assert not errors, errors
    with psycopg.connect(autocommit=True) as c:
        while one(c, "select (stash.consolidate(%s)->>'episodes_read')::int", ns):
            pass
        nid = one(c, "select id from stash.namespaces where path = %s", ns)
        assert len(acknowledged) == 120
        assert one(c, "select count(*) from stash.episodes where id = any(%s)", acknowledged) == 120
        # Every acknowledged episode became knowledge, once: none skipped by the checkpoint.
        assert (
            one(
                c,
                "select count(distinct episode_id) from stash.fact_sources where episode_id = any(%s)",
                acknowledged,
            )
            == 120
        )
        assert (
            one(
                c,
                "select count(*) from (select entity_key, property_key, value from stash.facts "
                "where namespace_id = %s and superseded_by is null and deleted_at is null "
                "group by 1, 2, 3 having count(*) > 1) d",
                nid,
            )
            == 0
        )
        assert (
            one(
                c,
                "select count(*) from stash.consolidation_runs where namespace_id = %s and status = 'failed'",
                nid,
            )
            == 0
        )
        c.execute("select stash.purge(namespace => %s)", (ns,))
    assert checkpoints == sorted(checkpoints), "a checkpoint moved back"


def test_truncated_json_fails_the_items_and_the_next_run_completes_them():
    ns = "/faults/truncated"
    with psycopg.connect(autocommit=True) as c, FakeOpenAI() as llm:
        fresh(c, ns)
        use_as_reasoner(c, ns, llm.base_url, timeout=30, max_retries=0)
        c.execute(
            "select stash.remember_many(%s, %s)", (ns, ["The release is on Monday", "The team uses Go"])
        )
        llm.chat_responder = lambda body: '{"entity": "team", "prop'  # cut off mid-answer
        result = c.execute("select stash.consolidate(%s) -> 'namespaces' -> 0", (ns,)).fetchone()[0]
        nid = one(c, "select id from stash.namespaces where path = %s", ns)
        assert result["facts_created"] == 0 and result["items_failed"] >= 1
        assert one(c, "select count(*) from stash.facts where namespace_id = %s", nid) == 0, (
            "no partial facts"
        )
        assert (
            one(
                c,
                "select count(*) from stash.consolidation_failures where namespace_id = %s and not dead",
                nid,
            )
            >= 1
        )
        llm.chat_responder = well_behaved
        c.execute("select stash.consolidate(%s)", (ns,))
        assert (
            one(
                c,
                "select count(distinct s.episode_id) from stash.fact_sources s where s.namespace_id = %s",
                nid,
            )
            == 2
        )
        assert one(c, "select count(*) from stash.consolidation_failures where namespace_id = %s", nid) == 0
        c.execute("select stash.purge(namespace => %s)", (ns,))


def test_a_database_restart_in_the_middle_of_a_consolidation_loses_nothing():
    ns = "/faults/restart"
    data = pathlib.Path(TEST_RT) / "data"
    with psycopg.connect(autocommit=True) as c:
        fresh(c, ns)
        # Unlike each other, so each is its own cluster and model call (the run takes 6 s or more).
        said = [
            "The deploy runs on Fridays",
            "Billing moved to Stripe",
            "The cache uses Redis",
            "Hiring is paused until March",
            "Backups run nightly at two",
            "Prices double in May",
        ]
        c.execute("select stash.remember_many(%s, %s)", (ns, said))
        nid = one(c, "select id from stash.namespaces where path = %s", ns)
    pythonpath = server_pythonpath()

    def slow(body: dict) -> str:
        time.sleep(1)
        return well_behaved(body)

    with FakeOpenAI() as llm:
        llm.chat_responder = slow
        with psycopg.connect(autocommit=True) as c:
            use_as_reasoner(c, ns, llm.base_url, timeout=30, max_retries=0)
        outcome: list[BaseException] = []

        def run() -> None:
            try:
                with psycopg.connect(autocommit=True) as c:
                    c.execute("select stash.consolidate(%s)", (ns,))
            except BaseException as e:  # noqa: BLE001
                outcome.append(e)

        t = threading.Thread(target=run)
        t.start()
        time.sleep(2.5)  # inside the facts stage, a few model calls in
        restarted = as_postgres(
            str(PG_BIN / "pg_ctl"),
            "-D",
            str(data),
            "-m",
            "immediate",
            "-w",
            "-t",
            "60",
            "-l",
            str(pathlib.Path(TEST_RT) / "log" / "postgresql.log"),
            "restart",
            env={"PYTHONPATH": pythonpath},
        )
        assert restarted.returncode == 0, restarted.stderr
        t.join(30)
        assert outcome and isinstance(outcome[0], psycopg.OperationalError), "the consolidation was cut off"
        with psycopg.connect(autocommit=True) as c:
            # One transaction, never committed: no run, no fact, no checkpoint; every episode there.
            assert one(c, "select count(*) from stash.consolidation_runs where namespace_id = %s", nid) == 0
            assert one(c, "select count(*) from stash.facts where namespace_id = %s", nid) == 0
            assert (
                one(c, "select count(*) from stash.consolidation_progress where namespace_id = %s", nid) == 0
            )
            assert one(c, "select count(*) from stash.episodes where namespace_id = %s", nid) == 6
            llm.chat_responder = well_behaved
            c.execute("select stash.consolidate(%s)", (ns,))
            assert (
                one(
                    c,
                    "select count(distinct episode_id) from stash.fact_sources where namespace_id = %s",
                    nid,
                )
                == 6
            )
            c.execute("select stash.purge(namespace => %s)", (ns,))


@pytest.fixture
def standby():
    """A hot standby streaming from the test cluster, on its own socket and port."""
    root = pathlib.Path(TEST_RT) / "standby"
    shutil.rmtree(root, ignore_errors=True)
    (root / "run").mkdir(parents=True)
    shutil.chown(root, "postgres") if os.geteuid() == 0 else None
    shutil.chown(root / "run", "postgres") if os.geteuid() == 0 else None
    port = int(os.environ["PGPORT"]) + 1
    made = as_postgres(
        str(PG_BIN / "pg_basebackup"),
        "-h",
        os.environ["PGHOST"],
        "-p",
        os.environ["PGPORT"],
        "-U",
        "postgres",
        "-D",
        str(root / "data"),
        "-R",
        "-X",
        "stream",
        "-c",
        "fast",
    )
    assert made.returncode == 0, made.stderr
    with open(root / "data" / "postgresql.auto.conf", "a") as conf:
        conf.write(f"port = {port}\nunix_socket_directories = '{root / 'run'}'\nhot_standby = on\n")
    started = as_postgres(
        str(PG_BIN / "pg_ctl"),
        "-D",
        str(root / "data"),
        "-l",
        str(root / "postgresql.log"),
        "-w",
        "-t",
        "60",
        "start",
        env={"PYTHONPATH": server_pythonpath()},
    )
    assert started.returncode == 0, started.stderr + (root / "postgresql.log").read_text()
    try:
        yield {"host": str(root / "run"), "port": port, "dbname": "stash", "user": "postgres"}
    finally:
        as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(root / "data"), "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)


def test_a_hot_standby_serves_recall_and_refuses_writes(standby):
    ns = "/faults/standby"
    with psycopg.connect(autocommit=True) as c:
        fresh(c, ns)
        c.execute("select stash.remember(%s, 'The standby should find this lighthouse keeper note')", (ns,))
        lsn = one(c, "select pg_current_wal_lsn()::text")
    with psycopg.connect(autocommit=True, **standby) as s:
        deadline = time.monotonic() + 30
        while one(s, "select pg_last_wal_replay_lsn() < %s::pg_lsn", lsn):
            assert time.monotonic() < deadline, "the standby did not catch up"
            time.sleep(0.1)
        assert one(s, "select pg_is_in_recovery()")
        hits = s.execute("select content from stash.recall('lighthouse keeper', %s)", ([ns],)).fetchall()
        assert hits[0][0] == "The standby should find this lighthouse keeper note"
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            s.execute("select stash.remember(%s, 'no writes here')", (ns,))
        assert one(s, "select (stash.status()->>'read_only')::boolean")
    with psycopg.connect(autocommit=True) as c:
        c.execute("select stash.purge(namespace => %s)", (ns,))


def test_rows_committed_after_a_later_id_are_still_consolidated():
    """The race behind the ingest lock, made deterministic: an episode and a fact get their ids,
    then stay uncommitted while later ones commit and a consolidation runs."""
    ns = "/faults/late"
    with psycopg.connect(autocommit=True) as c:
        fresh(c, ns)
        nid = one(c, "select id from stash.namespaces where path = %s", ns)
    with psycopg.connect() as slow, psycopg.connect(autocommit=True) as c:
        early_episode = one(slow, "select stash.remember(%s, 'Early Ann lives in Oslo')", ns)
        early_fact = one(
            slow, "select id from stash.assert_fact(%s, 'Early Ann uses Vim', 'Early Ann', 'uses', 'Vim')", ns
        )
        late_episode = one(c, "select stash.remember(%s, 'Late Bo lives in Rome')", ns)
        late_fact = one(
            c, "select id from stash.assert_fact(%s, 'Late Bo uses Emacs', 'Late Bo', 'uses', 'Emacs')", ns
        )
        assert early_episode < late_episode and early_fact < late_fact
        # Writers are in flight: the stages wait briefly, then take nothing new (no checkpoint moves
        # past the uncommitted rows).
        c.execute("select stash.consolidate(%s)", (ns,))
        slow.commit()
        c.execute("select stash.consolidate(%s)", (ns,))
        sourced = c.execute(
            "select array_agg(distinct episode_id) from stash.fact_sources where namespace_id = %s", (nid,)
        ).fetchone()[0]
        assert {early_episode, late_episode} <= set(sourced)
        linked = c.execute(
            "select array_agg(source_fact_id) from stash.relationships where namespace_id = %s", (nid,)
        ).fetchone()[0]
        assert {early_fact, late_fact} <= set(linked)
        c.execute("select stash.purge(namespace => %s)", (ns,))

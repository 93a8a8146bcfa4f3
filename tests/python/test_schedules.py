"""Consolidation without being asked: the automatic run's choice of namespaces and its back-off,
and pg_cron really running a scheduled consolidation through its libpq connection (cron.host)."""

import time

import psycopg
import pytest
from conftest import purge_namespace


@pytest.fixture
def c():
    with psycopg.connect(autocommit=True) as conn:
        yield conn
        for path in ("/auto", "/cronrun"):
            purge_namespace(conn, path)
        conn.execute("select stash.unschedule_consolidation('/cronrun')")


def facts(c, path):
    return c.execute(
        "select count(*) from stash.facts where namespace_id = stash._namespace_id(%s)", (path,)
    ).fetchone()[0]


def test_consolidate_pending_picks_backlogs_and_old_episodes_and_backs_off_failures(c):
    for path in ("/auto/busy", "/auto/quiet", "/auto/old", "/auto/failing"):
        c.execute("select stash.create_namespace(%s)", (path,))
    c.execute(
        "select stash.remember_many('/auto/busy', array(select 'Person' || i || ' lives in Town' || i "
        "from generate_series(1, 10) i))"
    )
    c.execute("select stash.remember('/auto/quiet', 'Alice lives in Paris')")
    c.execute("select stash.remember('/auto/old', 'Bob lives in Rome')")
    c.execute("select stash.remember('/auto/failing', 'Carol lives in Oslo')")
    # Make one waiting episode old (backdating the insert time), and give another namespace a
    # fresh failed run.
    c.execute("alter table stash.episodes disable trigger episodes_immutable")
    try:
        c.execute(
            "update stash.episodes set created_at = now() - interval '1 hour' "
            "where namespace_id in (stash._namespace_id('/auto/old'), stash._namespace_id('/auto/failing'))"
        )
    finally:
        c.execute("alter table stash.episodes enable trigger episodes_immutable")
    c.execute(
        "insert into stash.consolidation_runs (namespace_id, status, finished_at) "
        "values (stash._namespace_id('/auto/failing'), 'failed', now())"
    )
    c.execute("call stash.consolidate_pending()")
    read = c.execute(
        "select sum((counters->>'episodes_read')::int) from stash.consolidation_runs "
        "where namespace_id = stash._namespace_id('/auto/busy')"
    ).fetchone()[0]
    assert read == 10 and facts(c, "/auto/busy") > 0, "a backlog of 10 is consolidated"
    assert facts(c, "/auto/old") == 1, "an episode waiting over 5 minutes is consolidated"
    assert facts(c, "/auto/quiet") == 0, "one fresh episode waits"
    assert facts(c, "/auto/failing") == 0, "a namespace whose last run failed backs off"
    runs = c.execute(
        "select triggered_by, status from stash.consolidation_runs "
        "where namespace_id = stash._namespace_id('/auto/busy')"
    ).fetchall()
    assert runs == [("auto", "succeeded")]


@pytest.mark.slow
def test_pg_cron_runs_a_scheduled_consolidation(c):
    """Waits for pg_cron's next minute: up to ~70 s."""
    c.execute("select stash.create_namespace('/cronrun')")
    c.execute("select stash.remember('/cronrun', 'Dana works at Globex')")
    c.execute("select stash.schedule_consolidation('/cronrun', '* * * * *')")
    deadline = time.monotonic() + 100
    while time.monotonic() < deadline and facts(c, "/cronrun") == 0:
        time.sleep(2)
    status = c.execute(
        "select last_status, last_message from stash.consolidation_schedules "
        "where job = 'stash.consolidate:/cronrun'"
    ).fetchone()
    assert facts(c, "/cronrun") == 1, f"pg_cron did not consolidate: {status}"
    run = c.execute(
        "select triggered_by, status from stash.consolidation_runs "
        "where namespace_id = stash._namespace_id('/cronrun')"
    ).fetchone()
    assert run == ("cron", "succeeded")


def test_maintenance_drops_old_cache_rows_and_expired_contexts_and_keeps_the_rest(c):
    c.execute("select stash.create_namespace('/auto/maint')")
    c.execute("select stash.embed(array['a fresh cache row for maintenance'])")
    c.execute("select stash.embed(array['an old cache row for maintenance'])")
    old = c.execute("select sha256(convert_to('an old cache row for maintenance', 'UTF8'))").fetchone()[0]
    fresh = c.execute("select sha256(convert_to('a fresh cache row for maintenance', 'UTF8'))").fetchone()[0]
    c.execute(
        "update stash.embedding_cache set created_at = now() - interval '31 days' where text_hash = %s",
        (old,),
    )
    c.execute("select stash.set_context('/auto/maint', 'soon gone', ttl => '1 second')")
    time.sleep(1.1)
    c.execute("call stash.run_maintenance()")
    cached = {
        r[0]
        for r in c.execute(
            "select text_hash from stash.embedding_cache where text_hash = any(%s)", ([old, fresh],)
        )
    }
    assert cached == {fresh}
    assert not c.execute(
        "select 1 from stash.contexts where namespace_id = stash._namespace_id('/auto/maint')"
    ).fetchone()

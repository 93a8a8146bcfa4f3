"""Two sessions at once: a hypothesis confirmed twice makes one fact; two agents asserting different
values for one (entity, property) leave exactly one current fact, the other superseded."""

import threading

import psycopg
import pytest


@pytest.fixture
def ns():
    path = "/concurrency"
    with psycopg.connect(autocommit=True) as c:
        c.execute("select stash.create_namespace(%s)", (path,))
    yield path
    with psycopg.connect(autocommit=True) as c:
        c.execute("select stash.purge(namespace => %s)", (path,))


def test_two_confirms_of_one_hypothesis_create_one_fact(ns):
    with psycopg.connect(autocommit=True) as c:
        h = c.execute(
            "select id from stash.create_hypothesis(%s, 'Retries cause the duplicate orders')", (ns,)
        ).fetchone()[0]
        c.execute("select stash.test_hypothesis(%s)", (h,))
    first, second = psycopg.connect(), psycopg.connect()
    try:
        first.execute("select stash.confirm_hypothesis(%s)", (h,))  # holds the row lock, uncommitted
        outcome = {}

        def confirm_again():
            try:
                second.execute("select stash.confirm_hypothesis(%s)", (h,))
                second.commit()
                outcome["result"] = "confirmed"
            except psycopg.Error as e:
                second.rollback()
                outcome["result"] = e.sqlstate

        t = threading.Thread(target=confirm_again)
        t.start()
        t.join(0.5)
        assert t.is_alive(), "the second confirm must wait for the first"
        first.commit()
        t.join(10)
        assert outcome["result"] == "55000"
    finally:
        first.close()
        second.close()
    with psycopg.connect() as c:
        facts = c.execute(
            "select count(*) from stash.facts "
            "where origin = 'hypothesis' and namespace_id = stash._namespace_id(%s)",
            (ns,),
        ).fetchone()[0]
        assert facts == 1


def test_concurrent_asserts_of_one_property_leave_one_current_fact(ns):
    barrier = threading.Barrier(4)
    errors = []

    def agent(city):
        try:
            with psycopg.connect(autocommit=True) as c:
                barrier.wait()
                c.execute(
                    "select stash.assert_fact(%s, %s, 'Alice', 'lives in', %s)",
                    (ns, f"Alice lives in {city}", city),
                )
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=agent, args=(city,)) for city in ("Paris", "Rome", "Oslo", "Lima")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    with psycopg.connect() as c:
        current = c.execute("select count(*) from stash.query_facts(array[%s])", (ns,)).fetchone()[0]
        history = c.execute(
            "select count(*) from stash.query_facts(array[%s], include_history => true)", (ns,)
        ).fetchone()[0]
        chained = c.execute(
            "select count(*) from stash.facts "
            "where namespace_id = stash._namespace_id(%s) and superseded_by is not null",
            (ns,),
        ).fetchone()[0]
    assert (current, history, chained) == (1, 4, 3)

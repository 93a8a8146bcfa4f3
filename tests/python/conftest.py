"""Shared fixtures. Tests run only inside `make test`'s throwaway cluster, never the user's."""

import os
import pathlib

import psycopg
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEST_RT = os.environ.get("STASH_TEST_CLUSTER")

if not TEST_RT:
    raise pytest.UsageError(
        "these tests run against the throwaway cluster that `make test` creates; run `make test`"
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: waits on real time (pg_cron); run anyway by make test")


@pytest.fixture
def conn():
    """A connection to the test database (libpq environment set by `make test`), rolled back."""
    with psycopg.connect(autocommit=False) as c:
        yield c
        c.rollback()


def one(c, query: str, *params):
    """The first column of the first row (None if there is no row)."""
    row = c.execute(query, params).fetchone()
    return row[0] if row else None


def purge_namespace(c, path: str) -> None:
    """Remove a namespace subtree a test made, if it is there (autocommit connection)."""
    if one(c, "select 1 from stash.namespaces where path = %s", path):
        c.execute("select stash.purge(namespace => %s)", (path,))

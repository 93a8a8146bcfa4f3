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

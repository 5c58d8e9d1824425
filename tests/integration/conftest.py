"""Stores for integration tests: a SQLite file, and a fresh schema on the machine's PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

POSTGRES_ENV = "SUPERVISE_TEST_POSTGRES_DSN"


def postgres_dsn() -> str:
    dsn = os.environ.get(POSTGRES_ENV)
    if not dsn:
        pytest.skip(
            f"PostgreSQL tests SKIPPED: set {POSTGRES_ENV} (CI sets it to the machine's "
            "server, postgresql://postgres@127.0.0.1:5432/test)"
        )
    return dsn


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A DSN whose search_path is a new, empty schema, dropped after the test."""
    dsn = postgres_dsn()
    import psycopg

    schema = f"supervise_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in dsn else "?"
    try:
        yield f"{dsn}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each store test runs once against SQLite and once against PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'state.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def open_url() -> Iterator[Callable[[str], object]]:
    from supervisor.store import open_store

    opened = []

    def open_(url: str) -> object:
        store = open_store(url, Path("/nonexistent"))
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()

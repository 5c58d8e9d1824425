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


# -- the classifier's seed model ----------------------------------------------------------

CLASSIFIER_ENTRY = "pi_injected_instruction_relay"
_SEED_HOMES: dict[str, Path] = {}


def seed_model_home(factory: pytest.TempPathFactory) -> Path:
    """A state directory holding the coding pack's seed classifier model, built once.

    The model is made by the real command, ``supervise train ENTRY --seed-only``, once per
    test session (unit tests share it too). Treat it as read-only: copy ``models/`` and
    ``keys/`` (:func:`with_seed_model`) into a home a test writes decisions to.
    """
    if "home" not in _SEED_HOMES:
        from click.testing import CliRunner

        from supervisor.cli import cli

        home = factory.mktemp("seed-model")
        out = CliRunner().invoke(
            cli,
            ["--home", str(home), "train", CLASSIFIER_ENTRY, "--seed-only", "--json"],
            env={"SUPERVISE_SIGNING_KEY": None, "SUPERVISE_HOME": None},
            catch_exceptions=False,
        )
        assert out.exit_code == 0, out.output
        _SEED_HOMES["home"] = home
    return _SEED_HOMES["home"]


def with_seed_model(seed_home: Path, home: Path) -> Path:
    """``home`` with a copy of the seed model and the key that signed it."""
    import shutil

    for part in ("keys", "models"):
        shutil.copytree(seed_home / part, home / part, dirs_exist_ok=True)
    return home


@pytest.fixture(scope="session")
def classifier_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared home with the seed model of ``pi_injected_instruction_relay`` (read-only)."""
    return seed_model_home(tmp_path_factory)

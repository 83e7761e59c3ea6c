"""Backends for the store tests: SQLite in tmp_path, PostgreSQL in a scratch schema.

PostgreSQL comes from ``$TABLESIDE_TEST_POSTGRES_URL`` (``scripts/postgres.sh`` starts a local
server and prints one). Without it the PostgreSQL cases are skipped, except under CI (``$CI``
set), where a missing PostgreSQL fails them: CI must test both backends. Every test gets a new
database: a file of its own, or a schema of its own that is dropped afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from tableside.store import Store
from tableside.store.scratch import scratch_schema

POSTGRES_ENV = "TABLESIDE_TEST_POSTGRES_URL"
BACKENDS = ["sqlite", "postgresql"]


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def postgres_base_url() -> str:
    """The test server's URL, or skip (fail under CI) when there is none."""
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if url:
        return url
    if in_ci():
        pytest.fail(f"{POSTGRES_ENV} is not set, and CI must test PostgreSQL (see .ci/run).")
    pytest.skip(f"no PostgreSQL: set {POSTGRES_ENV} (scripts/postgres.sh starts a server)")


@contextmanager
def database_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A URL on a new, empty database of ``backend``."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
        return
    with scratch_schema(postgres_base_url(), prefix="tableside_test") as url:
        yield url


@contextmanager
def sent_statements(store: Store) -> Iterator[list[str]]:
    """The SQL statements sent to the store's database while the block runs, white space folded.

    Through SQLAlchemy, and on the driver itself (the hot path's statements, issue 26: SV-1).
    """
    sent: list[str] = []

    def through_engine(*args: Any) -> None:
        sent.append(" ".join(str(args[2]).split()))

    def on_driver(_connection: Any, sql: str) -> None:
        sent.append(" ".join(sql.split()))

    event.listen(store.engine, "before_cursor_execute", through_engine)
    listeners = store._link.listeners if store._link is not None else []
    listeners.append(on_driver)
    try:
        yield sent
    finally:
        listeners.remove(on_driver)
        event.remove(store.engine, "before_cursor_execute", through_engine)

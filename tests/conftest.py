"""The suite on several xdist workers (issue 23): each worker with its own databases and ports.

- **PostgreSQL**: under xdist each worker moves ``$TABLESIDE_TEST_POSTGRES_URL`` to a database
  of its own on the same server, named after the worker (``tableside_gw0``) and created on
  demand, before any test reads the variable: every scratch schema, LISTEN/NOTIFY channel and
  ``tableside serve`` subprocess of that worker then lives in it.
- **SQLite** files are in each test's ``tmp_path`` (per worker already), **ports** come from
  ``ports.free_port`` (a block per worker).
- **Browsers**: the chromiums of ``test_web_e2e.chromiums`` are kept for the worker's whole
  session and quit at its end (``test_web_e2e.BROWSERS``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import SQLAlchemyError

from tableside.store.url import resolve_url

POSTGRES_ENV = "TABLESIDE_TEST_POSTGRES_URL"


def worker_database(base_url: str, worker: str) -> str:
    """The URL of this worker's own database beside ``base_url``'s (created when missing)."""
    base = resolve_url(base_url)
    name = f"{base.database or 'tableside'}_{worker}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            found = connection.execute(
                text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}
            ).first()
            if found is None:
                connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        admin.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist, this worker's own PostgreSQL database (see the module's note)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if not worker or not url:
        return
    try:
        os.environ[POSTGRES_ENV] = worker_database(url, worker)
    except SQLAlchemyError as error:  # the tests that need the server say so themselves
        print(f"conftest: no database of its own for {worker}: {error}")


@pytest.fixture(scope="session", autouse=True)
def _quit_kept_browsers() -> Iterator[None]:
    """Quit the worker's kept chromiums when its session ends."""
    yield
    import sys

    e2e = sys.modules.get("test_web_e2e")
    if e2e is not None:
        e2e.BROWSERS.quit_all()

"""The suite on several xdist workers (issue 23): each worker with its own databases and ports.

- **PostgreSQL**: under xdist each worker moves ``$TABLESIDE_TEST_POSTGRES_URL`` to a database
  of its own on the same server, named after the worker (``tableside_gw0``) and created on
  demand, before any test reads the variable: every scratch schema, LISTEN/NOTIFY channel and
  ``tableside serve`` subprocess of that worker then lives in it.
- **SQLite** files are in each test's ``tmp_path`` (per worker already), **ports** come from
  ``ports.free_port`` (a block per worker).
- **Browsers**: the chromiums of ``test_web_e2e.chromiums`` are kept for the worker's whole
  session and quit at its end (``test_web_e2e.BROWSERS``).

Each module's tests run on one worker (``--dist loadgroup`` with the scheduler of
``tests/scheduling.py``: they share module-scoped fixtures), but for the heavy agreement modules,
spread test by test; tests whose figures a busy machine could disturb (crash tests, CPU-time
bounds) are one group, run one after another. The slow modules are marked ``slow``, which
``make check`` leaves out.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scheduling import GroupScheduling, make_scheduler, matches
from sqlalchemy import create_engine, text
from sqlalchemy.exc import SQLAlchemyError
from test_store_support import BACKENDS, database_url

from tableside.store.url import resolve_url

POSTGRES_ENV = "TABLESIDE_TEST_POSTGRES_URL"
# Left out of ``make check``: browsers, whole servers and subprocess fleets, the statistical
# agreement and kernel tests, crash tests (module names; a trailing * matches a prefix).
SLOW_MODULES = (
    "test_web_e2e*", "test_simulate_agreement*", "test_simulate_strife_kernel",
    "test_simulate_fast*", "test_simulate_cluster", "test_simulate_sweep", "test_simulate",
    "test_sim_fast", "test_balance_warm", "test_store_crash", "test_war_crash", "test_serve",
    "test_hostile_*", "test_web_shutdown", "test_cli_daemon", "test_cold_start",
    "test_web_notify", "test_web_secrets_strife", "test_web_balance", "test_cli_balance",
    "test_readme_commands", "test_docs_standalone", "test_strife_bruteforce",
    "test_best_bruteforce", "test_openapi_contract",
)  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the slow modules' tests ``slow`` (left out of ``make check``)."""
    for item in items:
        if matches(item.path.stem, SLOW_MODULES):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> GroupScheduling | None:
    """Each module's tests on one worker, read from the node ids (``scheduling.group_of``)."""
    return make_scheduler(config, log)


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


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store's URL on each backend (SQLite; PostgreSQL with its test URL set)."""
    with database_url(request.param, tmp_path) as made:
        yield made


@pytest.fixture(scope="session", autouse=True)
def _quit_kept_browsers() -> Iterator[None]:
    """Quit the worker's kept chromiums when its session ends."""
    yield
    import sys

    e2e = sys.modules.get("test_web_e2e")
    if e2e is not None:
        e2e.BROWSERS.quit_all()

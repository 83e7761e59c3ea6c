"""SQLAlchemy engines for the store: SQLite tuned for a log (WAL, foreign keys, busy timeout).

SQLite's Python driver starts transactions on its own and late; here it is put in autocommit
mode and every transaction begins explicitly, ``BEGIN IMMEDIATE`` for writes (so a writer takes
the write lock first and waits for it, instead of failing halfway) and ``BEGIN`` for reads.
"""

from __future__ import annotations

import json
import sqlite3
import time
from functools import partial
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine

BUSY_TIMEOUT_MS = 15_000
WRITE_OPTION = "tableside_write"

json_dumps = partial(json.dumps, separators=(",", ":"), allow_nan=False, ensure_ascii=False)


def create_store_engine(url: URL) -> Engine:
    """An engine for ``url`` with compact, strict JSON and, for SQLite, the pragmas above.

    Args:
        url: A resolved SQLite or PostgreSQL URL.

    Returns:
        The engine (no connection is made yet).
    """
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    return create_engine(url, json_serializer=json_dumps, pool_pre_ping=True)


def writer(engine: Engine) -> Engine:
    """The same engine, marked so that SQLite transactions begin with ``BEGIN IMMEDIATE``."""
    return engine.execution_options(**{WRITE_OPTION: True})


def _sqlite_engine(url: URL) -> Engine:
    engine = create_engine(
        url, json_serializer=json_dumps, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000}
    )
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    _enable_wal(cursor)
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _enable_wal(cursor: Any) -> None:
    """Switch the database to WAL (a new one; it stays so), retrying while it is locked.

    SQLite refuses the switch at once, without its busy timeout, while another connection is
    switching the same new database, so wait here for up to that timeout instead.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _sqlite_begin(connection: Connection) -> None:
    write = connection.get_execution_options().get(WRITE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

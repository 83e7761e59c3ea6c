"""SQLAlchemy engines for the store: SQLite tuned for a log (WAL, foreign keys, busy timeout).

SQLite's Python driver starts transactions on its own and late; here it is put in autocommit
mode and every transaction begins explicitly, ``BEGIN IMMEDIATE`` for writes (so a writer takes
the write lock first and waits for it, instead of failing halfway) and ``BEGIN`` for reads.
"""

from __future__ import annotations

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine, ExceptionContext

from tableside.store.sqlite import BUSY_TIMEOUT_MS, json_dumps, sqlite_pragmas

__all__ = ["BUSY_TIMEOUT_MS", "create_store_engine", "json_dumps", "writer"]

WRITE_OPTION = "tableside_write"


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
    event.listen(engine, "connect", sqlite_pragmas)
    event.listen(engine, "begin", _sqlite_begin)
    event.listen(engine, "handle_error", _sqlite_read_only)
    return engine


def _sqlite_read_only(context: ExceptionContext) -> None:
    """A database that refused a write as read-only: let no connection of that time serve again.

    SQLite opens a connection read-only, for good, while its file cannot be written, so a pooled
    connection from a read-only spell would refuse every later write even once the database is
    writable again (issue 23). The refusal is treated as a lost connection: SQLAlchemy discards
    the pool's connections of that time, and the next request opens a fresh one.
    """
    if "readonly database" in str(context.original_exception):
        context.is_disconnect = True


def _sqlite_begin(connection: Connection) -> None:
    write = connection.get_execution_options().get(WRITE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

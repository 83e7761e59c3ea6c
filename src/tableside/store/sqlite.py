"""What every connection to a SQLite store does first, and how the store writes JSON.

Shared by the SQLAlchemy engine (``engine.py``) and the command line's quick log (``lite.py``),
so both open a database alike: autocommit mode (transactions begin explicitly), the busy timeout,
WAL, and foreign keys. Imports no SQLAlchemy.
"""

from __future__ import annotations

import json
import sqlite3
import time
from functools import partial
from typing import Any

BUSY_TIMEOUT_MS = 15_000

json_dumps = partial(json.dumps, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
"""The store's JSON: compact, strict (no NaN or infinity), UTF-8 kept as is."""


def sqlite_pragmas(dbapi_connection: Any, _record: Any = None) -> None:
    """Set up a new SQLite connection: autocommit, busy timeout, WAL, foreign keys."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    enable_wal(cursor)
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def enable_wal(cursor: Any) -> None:
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

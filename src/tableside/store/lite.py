"""The command line's quick log: read an encounter's records and append one, without SQLAlchemy.

A War or fight command opens the store, reads one encounter's log and appends one record; on
this machine importing SQLAlchemy alone takes longer than the whole command may
(``bench/cli_startup.py``). So when the store is an existing SQLite file already at the schema
this package ships, and the encounter is played at no web table, the command line reads and
appends through :class:`LiteLog`: Python's own ``sqlite3`` driver, the same connection set-up
(``sqlite.py``), the same rows and checks (``records.py``) and the same refusals as
:meth:`Store.load <tableside.store.db.Store.load>` and :meth:`Store.append
<tableside.store.db.Store.append>`, in the same transactions (``BEGIN`` to read,
``BEGIN IMMEDIATE`` to write).

Everything else goes through :class:`~tableside.store.db.Store`: PostgreSQL (its appends also
send ``NOTIFY``), a new database or one an older Tableside made (the Store migrates it), a web
table's encounter (its decisions and seats), and every other kind of read or write.
``tests/test_store_lite.py`` checks that what one writes the other reads, record for record.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from tableside.encounter.log import LogRecord
from tableside.store.closing import Closing
from tableside.store.records import (
    RECORD_COLUMNS,
    EncounterInfo,
    Rows,
    not_plain_json,
    read_log,
    record_row,
    refuse_append,
    require_appendable,
    require_id,
)
from tableside.store.schema import shipped_head
from tableside.store.sqlite import BUSY_TIMEOUT_MS, json_dumps, sqlite_pragmas

_BUMP = "UPDATE encounters SET revision = ? WHERE id = ? AND revision = ?"
_INSERT = (
    "INSERT INTO log_records (encounter_id, revision, kind, seq, command, events, data)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_AT_TABLE = "SELECT 1 FROM table_encounters WHERE encounter_id = ?"
_JSON_COLUMNS = ("command", "events", "data")


def sqlite_path(db: str | None, environ: dict[str, str] | None = None) -> str | None:
    """The SQLite file a command's ``--db`` (or the environment) names; None: ask the Store.

    None when ``$TABLESIDE_DATABASE_URL`` decides (any URL: the Store reads it) or when the
    path is one the Store's URL parsing might read otherwise (``?``, ``#``, ``%``).
    """
    env = os.environ if environ is None else environ
    if db is None:
        if env.get("TABLESIDE_DATABASE_URL"):
            return None
        db = str(Path(env.get("TABLESIDE_DB_PATH") or "tableside.db").expanduser())
    return None if any(mark in db for mark in "?#%") else db


class LiteLog(Closing):
    """One encounter's log in a SQLite store at the shipped schema (open with :meth:`open`)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    @classmethod
    def open(cls, path: str | None, encounter_id: int) -> LiteLog | None:
        """The quick log of ``encounter_id`` in the SQLite file ``path``, or None.

        None (open the Store instead) unless ``path`` is an existing SQLite file at the schema
        revision this package ships and the encounter is played at no web table. An unknown
        encounter is left to :meth:`load` (the same refusal as the Store's).
        """
        head = shipped_head()
        if path is None or head is None or not os.path.isfile(path):
            return None
        try:
            connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error:
            return None
        try:
            sqlite_pragmas(connection)
            versions = connection.execute("SELECT version_num FROM alembic_version").fetchall()
            at_table = connection.execute(_AT_TABLE, (encounter_id,)).fetchone()
        except sqlite3.Error:
            connection.close()
            return None  # not a store, or an older one: the Store says why or migrates it
        if versions != [(head,)] or at_table is not None:
            connection.close()
            return None
        return cls(connection)

    def close(self) -> None:
        """Close the connection."""
        self._connection.close()

    def load(self, encounter_id: int) -> tuple[EncounterInfo, list[LogRecord]]:
        """An encounter and its whole log, ordered by revision (one consistent read).

        Raises:
            UnknownEncounterError: No encounter has this id.
        """
        cursor = self._connection.cursor()
        cursor.execute("BEGIN")
        try:
            return read_log(_rows(cursor), encounter_id)
        finally:
            cursor.execute("COMMIT")

    def append(self, encounter_id: int, record: LogRecord) -> None:
        """Append one record in one transaction, if no other record came first.

        Raises:
            StaleRevisionError: Another record was appended first (nothing is written).
            UnknownEncounterError: No encounter has this id.
            DataError: The record's revision is below 1, or its JSON is not plain JSON.
        """
        require_id(encounter_id, "encounter")
        require_appendable(record)
        row = record_row(encounter_id, record)
        try:
            values = [_encoded(name, row[name]) for name in ("encounter_id", *RECORD_COLUMNS)]
        except (TypeError, ValueError) as error:  # the JSON encoder refused a value
            raise not_plain_json(encounter_id, record, error) from None
        cursor = self._connection.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        try:
            bumped = cursor.execute(_BUMP, (record.revision, encounter_id, record.revision - 1))
            if bumped.rowcount != 1:
                refuse_append(_rows(cursor), encounter_id, record.revision)
            cursor.execute(_INSERT, values)
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        cursor.execute("COMMIT")


def _encoded(column: str, value: Any) -> Any:
    """A column's value as SQLite keeps it (JSON columns as text; None as NULL)."""
    if column in _JSON_COLUMNS and value is not None:
        return json_dumps(value)
    return value


def _rows(cursor: sqlite3.Cursor) -> Rows:
    """``records.py``'s reads through this cursor (in its transaction)."""
    return lambda sql, params: _decoded(cursor.execute(sql, params))


def _decoded(cursor: sqlite3.Cursor) -> list[tuple[Any, ...]]:
    """A query's rows with their JSON columns (``command``, ``events``, ``data``) decoded."""
    names = [column[0] for column in cursor.description]
    return [
        tuple(
            json.loads(value) if name in _JSON_COLUMNS and value is not None else value
            for name, value in zip(names, row, strict=True)
        )
        for row in cursor.fetchall()
    ]

"""The command line's quick log (``tableside.store.lite``) against the real Store.

It reads and appends without SQLAlchemy only for an existing SQLite store at the shipped
schema and an encounter of no web table; what it writes the Store reads record for record, and
the reverse; its refusals are the Store's. On PostgreSQL the command line opens the Store.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_store import strike
from test_store_support import BACKENDS, database_url

from tableside.cli.encounter_cmds import opened_log
from tableside.encounter.log import Command, LogRecord, RecordKind
from tableside.errors import DataError
from tableside.store import StaleRevisionError, Store, UnknownEncounterError, tables
from tableside.store.lite import LiteLog, sqlite_path
from tableside.store.migrate import downgrade, head_revision
from tableside.store.schema import shipped_head


def sample_log() -> list[LogRecord]:
    move = Command("move", {"to": [1.5, -2, 0]})
    return [
        strike(1, 0),
        LogRecord(2, RecordKind.COMMAND, 1, move, ()),
        LogRecord(3, RecordKind.UNDO),
        LogRecord(4, RecordKind.REDO, 1, move, ()),
        LogRecord(5, RecordKind.REQUEST, 2, Command("strike", {"x": 1}), (), {"requests": []}),
        LogRecord(6, RecordKind.ANSWER, 2, Command("strike", {"x": 1}), (), {"outcome": "x"}),
        strike(7, 3, damage=0),
    ]


@pytest.fixture
def path(tmp_path: Path) -> Iterator[str]:
    """An SQLite store at the shipped schema (made by the Store)."""
    file = str(tmp_path / "store.db")
    Store.open(f"sqlite:///{file}").close()
    yield file


def new_encounter(file: str) -> int:
    with Store.open(f"sqlite:///{file}") as store:
        return store.create_encounter("Bridge ambush", "majesty-war", 7)


def lite(file: str, encounter_id: int) -> LiteLog:
    log = LiteLog.open(file, encounter_id)
    assert log is not None
    return log


def test_what_the_store_writes_the_quick_log_reads(path: str) -> None:
    encounter_id = new_encounter(path)
    with Store.open(f"sqlite:///{path}") as store:
        for record in sample_log():
            store.append(encounter_id, record)
        expected = store.load(encounter_id)
    with lite(path, encounter_id) as log:
        assert log.load(encounter_id) == expected


def test_what_the_quick_log_appends_the_store_reads(path: str) -> None:
    encounter_id = new_encounter(path)
    with lite(path, encounter_id) as log:
        for record in sample_log():
            log.append(encounter_id, record)
    with Store.open(f"sqlite:///{path}") as store:
        info, records = store.load(encounter_id)
        assert (info.revision, records) == (7, sample_log())
        exported = store.export_encounter(encounter_id)
    assert [r["revision"] for r in exported["records"]] == list(range(1, 8))


def test_the_quick_log_keeps_the_same_rows_as_the_store(path: str, tmp_path: Path) -> None:
    """Byte for byte: the JSON text and NULLs in log_records are the Store's own."""
    other = str(tmp_path / "other.db")
    Store.open(f"sqlite:///{other}").close()
    by_store, by_lite = new_encounter(other), new_encounter(path)
    with Store.open(f"sqlite:///{other}") as store:
        for record in sample_log():
            store.append(by_store, record)
    with lite(path, by_lite) as log:
        for record in sample_log():
            log.append(by_lite, record)

    def rows(file: str) -> list[tuple[Any, ...]]:
        with sqlite3.connect(file) as connection:
            return connection.execute(
                "SELECT revision, kind, seq, command, events, data FROM log_records"
                " ORDER BY revision"
            ).fetchall()

    assert rows(path) == rows(other)


def test_the_quick_log_refuses_as_the_store_does(path: str) -> None:
    encounter_id = new_encounter(path)
    with Store.open(f"sqlite:///{path}") as store, lite(path, encounter_id) as log:
        for one in (store, log):
            with pytest.raises(UnknownEncounterError, match="There is no encounter with id 99"):
                one.load(99)
            with pytest.raises(UnknownEncounterError, match="There is no encounter with id 99"):
                one.append(99, strike(1, 0))
        log.append(encounter_id, strike(1, 0))
        messages = []
        for one in (store, log):
            with pytest.raises(StaleRevisionError) as stale:
                one.append(encounter_id, strike(1, 1))
            messages.append(str(stale.value))
            with pytest.raises(DataError) as refused:
                bad = LogRecord(2, RecordKind.COMMAND, 1, Command("x", {"v": math.nan}), ())
                one.append(encounter_id, bad)
            messages.append(str(refused.value))
            with pytest.raises(DataError, match="revision must be 1 or more, got 0"):
                one.append(encounter_id, LogRecord(0, RecordKind.UNDO))
        assert messages[:2] == messages[2:]
        assert "is at revision 1, not the expected revision 0" in messages[0]
        assert store.load(encounter_id)[0].revision == 1  # nothing written by the refusals


def test_the_quick_log_opens_only_a_current_sqlite_store(path: str, tmp_path: Path) -> None:
    encounter_id = new_encounter(path)
    assert shipped_head() == head_revision()
    missing = tmp_path / "missing.db"
    assert LiteLog.open(str(missing), encounter_id) is None
    assert not missing.exists()  # nothing created: the Store creates and migrates a new one
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    assert LiteLog.open(str(junk), encounter_id) is None
    assert LiteLog.open(None, encounter_id) is None
    with lite(path, encounter_id):
        pass
    with Store.open(f"sqlite:///{path}") as store:
        table_id = tables.create_table(store, "Friday", "a" * 64)
        at_table = tables.create_table_encounter(store, table_id, "Mill", "majesty-war", 1)
        assert LiteLog.open(path, at_table) is None  # a web table's encounter: the Store
        assert LiteLog.open(path, encounter_id) is not None
        downgrade(store.engine, "-1")
    assert LiteLog.open(path, encounter_id) is None  # an older schema: the Store migrates it


def test_which_file_the_quick_log_reads() -> None:
    assert sqlite_path("war.db", {}) == "war.db"
    assert sqlite_path(None, {}) == "tableside.db"
    assert sqlite_path(None, {"TABLESIDE_DB_PATH": "x/t.db"}) == "x/t.db"
    assert sqlite_path(None, {"TABLESIDE_DATABASE_URL": "sqlite:///t.db"}) is None
    assert sqlite_path("odd?mode=ro", {}) is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_command_line_reads_and_appends_alike_on_both_backends(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite: the quick log; PostgreSQL: the Store (its appends announce themselves)."""
    with database_url(backend, tmp_path) as url:
        with Store.open(url) as store:
            encounter_id = store.create_encounter("Bridge ambush", "majesty-war", 7)
        db: str | None = None
        if backend == "sqlite":
            db = url.removeprefix("sqlite:///")
            monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
        else:
            monkeypatch.setenv("TABLESIDE_DATABASE_URL", url)
        for record in sample_log():
            with opened_log(db, encounter_id) as log:
                assert isinstance(log, LiteLog if backend == "sqlite" else Store)
                assert log.load(encounter_id)[0].revision == record.revision - 1
                log.append(encounter_id, record)
        with Store.open(url) as store:
            assert store.load(encounter_id)[1] == sample_log()

"""The hot path's statements on the driver itself (issue 26, SV-1 … SV-4; ``store/raw.py``).

What the raw link reads and writes agrees with what SQLAlchemy reads and writes, refusals
included; a driver's failure is SQLAlchemy's ``DBAPIError``; a read-only SQLite spell retires
every connection of its time; a killed PostgreSQL connection is replaced; the Store's close
closes every thread's connection.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import psycopg.pq
import pytest
from sqlalchemy import bindparam, select, text, update
from sqlalchemy.exc import DBAPIError, OperationalError
from test_store import as_json, strike
from test_store_support import BACKENDS, database_url

from tableside.encounter.log import Command, LogRecord, RecordKind
from tableside.errors import DataError
from tableside.store import Store, layers, table_audience, table_log, tables
from tableside.store.db import CHANNEL_QUERY
from tableside.store.errors import StaleRevisionError, StoreError, UnknownEncounterError
from tableside.store.models import EncounterRow
from tableside.store.raw import POSTGRES_CONNECTIONS, TUPLES_OK, Link, Tx
from tableside.store.table_audience import DecisionSettings

HOST, ANN, CY, SESSION = "a" * 64, "b" * 64, "c" * 64, "d" * 64


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database_url(request.param, tmp_path) as made:
        yield made


@pytest.fixture
def stores(url: str) -> Iterator[tuple[Store, Store]]:
    """The same database through the raw link (first) and through SQLAlchemy only (second)."""
    with Store.open(url) as fast, Store.open(url, raw=False) as plain:
        assert fast._link is not None and plain._link is None
        yield fast, plain


def a_table(store: Store) -> tuple[int, int]:
    """A table with two seats, secrecy choices and settings: its id and its encounter's."""
    tid = tables.create_table(store, "Friday", HOST)
    eid = tables.create_table_encounter(store, tid, "Ford", "majesty-war", 3)
    tables.add_seat(store, tid, "Ann", ("Herald",), ANN)
    tables.add_seat(store, tid, "Cy", ("Boss", "Nobody"), CY)
    tables.create_session(store, SESSION, ANN)
    table_audience.set_npcs_secret(store, eid, False)
    table_audience.set_secret(store, eid, "Herald", True)
    table_audience.set_decision_settings(store, eid, DecisionSettings(30, "ask", True, "host"))
    return tid, eid


def hidden(revision: int, seq: int) -> LogRecord:
    return LogRecord(revision, RecordKind.COMMAND, seq, Command("next", {}), ())


def everything(store: Store, tid: int, eid: int) -> list[Any]:
    """Every hot read's answer, for one store."""
    return [
        [table_log.access(store, who, eid) for who in (HOST, ANN, CY, "e" * 64)],
        table_log.access(store, SESSION, eid, session=True),
        table_log.access(store, ANN, 999),
        table_audience.audience(store, eid),
        table_audience.secrecy(store, eid),
        table_audience.hidden_seqs(store, eid),
        table_audience.seats_and_settings(store, tid, eid),
        [(as_json(r), s) for r, s in (table_log.records_after(store, eid, n) for n in (0, 1, 5))],
        store.encounter(eid),
        as_json(store.load(eid)[1]),
        layers.layers(store, eid),
    ]


def test_sv1_the_raw_path_agrees_with_sqlalchemy_read_for_read(
    stores: tuple[Store, Store],
) -> None:
    fast, plain = stores
    tid, eid = a_table(plain)
    assert layers.layers(fast, eid) == layers.layers(plain, eid) == layers.Layers()
    layers.set_fog(plain, eid, (layers.Area(1, 2, 3.5, 4), layers.Area(0, 0, 1, 1)))
    layers.set_background(plain, eid, b"\x89PNG", layers.Placement("image/png", 0, 1, 20, 10.5))
    table_log.append(fast, eid, hidden(1, 0), hidden=True)
    plain.append(eid, strike(2, 1))
    fast.append_all(eid, [strike(3, 2), strike(4, 3, damage=5)])
    table_log.append(plain, eid, hidden(5, 4), hidden=True)
    fast.append(eid, strike(6, 5))
    assert everything(fast, tid, eid) == everything(plain, tid, eid)
    assert table_audience.hidden_seqs(fast, eid) == frozenset({0, 4})
    assert fast.encounter(eid).revision == 6
    assert layers.layers(fast, eid).fog[0] == layers.Area(1, 2, 3.5, 4)


@pytest.mark.parametrize("raw", [True, False])
def test_sv1_the_raw_path_refuses_as_sqlalchemy_does(url: str, raw: bool) -> None:
    with Store.open(url, raw=raw) as store:
        eid = store.create_encounter("Fight", "majesty", 1)
        store.append(eid, strike(1, 0))
        with pytest.raises(StaleRevisionError, match="revision 1"):
            store.append(eid, strike(1, 0))
        with pytest.raises(StaleRevisionError):
            table_log.append(store, eid, hidden(3, 1), hidden=True)
        with pytest.raises(UnknownEncounterError):
            store.append(999, strike(1, 0))
        with pytest.raises(UnknownEncounterError):
            store.encounter(999)
        with pytest.raises(UnknownEncounterError):
            table_log.records_after(store, 999, 0)
        with pytest.raises(DataError, match="not plain JSON"):
            store.append(eid, not_json(2))
        with pytest.raises(DataError, match="not plain JSON"):
            store.append_all(eid, [strike(2, 1), not_json(3)])
        assert store.encounter(eid).revision == 1  # nothing of a refused append was kept
        assert as_json(store.load(eid)[1]) == as_json([strike(1, 0)])
        assert table_audience.hidden_seqs(store, eid) == frozenset()


def not_json(revision: int) -> LogRecord:
    return LogRecord(revision, RecordKind.COMMAND, revision, Command("x", {"n": math.nan}), ())


def test_sv2_sv3_a_read_only_sqlite_connection_retires_every_connection_of_its_time(
    tmp_path: Path,
) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'ro.db'}") as store:
        link = store._link
        assert link is not None
        eid = store.create_encounter("Bridge ambush", "majesty", 7)
        store.encounter(eid)  # a connection opened before the spell
        spell = [True]

        def read_only(connection: Any, sql: str) -> None:
            if sql.startswith("BEGIN") and spell[0]:
                connection.execute("PRAGMA query_only = 1")
                spell[0] = False  # as a connection opened while the file was read-only

        link.listeners.append(read_only)
        with pytest.raises(OperationalError, match="readonly database"):
            store.append(eid, strike(1, 0))
        store.append(eid, strike(1, 0))  # a fresh connection: the write is kept
        assert as_json(store.load(eid)[1]) == as_json([strike(1, 0)])
        # the engine's read-only refusal retires the raw connections too
        before = link._idle[-1]
        with store.engine.connect() as connection:
            raw: Any = connection.connection.dbapi_connection
            raw.execute("PRAGMA query_only = 1")
        with pytest.raises(OperationalError, match="readonly database"):
            store.create_encounter("Other", "majesty", 1)
        store.append(eid, strike(2, 1))
        assert before not in link._idle and store.encounter(eid).revision == 2


def test_sv2_a_driver_failure_is_sqlalchemys_and_its_connection_is_not_reused(url: str) -> None:
    with Store.open(url) as store:
        link = store._link
        assert link is not None
        eid = store.create_encounter("Fight", "majesty", 1)

        def broken(connection: Any, sql: str) -> None:
            if "INSERT INTO log_records" in sql:  # PostgreSQL's is in its append's one statement
                connection.execute("SELECT * FROM no_such_table")

        link.listeners.append(broken)
        store.encounter(eid)
        before = link._idle[-1]
        with pytest.raises(DBAPIError, match="no_such_table"):
            store.append(eid, strike(1, 0))
        link.listeners.remove(broken)
        assert link.open_count() == 0
        assert store.encounter(eid).revision == 0  # rolled back: the bump was not kept
        store.append(eid, strike(1, 0))
        assert link._idle[-1] is not before and store.encounter(eid).revision == 1


def test_sv3_a_killed_postgresql_connection_is_replaced(tmp_path: Path) -> None:
    with database_url("postgresql", tmp_path) as url, Store.open(url) as store:
        link = store._link
        assert link is not None
        tid, eid = a_table(store)

        def kill() -> None:
            pid = link._idle[-1].connection.info.backend_pid  # the one used next
            with store.engine.begin() as connection:
                connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})

        table_log.access(store, ANN, eid)
        kill()
        found = table_log.access(store, ANN, eid)  # a read: its first statement sent again
        assert found is not None and found.holder is not None
        kill()
        store.append(eid, strike(1, 0))  # a write: nothing was done on the killed connection
        kill()
        table_log.append(store, eid, hidden(2, 1), hidden=True)
        assert store.encounter(eid).revision == 2 and link.open_count() == 1
        assert table_audience.hidden_seqs(store, eid) == frozenset({1})
        assert tid > 0


def test_sv4_closing_the_store_closes_every_connection_of_every_thread(url: str) -> None:
    store = Store.open(url)
    link = store._link
    assert link is not None
    eid = store.create_encounter("Fight", "majesty", 1)
    opened: list[Any] = []
    inside, done = threading.Barrier(4), threading.Event()

    def work() -> None:
        with store._hot_read() as tx:  # three transactions at once: three connections
            opened.append(cast(Tx, tx).held.connection)
            inside.wait()
            done.wait(10)

    workers = [threading.Thread(target=work) for _ in range(3)]
    for worker in workers:
        worker.start()
    inside.wait()
    store.encounter(eid)  # a fourth
    assert link.open_count() == 4
    done.set()
    for worker in workers:
        worker.join()
    store.encounter(eid)  # the last one given back serves again
    assert link.open_count() == 4 and len(link._idle) == 4
    opened.append(link._idle[-1].connection)
    with store._hot_read() as tx:  # in use while the store closes: closed as it ends
        opened.append(cast(Tx, tx).held.connection)
        store.close()
        assert link.open_count() == 1 and link._idle == []
        assert tx.execute(text("SELECT 1")).all() == [(1,)]
    assert link.open_count() == 0
    for connection in opened:
        assert_closed(connection)
    with pytest.raises(StoreError, match="closed"):
        store.encounter(eid)


def test_sv4_postgresql_connections_are_capped(tmp_path: Path) -> None:
    with database_url("postgresql", tmp_path) as url, Store.open(url) as store:
        link = store._link
        assert link is not None and link._cap == POSTGRES_CONNECTIONS
        link._cap = 2
        eid = store.create_encounter("Fight", "majesty", 1)
        order: list[str] = []
        with store._hot_read(), store._hot_read():
            waiting = threading.Thread(target=lambda: order.append(str(store.encounter(eid).id)))
            waiting.start()
            waiting.join(0.5)
            assert waiting.is_alive() and link.open_count() == 2  # it waits for one of them
            order.append("given back")
        waiting.join(10)
        assert order == ["given back", str(eid)] and link.open_count() == 2


def assert_closed(connection: Any) -> None:
    """A sqlite3 connection refuses a closed cursor; psycopg's says it is closed."""
    if isinstance(connection, sqlite3.Connection):
        with pytest.raises(Exception, match="closed"):
            connection.execute("SELECT 1")
    else:
        assert connection.closed


def test_sv1_a_store_in_memory_goes_through_sqlalchemy() -> None:
    with Store.open("sqlite://") as store:
        assert store._link is None and not Link.serves(store.engine)
        eid = store.create_encounter("Fight", "majesty", 1)
        store.append(eid, strike(1, 0))
        assert store.encounter(eid).revision == 1


def test_sv1_a_statement_built_per_call_is_refused_not_run_wrong(url: str) -> None:
    with Store.open(url) as store, store._hot_read() as tx:
        listed = select(EncounterRow.id).where(
            EncounterRow.id.in_(bindparam("ids", expanding=True))
        )
        with pytest.raises(ValueError, match="expanding"):
            tx.execute(listed, {"ids": [1, 2]})


def sent_on_driver(store: Store) -> list[str]:
    """What the store's link sends from now on (its listener's list)."""
    sent: list[str] = []
    assert store._link is not None
    store._link.listeners.append(lambda _connection, sql: sent.append(sql.split()[0]))
    return sent


def test_sv20_postgresql_reads_send_no_begin_at_read_committed(tmp_path: Path) -> None:
    with database_url("postgresql", tmp_path) as url, Store.open(url) as store:
        tid, eid = a_table(store)
        sent = sent_on_driver(store)
        assert table_log.access(store, ANN, eid) is not None
        table_audience.audience(store, eid)
        table_log.records_after(store, eid, 0)
        assert "BEGIN" not in sent and len(sent) == 2 + 2 + 3  # the statements alone
        assert store._link is not None and store._link._idle[-1].read_committed
        assert store._link._idle[-1].connection.info.transaction_status == 0  # idle, no tx
        assert tid > 0


def test_sv20_postgresql_reads_keep_their_transaction_at_a_stricter_isolation(
    tmp_path: Path,
) -> None:
    with database_url("postgresql", tmp_path) as base:
        strict = f"{base}%20-cdefault_transaction_isolation%3Drepeatable%5C%20read"
        with Store.open(strict) as store:
            _tid, eid = a_table(store)
            sent = sent_on_driver(store)
            assert table_log.access(store, ANN, eid) is not None
            assert sent[0] == "BEGIN" and len(sent) == 3
            assert store._link is not None and not store._link._idle[-1].read_committed


def test_sv21_a_postgresql_append_is_one_statement_without_begin(tmp_path: Path) -> None:
    with database_url("postgresql", tmp_path) as url, Store.open(url) as store:
        _tid, eid = a_table(store)
        sent = sent_on_driver(store)
        store.append(eid, strike(1, 0))
        table_log.append(store, eid, hidden(2, 1), hidden=True)
        assert sent == ["WITH", "WITH"]  # bump, record, hidden mark and pg_notify at once
        del sent[:]
        store.append_all(eid, [strike(3, 2), strike(4, 3)])
        assert sent == ["BEGIN", "WITH", "WITH"]  # two records: one transaction for both
        del sent[:]
        with pytest.raises(StaleRevisionError, match="revision 4"):
            table_log.append(store, eid, hidden(4, 9), hidden=True)
        assert sent == ["WITH", "SELECT"]  # the refusal's reason is read after: nothing written
        assert store.encounter(eid).revision == 4
        assert table_audience.hidden_seqs(store, eid) == frozenset({1})
        assert [r.revision for r in store.load(eid)[1]] == [1, 2, 3, 4]


def test_sv21_a_lone_write_is_followed_by_reads_only(tmp_path: Path) -> None:
    with database_url("postgresql", tmp_path) as url, Store.open(url) as store:
        eid = store.create_encounter("Fight", "majesty", 1)
        refused = pytest.raises(StoreError, match="one write, then reads only")
        with refused, store._hot_write(lone=True) as connection:
            store._append_one(connection, eid, strike(1, 0))
            store._append_one(connection, eid, strike(2, 1))
        assert store.encounter(eid).revision == 1  # the first was its own transaction


def test_sv21_a_postgresql_append_announces_at_its_commit_only(tmp_path: Path) -> None:
    with database_url("postgresql", tmp_path) as url, Store.open(url) as store:
        eid = store.create_encounter("Fight", "majesty", 1)
        with store.engine.connect() as listening:
            channel = listening.exec_driver_sql(CHANNEL_QUERY).scalar_one()
            listening.exec_driver_sql(f'LISTEN "{channel}"')
            listening.commit()
            store.append(eid, strike(1, 0))
            with pytest.raises(StaleRevisionError):
                store.append(eid, strike(1, 0))
            table_log.append(store, eid, hidden(2, 1), hidden=True)
            driver = listening.connection.dbapi_connection
            assert driver is not None
            listening.exec_driver_sql("SELECT 1")
            payloads = [n.payload for n in driver.notifies(timeout=0.5, stop_after=2)]
        assert payloads == [f"{eid}:1", f"{eid}:2"]


def test_sv22_rows_are_told_by_the_result_status_on_one_cursor_a_connection(url: str) -> None:
    assert TUPLES_OK == psycopg.pq.ExecStatus.TUPLES_OK
    with Store.open(url) as store:
        eid = store.create_encounter("Fight", "majesty", 1)
        store.append(eid, strike(1, 0))
        link = store._link
        assert link is not None
        with link.transaction(write=False) as tx:
            cursor = tx.held.cursor
            assert tx.execute(select(EncounterRow.revision)).all() == [(1,)]
            none = tx.execute(select(EncounterRow.id).where(EncounterRow.id == 999))
            assert none.all() == [] and tx.held.cursor is cursor
        with link.transaction(write=True) as tx:
            changed = tx.execute(
                update(EncounterRow).values(name="Ford").where(EncounterRow.id == eid)
            )
            assert changed.rows == [] and changed.rowcount == 1
        assert as_json(table_log.records_after(store, eid, 0)[0]) == as_json([strike(1, 0)])

"""W-50: ids are never reused, so old records keep naming who acted (issue 22).

SQLite gave a new row the largest id plus one: the last seat removed lent its id to the next
seat added, and old records' ``by: seat:N`` then named the new seat. Migration 0008 rebuilds
the SQLite tables with AUTOINCREMENT (keeping every row and key); PostgreSQL's sequences never
reused an id. Both backends are tested: a fresh store, and an old one (at 0007) upgraded.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text
from test_store_support import database_url

from tableside.store import Store, table_audience, tables
from tableside.store import chat as stored_chat
from tableside.store.migrate import current_revision, downgrade, head_revision, upgrade

HASH = "ab" * 32


def a_hash(n: int) -> str:
    return f"{n:064x}"


def seat(store: Store, table_id: int, name: str, n: int) -> int:
    return tables.add_seat(store, table_id, name, (), a_hash(n)).id


def test_w50_a_removed_seats_id_is_not_given_to_the_next_seat(url: str) -> None:
    with Store.open(url) as store:
        table_id = tables.create_table(store, "Friday", HASH)
        first = seat(store, table_id, "Ann", 1)
        last = seat(store, table_id, "Bo", 2)
        tables.remove_seat(store, table_id, last)
        new = seat(store, table_id, "Cy", 3)
        assert new > last > first
        table_two = tables.create_table(store, "Inn", a_hash(9))
        assert table_two > table_id


def test_w50_migration_0008_keeps_every_row_and_stops_reuse_on_an_old_store(url: str) -> None:
    with Store.open(url) as store:
        downgrade(store.engine, "0007")
        assert current_revision(store.engine) == "0007"
        table_id = tables.create_table(store, "Friday", HASH)
        encounter = tables.create_table_encounter(store, table_id, "Ford", "majesty-war", 3)
        ann = seat(store, table_id, "Ann", 1)
        bo = seat(store, table_id, "Bo", 2)
        message = stored_chat.NewMessage(False, "Ann", ann, bo, "text", "for Bo")
        stored_chat.post(store, encounter, message, datetime.now(UTC))
        cy = seat(store, table_id, "Cy", 3)
        tables.remove_seat(store, table_id, cy)  # the newest seat: SQLite would lend its id
        upgrade(store.engine)
        assert current_revision(store.engine) == head_revision()
        assert [s.name for s in tables.seats(store, table_id)] == ["Ann", "Bo"]
        assert tables.table(store, table_id).encounters  # the table keeps its encounter
        with store.engine.connect() as connection:
            kept = connection.execute(text("SELECT count(*) FROM chat_messages")).scalar_one()
        assert kept == 1  # the whisper kept: its seat was not cascaded away by the rebuild
        dee = seat(store, table_id, "Dee", 4)
        if store.backend == "sqlite":
            with store.engine.connect() as connection:
                sql = connection.execute(
                    text("SELECT sql FROM sqlite_master WHERE name = 'seats'")
                ).scalar_one()
            assert "AUTOINCREMENT" in sql
        tables.remove_seat(store, table_id, dee)
        assert seat(store, table_id, "Eve", 5) > dee  # never again
        assert dee > bo


def test_w50_migration_0008_starts_seats_past_a_seat_a_record_names(tmp_path: Path) -> None:
    """A seat removed before the upgrade is still named by a record: its id is not given."""
    with database_url("sqlite", tmp_path) as url, Store.open(url) as store:
        downgrade(store.engine, "0007")
        table_id = tables.create_table(store, "Friday", HASH)
        encounter = tables.create_table_encounter(store, table_id, "Ford", "majesty-war", 3)
        ann = seat(store, table_id, "Ann", 1)
        with store.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO log_records (encounter_id, revision, kind, seq, command, events,"
                    " data) VALUES (:e, 1, 'answer', 1, :c, '[]', :d)"
                ),
                {
                    "e": encounter,
                    "c": json.dumps({"kind": "next"}),
                    "d": json.dumps({"by": f"seat:{ann + 6}"}),
                },
            )
            connection.execute(
                text("UPDATE encounters SET revision = 1 WHERE id = :e"), {"e": encounter}
            )
        upgrade(store.engine)
        assert seat(store, table_id, "Bo", 2) == ann + 7


def test_issue21_migration_0009_adds_hidden_asks_and_keeps_the_settings(url: str) -> None:
    """An encounter's settings stored before 0009 read ``hidden_asks: player`` after it."""
    with Store.open(url) as store:
        downgrade(store.engine, "0008")
        assert current_revision(store.engine) == "0008"
        table_id = tables.create_table(store, "Friday", HASH)
        encounter = tables.create_table_encounter(store, table_id, "Ford", "majesty-war", 3)
        with store.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO encounter_settings (encounter_id, decision_timeout, "
                    "npcs_decide, trust_modifiers) VALUES (:e, 30, 'ask', :t)"
                ),
                {"e": encounter, "t": True},
            )
        upgrade(store.engine)
        assert current_revision(store.engine) == head_revision()  # 0009 or later
        kept = table_audience.decision_settings(store, encounter)
        assert kept == table_audience.DecisionSettings(30, "ask", True, "player")
        table_audience.set_decision_settings(
            store, encounter, table_audience.DecisionSettings(hidden_asks="host")
        )
        assert table_audience.decision_settings(store, encounter).hidden_asks == "host"
        downgrade(store.engine, "0008")
        with store.engine.connect() as connection:
            rows = connection.execute(text("SELECT count(*) FROM encounter_settings")).scalar_one()
            columns = connection.execute(text("SELECT * FROM encounter_settings")).keys()
        assert rows == 1 and "hidden_asks" not in columns
        upgrade(store.engine)
        assert table_audience.decision_settings(store, encounter).hidden_asks == "player"

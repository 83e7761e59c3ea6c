"""The store on SQLite and PostgreSQL: round trips, optimistic concurrency, imports, migrations."""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import func, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError
from test_store_support import POSTGRES_ENV, database_url

import tableside.errors
import tableside.store.db as store_db
from tableside.encounter.log import Command, Event, LogRecord, RecordKind
from tableside.errors import DataError, TablesideError
from tableside.store import (
    StaleRevisionError,
    Store,
    StoreError,
    UnknownCharacterError,
    UnknownEncounterError,
    resolve_url,
)
from tableside.store.formats import RecordDoc
from tableside.store.migrate import current_revision, downgrade, head_revision, upgrade
from tableside.store.models import Base, EncounterRow, LogRecordRow

# -- fixtures and builders -----------------------------------------------------------------


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    with Store.open(url) as opened:
        yield opened


def strike(revision: int, seq: int, damage: int = 3) -> LogRecord:
    command = Command("strike", {"striker": "Herald", "defender": "Warrior"}, (12, 9, 3, 8, 1))
    events = (
        Event("rolled", {"natural": [12, 9, 3, 8, 1, 10, 11], "who": "Herald"}, "M-7"),
        Event("wear", {"target": "Warrior", "E": damage, "note": "Ünïcödé ✓"}, None),
    )
    return LogRecord(revision, RecordKind.COMMAND, seq, command, events)


def undo(revision: int) -> LogRecord:
    return LogRecord(revision, RecordKind.UNDO)


def sample_log() -> list[LogRecord]:
    return [
        strike(1, 0),
        LogRecord(2, RecordKind.COMMAND, 1, Command("move", {"to": [1.5, -2, 0]}), ()),
        undo(3),
        LogRecord(4, RecordKind.REDO, 1, Command("move", {"to": [1.5, -2, 0]}), ()),
        strike(5, 2, damage=0),
    ]


def filled(store: Store, records: list[LogRecord] | None = None) -> int:
    encounter_id = store.create_encounter("Bridge ambush", "majesty", 7)
    for record in sample_log() if records is None else records:
        store.append(encounter_id, record)
    return encounter_id


def row_counts(store: Store) -> tuple[int, int]:
    with store.engine.connect() as connection:
        encounters = connection.execute(select(func.count()).select_from(EncounterRow)).scalar()
        records = connection.execute(select(func.count()).select_from(LogRecordRow)).scalar()
    return int(encounters or 0), int(records or 0)


def as_json(records: list[LogRecord]) -> list[dict[str, Any]]:
    return [record.to_json() for record in records]


# -- round trips ---------------------------------------------------------------------------


def test_an_encounter_round_trips(store: Store) -> None:
    encounter_id = filled(store)
    info, records = store.load(encounter_id)
    assert (info.id, info.name, info.game, info.seed, info.revision) == (
        encounter_id,
        "Bridge ambush",
        "majesty",
        7,
        5,
    )
    assert records == sample_log()
    assert store.encounter(encounter_id) == info
    assert store.list_encounters() == [info]


def test_a_new_encounter_is_at_revision_zero_with_an_empty_log(store: Store) -> None:
    encounter_id = store.create_encounter("Empty", "strife", -(2**63))
    info, records = store.load(encounter_id)
    assert (info.revision, info.seed, records) == (0, -(2**63), [])


def test_encounters_are_listed_oldest_first(store: Store) -> None:
    ids = [store.create_encounter(f"Fight {n}", "majesty", n) for n in range(3)]
    assert [info.id for info in store.list_encounters()] == ids


def test_logs_of_two_encounters_stay_apart(store: Store) -> None:
    first = filled(store)
    second = filled(store, [strike(1, 0, damage=9)])
    assert store.load(first)[1] == sample_log()
    assert store.load(second)[1] == [strike(1, 0, damage=9)]


def test_export_then_import_gives_an_equal_encounter(store: Store) -> None:
    document = store.export_encounter(filled(store))
    assert document["format"] == "tableside/encounter" and document["version"] == 1
    assert document["records"] == as_json(sample_log())
    copy = store.import_encounter(document)
    assert store.export_encounter(copy) == document
    assert store.load(copy)[0].revision == 5


def test_an_empty_encounter_exports_and_imports(store: Store) -> None:
    document = store.export_encounter(store.create_encounter("Empty", "majesty", 1))
    assert store.export_encounter(store.import_encounter(document)) == document


def test_a_store_reopens_with_its_data(url: str) -> None:
    with Store.open(url) as store:
        encounter_id = filled(store)
    with Store.open(url) as store:
        assert store.load(encounter_id)[1] == sample_log()


# -- optimistic concurrency ----------------------------------------------------------------


def test_a_stale_revision_is_refused_and_nothing_is_written(store: Store) -> None:
    encounter_id = filled(store)
    before = row_counts(store)
    with pytest.raises(StaleRevisionError, match="at revision 5, not the expected revision 2") as e:
        store.append(encounter_id, strike(3, 9, damage=99))
    assert (e.value.encounter_id, e.value.expected, e.value.current) == (encounter_id, 2, 5)
    assert isinstance(e.value, TablesideError)
    assert isinstance(e.value, tableside.errors.StaleRevisionError)
    assert row_counts(store) == before
    assert store.load(encounter_id)[1] == sample_log()


def test_a_revision_ahead_of_the_log_is_refused(store: Store) -> None:
    encounter_id = filled(store)
    with pytest.raises(StaleRevisionError, match="not the expected revision 6"):
        store.append(encounter_id, strike(7, 9))
    assert store.encounter(encounter_id).revision == 5


def test_of_two_stores_at_the_same_revision_one_wins(url: str) -> None:
    with Store.open(url) as first, Store.open(url) as second:
        encounter_id = filled(first)
        seen = second.encounter(encounter_id).revision
        first.append(encounter_id, strike(seen + 1, 5))
        with pytest.raises(StaleRevisionError, match="at revision 6, not the expected revision 5"):
            second.append(encounter_id, undo(seen + 1))
        second.append(encounter_id, undo(second.encounter(encounter_id).revision + 1))
        assert [r.kind for r in first.load(encounter_id)[1][-2:]] == ["command", "undo"]


def test_racing_appends_from_two_stores_never_both_win(url: str) -> None:
    rounds = 15
    with Store.open(url) as setup:
        encounter_id = setup.create_encounter("Race", "majesty", 1)
    stores = [Store.open(url), Store.open(url)]
    barrier = threading.Barrier(2)
    outcomes: list[tuple[int, str]] = []
    lock = threading.Lock()

    def writer(index: int) -> None:
        for revision in range(1, rounds + 1):
            barrier.wait(timeout=30)
            try:
                stores[index].append(encounter_id, strike(revision, revision, damage=index))
                outcome = "won"
            except StaleRevisionError:
                outcome = "stale"
            with lock:
                outcomes.append((revision, outcome))
            barrier.wait(timeout=30)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    for opened in stores:
        opened.close()
    for revision in range(1, rounds + 1):
        assert sorted(o for r, o in outcomes if r == revision) == ["stale", "won"], revision
    with Store.open(url) as check:
        info, records = check.load(encounter_id)
    assert info.revision == rounds
    assert [r.revision for r in records] == list(range(1, rounds + 1))


def test_stores_opening_a_new_database_together_migrate_it_once(url: str) -> None:
    errors: list[BaseException] = []

    def open_and_close() -> None:
        try:
            Store.open(url).close()
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=open_and_close) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    with Store.open(url) as store:
        assert current_revision(store.engine) == head_revision()


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.load(999),
        lambda s: s.encounter(999),
        lambda s: s.export_encounter(999),
        lambda s: s.append(999, strike(1, 0)),
    ],
    ids=["load", "encounter", "export", "append"],
)
def test_an_unknown_encounter_id_is_named(store: Store, call: Any) -> None:
    with pytest.raises(UnknownEncounterError, match="no encounter with id 999"):
        call(store)
    assert row_counts(store) == (0, 0)


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.character(404),
        lambda s: s.export_character(404),
        lambda s: s.save_character("Herald", "majesty", {}, character_id=404),
    ],
    ids=["character", "export", "save"],
)
def test_an_unknown_character_id_is_named(store: Store, call: Any) -> None:
    with pytest.raises(UnknownCharacterError, match="no character with id 404"):
        call(store)
    assert store.list_characters() == []


@pytest.mark.parametrize(
    ("name", "game", "seed", "message"),
    [
        ("", "majesty", 1, "name must be text of 1 to 200 characters without control char"),
        ("Null\x00byte", "majesty", 1, "without control characters, got 'Null\\\\x00byte'"),
        ("x" * 201, "majesty", 1, "name must be text of 1 to 200 characters"),
        ("Fight", "", 1, "game must be text of 1 to 64 characters without control characters"),
        (
            "Fight",
            "majesty",
            2**63,
            "seed must be a 64-bit signed integer, got 9223372036854775808",
        ),
        ("Fight", "majesty", True, "seed must be a 64-bit signed integer, got True"),
        ("Fight", "majesty", "7", "seed must be a 64-bit signed integer, got '7'"),
    ],
)
def test_a_bad_encounter_is_refused(
    store: Store, name: Any, game: Any, seed: Any, message: str
) -> None:
    with pytest.raises(DataError, match=message):
        store.create_encounter(name, game, seed)
    assert store.list_encounters() == []


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (LogRecord(0, RecordKind.UNDO), "revision must be 1 or more, got 0"),
        (LogRecord(1, RecordKind.COMMAND, 0, Command("x", {"n": float("nan")})), "not plain JSON"),
        (LogRecord(1, RecordKind.COMMAND, 0, None, (Event("x", {"s": {1}}),)), "not plain JSON"),
    ],
    ids=["revision-0", "nan", "set"],
)
def test_a_bad_record_is_refused_and_nothing_is_written(
    store: Store, record: LogRecord, message: str
) -> None:
    encounter_id = store.create_encounter("Fight", "majesty", 1)
    with pytest.raises(DataError, match=message):
        store.append(encounter_id, record)
    assert store.load(encounter_id)[0].revision == 0
    assert row_counts(store) == (1, 0)


def test_an_id_must_be_an_integer(store: Store) -> None:
    with pytest.raises(DataError, match="encounter id must be an integer, got '1'"):
        store.load("1")  # type: ignore[arg-type]


# -- import refusals -----------------------------------------------------------------------


def mutated(document: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``document`` with ``value`` at the dotted ``path`` (``...`` deletes)."""
    copy: Any = _deep_copy(document)
    *parents, last = path.split(".")
    target = copy
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    key: Any = int(last) if isinstance(target, list) else last
    if value is ...:
        del target[key]
    else:
        target[key] = value
    return copy  # type: ignore[no-any-return]


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    return value


ENCOUNTER_REFUSALS = [
    ("records.3.revision", 6, "field records.3.revision: must be 4"),
    ("records.0.revision", 0, "field records.0.revision: Input should be greater than or equal"),
    ("records.2.revision", "3", "field records.2.revision: Input should be a valid integer"),
    ("records.2.kind", "jump", "field records.2.kind: Input should be 'command', 'undo', "),
    ("records.1.events", {"x": 1}, "field records.1.events: Input should be a valid list"),
    ("records.0.events.1.data", [1], "field records.0.events.1.data: Input should be a valid"),
    ("records.0.command.dice.2", 3.5, "field records.0.command.dice.2: Input should be a valid"),
    ("records.0.command.args", {"x": float("inf")}, "field records.0: is not plain JSON"),
    ("records.4.colour", "red", "field records.4.colour: Extra inputs are not permitted"),
    ("records.4.kind", ..., "field records.4.kind: Field required"),
    ("extra", 1, "field extra: Extra inputs are not permitted"),
    ("format", "tableside/character-record", "field format: Input should be 'tableside/enc"),
    ("version", 2, "field version: Input should be 1 .got 2."),
    ("name", "", "field name: String should have at least 1 character"),
    ("game", "war\n", "field game: String should match pattern"),
    ("seed", 2**64, "field seed: Input should be less than or equal to"),
    ("records", ..., "field records: Field required"),
]


@pytest.mark.parametrize(
    ("path", "value", "message"), ENCOUNTER_REFUSALS, ids=[c[0] for c in ENCOUNTER_REFUSALS]
)
def test_a_bad_encounter_document_is_refused_naming_the_field(
    store: Store, path: str, value: Any, message: str
) -> None:
    document = store.export_encounter(filled(store))
    before = row_counts(store)
    with pytest.raises(DataError, match=message):
        store.import_encounter(mutated(document, path, value))
    assert row_counts(store) == before


@pytest.mark.parametrize("document", [None, [], "tableside/encounter", 3])
def test_an_encounter_document_must_be_an_object(store: Store, document: Any) -> None:
    with pytest.raises(DataError, match="Encounter document: must be a JSON object"):
        store.import_encounter(document)


def test_an_import_that_fails_in_the_database_writes_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = store.export_encounter(filled(store))
    before = row_counts(store)
    real_row = store_db._record_row

    def clashing_row(encounter_id: int, record: LogRecord) -> dict[str, Any]:
        row = real_row(encounter_id, record)
        return {**row, "revision": min(row["revision"], 4)}  # records 4 and 5 clash

    monkeypatch.setattr(store_db, "_record_row", clashing_row)
    with pytest.raises(IntegrityError):
        store.import_encounter(document)
    assert row_counts(store) == before


# -- characters ----------------------------------------------------------------------------

HERALD = {"format": "tableside/majesty-character", "version": 1, "name": "Herald", "tier": 2}


def test_a_character_round_trips_and_updates(store: Store) -> None:
    herald = store.save_character("Herald", "majesty", HERALD)
    brute = store.save_character("Brute", "strife", {"hp": 30, "tags": ["big", None, 1.25]})
    assert store.character(herald).document == HERALD
    assert (store.character(brute).name, store.character(brute).game) == ("Brute", "strife")
    assert store.save_character("Herald II", "majesty", {**HERALD, "tier": 3}, herald) == herald
    updated = store.character(herald)
    assert (updated.name, updated.document["tier"]) == ("Herald II", 3)
    assert updated.updated_at.tzinfo is not None
    assert [c.id for c in store.list_characters()] == [herald, brute]
    assert [c.id for c in store.list_characters(game="strife")] == [brute]


def test_a_character_exports_and_imports(store: Store) -> None:
    document = store.export_character(store.save_character("Herald", "majesty", HERALD))
    assert document == {
        "format": "tableside/character-record",
        "version": 1,
        "name": "Herald",
        "game": "majesty",
        "document": HERALD,
    }
    copy = store.import_character(document)
    assert store.export_character(copy) == document


CHARACTER_REFUSALS = [
    ("document", [1, 2], "field document: Input should be a valid dictionary"),
    ("document.tier", float("nan"), "field document: is not plain JSON"),
    ("game", 5, "field game: Input should be a valid string .got 5."),
    ("version", "1", "field version: Input should be 1"),
    ("document", ..., "field document: Field required"),
    ("owner", "me", "field owner: Extra inputs are not permitted"),
]


@pytest.mark.parametrize(
    ("path", "value", "message"), CHARACTER_REFUSALS, ids=[c[0] for c in CHARACTER_REFUSALS]
)
def test_a_bad_character_document_is_refused_naming_the_field(
    store: Store, path: str, value: Any, message: str
) -> None:
    document = store.export_character(store.save_character("Herald", "majesty", HERALD))
    with pytest.raises(DataError, match=message):
        store.import_character(mutated(document, path, value))
    assert len(store.list_characters()) == 1


@pytest.mark.parametrize(
    ("name", "document", "message"),
    [
        ("", {}, "character's name must be text of 1 to 200 characters without control"),
        ("Herald", [1], "character document must be a JSON object, got \\[1\\]"),
        ("Herald", {"x": {1, 2}}, "The character document: is not plain JSON"),
    ],
)
def test_a_bad_character_is_refused(store: Store, name: Any, document: Any, message: str) -> None:
    with pytest.raises(DataError, match=message):
        store.save_character(name, "majesty", document)
    assert store.list_characters() == []


# -- schema, SQLite settings, URLs ---------------------------------------------------------


def test_the_database_is_migrated_to_head_and_matches_the_models(store: Store) -> None:
    assert current_revision(store.engine) == head_revision()
    with store.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []


def test_migrations_go_down_to_nothing_and_up_again(store: Store) -> None:
    downgrade(store.engine, "base")
    assert set(inspect(store.engine).get_table_names()) <= {"alembic_version"}
    assert current_revision(store.engine) is None
    upgrade(store.engine)
    tables = set(inspect(store.engine).get_table_names())
    assert {"encounters", "log_records", "characters", "alembic_version"} <= tables
    assert current_revision(store.engine) == head_revision()


def test_sqlite_uses_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'wal.db'}") as store:
        with store.engine.connect() as connection:
            pragma = connection.exec_driver_sql
            assert pragma("PRAGMA journal_mode").scalar() == "wal"
            assert pragma("PRAGMA foreign_keys").scalar() == 1
            assert pragma("PRAGMA busy_timeout").scalar() == 15000
        filled(store)
        assert (tmp_path / "wal.db-wal").exists()


def test_a_closed_store_refuses_work(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'closed.db'}")
    store.close()
    with pytest.raises(StoreError, match="is closed"):
        store.list_encounters()


def test_an_explicit_url_wins_over_the_environment() -> None:
    env = {"TABLESIDE_DATABASE_URL": "postgresql://u@h/env", "TABLESIDE_DB_PATH": "/tmp/p.db"}
    assert str(resolve_url("sqlite:////tmp/x.db", env)) == "sqlite+pysqlite:////tmp/x.db"
    assert str(resolve_url(None, env)) == "postgresql+psycopg://u@h/env"
    assert (
        str(resolve_url(None, {"TABLESIDE_DB_PATH": "/tmp/p.db"})) == "sqlite+pysqlite:////tmp/p.db"
    )
    assert resolve_url(None, {}).database == "tableside.db"
    postgres = resolve_url("postgres://u:pw@h:5/d", {})
    assert postgres.render_as_string(hide_password=False) == "postgresql+psycopg://u:pw@h:5/d"


def test_the_sqlite_path_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TABLESIDE_DATABASE_URL", raising=False)
    monkeypatch.setenv("TABLESIDE_DB_PATH", str(tmp_path / "from-env.db"))
    with Store.open() as store:
        assert store.backend == "sqlite"
        filled(store)
    assert (tmp_path / "from-env.db").exists()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", "Unsupported database 'mysql://u@h/db'"),
        ("::nonsense::", "Cannot read the database URL '::nonsense::'"),
        ("sqlite:////no/such/folder/x.db", "Cannot open the database sqlite.*/no/such/folder"),
        ("postgresql://u:secret@127.0.0.1:1/db", "Cannot open the database postgresql.*:1/db"),
    ],
)
def test_an_unusable_url_is_refused_in_one_sentence(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message) as error:
        Store.open(url)
    assert "secret" not in str(error.value)


def test_record_kinds_in_the_format_are_the_log_kinds() -> None:
    annotation = RecordDoc.model_fields["kind"].annotation
    assert set(annotation.__args__) == {kind.value for kind in RecordKind}  # type: ignore[union-attr]


def test_without_postgres_ci_fails_and_a_developer_skips(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(POSTGRES_ENV, raising=False)
    monkeypatch.setenv("CI", "true")
    with (
        pytest.raises(pytest.fail.Exception, match="CI must test PostgreSQL"),
        database_url("postgresql", tmp_path),
    ):
        pass
    monkeypatch.delenv("CI")
    with (
        pytest.raises(pytest.skip.Exception, match="no PostgreSQL"),
        database_url("postgresql", tmp_path),
    ):
        pass


def test_a_postgres_url_without_a_driver_uses_psycopg() -> None:
    assert make_url(str(resolve_url("postgresql://h/db", {}))).drivername == "postgresql+psycopg"


# -- layering and tools ----------------------------------------------------------------------

STORE_SOURCE = Path(__file__).resolve().parents[1] / "src" / "tableside" / "store"
NOT_FOR_THE_STORE = ("tableside.majesty", "tableside.strife", "tableside.cli", "tableside.web")


def imports_of(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize(
    "path", sorted(STORE_SOURCE.rglob("*.py")), ids=lambda p: str(p.relative_to(STORE_SOURCE))
)
def test_the_store_knows_no_game_and_no_front_end(path: Path) -> None:
    names = imports_of(path)
    assert [n for n in names if n.startswith(NOT_FOR_THE_STORE)] == []
    encounter = [n for n in names if n.startswith("tableside.encounter")]
    assert set(encounter) <= {"tableside.encounter.log"}, "the store keeps records, not rules"


def test_the_command_line_prints_the_head_migration() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tableside.store", "head"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == head_revision()


def test_a_sqlite_connection_that_found_the_database_read_only_is_not_used_again(
    tmp_path: Path,
) -> None:
    """Issue 23: a database writable again serves writes again (W-13's 503 is not for good).

    Through SQLAlchemy (the hot path on the driver is ``test_store_raw.py``'s, SV-3).
    """
    with Store.open(f"sqlite:///{tmp_path / 'ro.db'}", raw=False) as store:
        encounter_id = store.create_encounter("Bridge ambush", "majesty", 7)
        with store.engine.connect() as connection:  # as a connection opened while read-only
            raw: Any = connection.connection.dbapi_connection
            raw.execute("PRAGMA query_only = 1")
        with pytest.raises(OperationalError, match="readonly database"):
            store.append(encounter_id, strike(1, 0))
        store.append(encounter_id, strike(1, 0))  # a fresh connection: the write is kept
        assert as_json(store.load(encounter_id)[1]) == as_json([strike(1, 0)])

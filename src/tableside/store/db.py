"""The Store: encounters as append-only logs of records, and characters as JSON documents.

The store knows no game: it keeps ``LogRecord`` values and character documents as plain JSON.
Every write is one transaction. An append bumps ``encounters.revision`` only if it is still
the revision the record was made against, so two writers can never both append revision n.
On PostgreSQL the same transaction sends ``NOTIFY tableside_encounter, '<id>:<revision>'``, which
PostgreSQL delivers to listeners (other server processes) only if it commits.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Integer,
    String,
    bindparam,
    event,
    func,
    insert,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine, ExceptionContext
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql.selectable import TextualSelect

from tableside.encounter.log import LogRecord
from tableside.errors import DataError, TablesideError
from tableside.limits import refused_character
from tableside.limits import shown as shown_value
from tableside.store.closing import Closing
from tableside.store.engine import create_store_engine, writer
from tableside.store.errors import (
    StoreError,
    UnknownCharacterError,
)
from tableside.store.formats import (
    SEED_MAX,
    SEED_MIN,
    character_document,
    encounter_document,
    parse_character,
    parse_encounter,
    require_plain_json,
)
from tableside.store.migrate import upgrade
from tableside.store.models import (
    GAME_LENGTH,
    NAME_LENGTH,
    CharacterRow,
    EncounterRow,
    HiddenCommandRow,
    LogRecordRow,
)
from tableside.store.raw import READ_ONLY, Executes, Link
from tableside.store.records import EncounterInfo as EncounterInfo  # its home was here
from tableside.store.records import (
    not_plain_json,
    read_info,
    read_log,
    record_from_row,
    record_row,
    refuse_append,
    require_appendable,
    require_id,
)
from tableside.store.url import resolve_url, shown


def _rows(connection: Executes, sql: str, params: dict[str, int]) -> list[Any]:
    """The rows of one of ``records.py``'s reads, its JSON columns decoded as the models say."""
    return list(connection.execute(_textual(sql), params).all())


@functools.cache
def _textual(sql: str) -> TextualSelect:
    """One of ``records.py``'s reads as a statement (built once: the raw link compiles it once)."""
    json_columns = {"command": LogRecordRow.command.type, "events": LogRecordRow.events.type,
                    "data": LogRecordRow.data.type}  # fmt: skip
    return text(sql).columns(**json_columns)


# Shared with tables.py, and replaceable by tests, under the names they had here.
_record = record_from_row
_record_row = record_row
_require_id = require_id


@dataclass(frozen=True, slots=True)
class StoredCharacter:
    """A stored character: the game's own JSON document with its name and game."""

    id: int
    name: str
    game: str
    document: dict[str, Any]
    updated_at: datetime


_INFO_COLUMNS = (
    EncounterRow.id,
    EncounterRow.name,
    EncounterRow.game,
    EncounterRow.seed,
    EncounterRow.revision,
)
_CHARACTER_COLUMNS = (
    CharacterRow.id,
    CharacterRow.name,
    CharacterRow.game,
    CharacterRow.document,
    CharacterRow.updated_at,
)

# Built once: an append is the hot path, and building statements costs more than running them.
_BUMP = (
    update(EncounterRow)
    .where(EncounterRow.id == bindparam("bump_id"))
    .where(EncounterRow.revision == bindparam("bump_from"))
    .values(revision=bindparam("bump_to"))
)
_INSERT_RECORD = insert(LogRecordRow)
_HIDE = insert(HiddenCommandRow)

NOTIFY_CHANNEL = "tableside_encounter"
"""The PostgreSQL channel on which every committed append is announced as ``<id>:<revision>``.

That is its name in the schema ``public``; a store in another schema of the same database uses
``<this>_<12 hex digits of the schema name's md5>`` (:data:`CHANNEL_SQL`, SV-5)."""
CHANNEL_SQL = (
    f"'{NOTIFY_CHANNEL}' || CASE WHEN coalesce(current_schema(), 'public') = 'public' THEN '' "
    "ELSE '_' || substr(md5(current_schema()), 1, 12) END"
)
"""The channel of the schema a connection works in, as SQL: a database's channels are shared by
all its schemas, so stores in two schemas must not wake each other's streams (SV-5)."""
CHANNEL_QUERY = f"SELECT {CHANNEL_SQL}"
"""The query that names a connection's channel (what its listener LISTENs on)."""
_NOTIFY = text(f"SELECT pg_notify({CHANNEL_SQL}, :payload)")


def _append_statement(hide: bool) -> Any:
    """PostgreSQL's append as one statement (SV-21): bump, insert, hide and notify, or nothing.

    The bump's ``RETURNING`` feeds the record's insert (and the hidden mark's), and the
    ``pg_notify`` is selected from it, so a stale revision writes and announces nothing and
    answers no row; otherwise one row.
    """
    bumped = _BUMP.returning(EncounterRow.id).cte("bumped")
    typed = {name: LogRecordRow.__table__.c[name].type for name in _RECORD_VALUES}
    recorded = insert(LogRecordRow).from_select(
        ["encounter_id", "revision", *_RECORD_VALUES],
        select(
            bumped.c.id,
            bindparam("bump_to", type_=Integer),
            *(bindparam(name, type_=kind) for name, kind in typed.items()),
        ).select_from(bumped),
    )
    announce = select(
        func.pg_notify(literal_column(CHANNEL_SQL), bindparam("payload", type_=String))
    ).select_from(bumped)
    announce = announce.add_cte(recorded.cte("recorded"))
    if hide:
        hidden = insert(HiddenCommandRow).from_select(
            ["encounter_id", "seq"],
            select(bumped.c.id, bindparam("seq", type_=Integer)).select_from(bumped),
        )
        announce = announce.add_cte(hidden.cte("hidden"))
    return announce


_RECORD_VALUES = ("kind", "seq", "command", "events", "data")
_APPEND = _append_statement(hide=False)
_APPEND_HIDDEN = _append_statement(hide=True)


class Store(Closing):
    """Encounters and characters in SQLite or PostgreSQL (open with :meth:`Store.open`)."""

    def __init__(self, engine: Engine, raw: bool = True) -> None:
        self._engine = engine
        self._writer = writer(engine)
        self._closed = False
        self._announce = engine.dialect.name == "postgresql"
        # SQLite has one writer at a time: its threads queue here, woken in turn, rather than
        # in SQLite's busy handler, which sleeps up to 100 ms between tries.
        self._write_turn = threading.RLock() if engine.dialect.name == "sqlite" else nullcontext()
        # The hot path's statements on the driver itself (issue 26, SV-1 … SV-4)
        self._link = Link(engine, self._write_turn) if raw and Link.serves(engine) else None
        if self._link is not None and engine.dialect.name == "sqlite":
            event.listen(engine, "handle_error", self._read_only)

    @classmethod
    def open(cls, url: str | None = None, raw: bool = True) -> Store:
        """Open (and create or migrate to the newest schema) the store's database.

        Args:
            url: An SQLAlchemy URL such as ``sqlite:///tableside.db`` or
                ``postgresql+psycopg://user:password@host/db``. When None,
                ``$TABLESIDE_DATABASE_URL``, else SQLite at ``$TABLESIDE_DB_PATH``
                (default ``./tableside.db``).
            raw: Run the web table's hot statements on the driver itself (issue 26, SV-1);
                False runs every statement through SQLAlchemy (tests compare the two).

        Returns:
            The open store.

        Raises:
            StoreError: The URL is unusable or the database cannot be reached.
        """
        resolved = resolve_url(url)
        engine = create_store_engine(resolved)
        try:
            upgrade(engine)
        except DBAPIError as error:
            engine.dispose()
            raise StoreError(
                f"Cannot open the database {shown(resolved)}: {_reason(error)}."
            ) from None
        except BaseException:
            engine.dispose()
            raise
        return cls(engine, raw)

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return shown(self._engine.url)

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._engine.dialect.name

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for tools and tests; the store's methods are the API)."""
        return self._engine

    def close(self) -> None:
        """Close every connection; the store cannot be used afterwards."""
        self._closed = True
        if self._link is not None:
            self._link.close()
        self._engine.dispose()

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    # -- encounters ---------------------------------------------------------------------

    def create_encounter(self, name: str, game: str, seed: int) -> int:
        """Create an empty encounter (revision 0).

        Args:
            name: What the Host calls it (1 to 200 characters).
            game: Which game's rules it follows, e.g. ``majesty`` (1 to 64 characters).
            seed: The seed its server dice are rolled from (a 64-bit signed integer).

        Returns:
            The new encounter's id.

        Raises:
            DataError: A bad name, game or seed, named with its value.
        """
        _require_header(name, game, seed)
        with self._write() as connection:
            return self._insert_encounter(connection, name, game, seed, revision=0)

    def append(self, encounter_id: int, record: LogRecord) -> None:
        """Append one record in one transaction, if no other record came first.

        Args:
            encounter_id: The encounter.
            record: Its next record: ``record.revision`` must be the current revision + 1.

        Raises:
            StaleRevisionError: Another record was appended first (nothing is written).
            UnknownEncounterError: No encounter has this id.
            DataError: The record's revision is below 1, or its JSON is not plain JSON.
        """
        self.append_all(encounter_id, (record,))

    def append_all(self, encounter_id: int, records: Sequence[LogRecord]) -> None:
        """Append records in order in one transaction: all of them, or none.

        The answers of one submission (issue 21, item 8: one transaction, not one each). The
        same checks and refusals as :meth:`append`, record by record.
        """
        _require_id(encounter_id, "encounter")
        if not records:
            return
        for record in records:
            require_appendable(record)
        record = records[0]
        try:
            with self._hot_write(lone=len(records) == 1) as connection:
                for record in records:
                    self._append_one(connection, encounter_id, record)
        except TablesideError:
            raise
        except (StatementError, TypeError, ValueError) as error:
            cause = error.orig if isinstance(error, StatementError) else error
            if isinstance(cause, TypeError | ValueError):  # the JSON encoder refused a value
                raise not_plain_json(encounter_id, record, cause) from None
            raise

    def load(self, encounter_id: int) -> tuple[EncounterInfo, list[LogRecord]]:
        """An encounter and its whole log, ordered by revision (one consistent read).

        Raises:
            UnknownEncounterError: No encounter has this id.
        """
        with self._read() as connection:
            return read_log(functools.partial(_rows, connection), encounter_id)

    def encounter(self, encounter_id: int) -> EncounterInfo:
        """One encounter's description and current revision, without its log.

        Raises:
            UnknownEncounterError: No encounter has this id.
        """
        _require_id(encounter_id, "encounter")
        with self._hot_read() as connection:
            return self._info(connection, encounter_id)

    def list_encounters(self) -> list[EncounterInfo]:
        """Every encounter, oldest first."""
        with self._read() as connection:
            rows = connection.execute(select(*_INFO_COLUMNS).order_by(EncounterRow.id)).all()
        return [EncounterInfo(*row) for row in rows]

    def export_encounter(self, encounter_id: int) -> dict[str, Any]:
        """The ``tableside/encounter`` v1 document of an encounter (see ``formats.py``).

        Raises:
            UnknownEncounterError: No encounter has this id.
        """
        info, records = self.load(encounter_id)
        return encounter_document(info.name, info.game, info.seed, records)

    def import_encounter(self, document: Any) -> int:
        """Store an exported encounter as a new encounter, all or nothing.

        Args:
            document: A decoded ``tableside/encounter`` v1 document.

        Returns:
            The new encounter's id.

        Raises:
            DataError: The document does not validate; names the field path and the value.
        """
        doc, records = parse_encounter(document)
        with self._write() as connection:
            new_id = self._insert_encounter(
                connection, doc.name, doc.game, doc.seed, revision=len(records)
            )
            if records:
                rows = [_record_row(new_id, record) for record in records]
                connection.execute(_INSERT_RECORD, rows)
        return new_id

    # -- characters ---------------------------------------------------------------------

    def save_character(
        self, name: str, game: str, document: dict[str, Any], character_id: int | None = None
    ) -> int:
        """Store a character document: a new character, or a new version of ``character_id``.

        Args:
            name: The character's name (1 to 200 characters).
            game: Which game the document is for (1 to 64 characters).
            document: The game's own character document (a JSON object).
            character_id: The character to overwrite; None adds a new one.

        Returns:
            The character's id.

        Raises:
            DataError: A bad name, game or document, named with its value.
            UnknownCharacterError: ``character_id`` names no character.
        """
        _require_character(name, game, document)
        with self._write() as connection:
            if character_id is None:
                return self._insert_character(connection, name, game, document)
            _require_id(character_id, "character")
            changed = connection.execute(
                update(CharacterRow)
                .where(CharacterRow.id == character_id)
                .values(name=name, game=game, document=document)
            )
            if changed.rowcount != 1:
                raise UnknownCharacterError(character_id)
            return character_id

    def character(self, character_id: int) -> StoredCharacter:
        """One stored character.

        Raises:
            UnknownCharacterError: No character has this id.
        """
        _require_id(character_id, "character")
        with self._read() as connection:
            row = connection.execute(
                select(*_CHARACTER_COLUMNS).where(CharacterRow.id == character_id)
            ).one_or_none()
        if row is None:
            raise UnknownCharacterError(character_id)
        return _character(*row)

    def list_characters(self, game: str | None = None) -> list[StoredCharacter]:
        """Every stored character (of ``game`` only, when given), oldest first."""
        query = select(*_CHARACTER_COLUMNS).order_by(CharacterRow.id)
        if game is not None:
            query = query.where(CharacterRow.game == game)
        with self._read() as connection:
            rows = connection.execute(query).all()
        return [_character(*row) for row in rows]

    def export_character(self, character_id: int) -> dict[str, Any]:
        """The ``tableside/character-record`` v1 document of a character.

        Raises:
            UnknownCharacterError: No character has this id.
        """
        stored = self.character(character_id)
        return character_document(stored.name, stored.game, stored.document)

    def import_character(self, document: Any) -> int:
        """Store an exported character as a new character.

        Args:
            document: A decoded ``tableside/character-record`` v1 document.

        Returns:
            The new character's id.

        Raises:
            DataError: The document does not validate; names the field path and the value.
        """
        doc = parse_character(document)
        with self._write() as connection:
            return self._insert_character(connection, doc.name, doc.game, doc.document)

    # -- steps --------------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        self._require_open()
        with self._write_turn, self._writer.begin() as connection:
            yield connection

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        self._require_open()
        with self._engine.begin() as connection:
            yield connection

    def _hot_read(self) -> AbstractContextManager[Executes]:
        """A read of the hot path: on the driver itself when the store can (SV-1)."""
        return self._hot(write=False)

    def _hot_write(self, lone: bool = False) -> AbstractContextManager[Executes]:
        """A write of the hot path: on the driver itself when the store can (SV-1).

        Args:
            lone: The write is one statement (then reads only): on PostgreSQL it is its own
                transaction, without ``BEGIN`` and ``COMMIT`` round trips (SV-21).
        """
        return self._hot(write=True, lone=lone)

    @contextmanager
    def _hot(self, write: bool, lone: bool = False) -> Iterator[Executes]:
        self._require_open()
        if self._link is None:
            with self._write() if write else self._read() as connection:
                yield connection
        else:
            with self._link.transaction(write, lone) as tx:
                yield tx

    def _read_only(self, context: ExceptionContext) -> None:
        """The engine found SQLite read-only: no raw connection of that time serves (SV-3)."""
        if self._link is not None and READ_ONLY in str(context.original_exception):
            self._link.retire()

    def _require_open(self) -> None:
        if self._closed:
            raise StoreError(f"The store {self.url} is closed.")

    def _append_one(
        self, connection: Executes, encounter_id: int, record: LogRecord, hide: bool = False
    ) -> None:
        """Append one record (and mark its command hidden), if its revision is still the next.

        On PostgreSQL one statement does it all (SV-21); on SQLite the bump, the insert and the
        mark, in the caller's transaction.

        Raises:
            StaleRevisionError: Another record was appended first (nothing is written).
            UnknownEncounterError: No encounter has this id.
        """
        row = _record_row(encounter_id, record)
        if not self._announce:
            self._bump(connection, encounter_id, record.revision)
            connection.execute(_INSERT_RECORD, row)
            if hide:
                connection.execute(_HIDE, {"encounter_id": encounter_id, "seq": record.seq})
            return
        params = {name: row[name] for name in _RECORD_VALUES}
        params.update(bump_id=encounter_id, bump_from=record.revision - 1, bump_to=record.revision)
        params["payload"] = f"{encounter_id}:{record.revision}"
        if not connection.execute(_APPEND_HIDDEN if hide else _APPEND, params).all():
            refuse_append(functools.partial(_rows, connection), encounter_id, record.revision)

    def _bump(self, connection: Executes, encounter_id: int, revision: int) -> None:
        bumped = connection.execute(
            _BUMP, {"bump_id": encounter_id, "bump_from": revision - 1, "bump_to": revision}
        )
        if bumped.rowcount != 1:
            refuse_append(functools.partial(_rows, connection), encounter_id, revision)
        if self._announce:  # delivered at commit, never if the transaction rolls back
            connection.execute(_NOTIFY, {"payload": f"{encounter_id}:{revision}"})

    def _info(self, connection: Executes, encounter_id: int) -> EncounterInfo:
        return read_info(functools.partial(_rows, connection), encounter_id)

    def _insert_encounter(
        self, connection: Connection, name: str, game: str, seed: int, revision: int
    ) -> int:
        return connection.execute(
            insert(EncounterRow)
            .values(name=name, game=game, seed=seed, revision=revision)
            .returning(EncounterRow.id)
        ).scalar_one()

    def _insert_character(
        self, connection: Connection, name: str, game: str, document: dict[str, Any]
    ) -> int:
        return connection.execute(
            insert(CharacterRow)
            .values(name=name, game=game, document=document)
            .returning(CharacterRow.id)
        ).scalar_one()


def _character(
    character_id: int, name: str, game: str, document: dict[str, Any], updated_at: datetime
) -> StoredCharacter:
    if updated_at.tzinfo is None:  # SQLite keeps UTC without the zone
        updated_at = updated_at.replace(tzinfo=UTC)
    return StoredCharacter(character_id, name, game, document, updated_at)


def _reason(error: DBAPIError) -> str:
    lines = str(error.orig).strip().splitlines()
    return lines[0].rstrip(".") if lines else type(error.orig).__name__


def _require_text(value: object, what: str, limit: int) -> None:
    if not isinstance(value, str) or not 1 <= len(value) <= limit or refused_character(value):
        raise DataError(
            f"{what} must be text of 1 to {limit} characters without control characters, "
            f"got {shown_value(value)}."
        )


def _require_header(name: object, game: object, seed: object) -> None:
    _require_text(name, "An encounter's name", NAME_LENGTH)
    _require_text(game, "An encounter's game", GAME_LENGTH)
    if isinstance(seed, bool) or not isinstance(seed, int) or not SEED_MIN <= seed <= SEED_MAX:
        raise DataError(f"An encounter's seed must be a 64-bit signed integer, got {seed!r}.")


def _require_character(name: object, game: object, document: object) -> None:
    _require_text(name, "A character's name", NAME_LENGTH)
    _require_text(game, "A character's game", GAME_LENGTH)
    if not isinstance(document, dict):
        raise DataError(f"A character document must be a JSON object, got {document!r}.")
    require_plain_json(document, "The character document")

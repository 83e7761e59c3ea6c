"""An encounter's header and its log records as the store's rows hold them (no SQLAlchemy).

Shared by :class:`~tableside.store.db.Store` and the command line's quick log
(:class:`~tableside.store.lite.LiteLog`), so that both check, write and read a record alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from tableside.encounter.log import LogRecord
from tableside.errors import DataError
from tableside.store.errors import StaleRevisionError, UnknownEncounterError


@dataclass(frozen=True, slots=True)
class EncounterInfo:
    """What an encounter is, and its current revision (how many records its log holds)."""

    id: int
    name: str
    game: str
    seed: int
    revision: int


RECORD_COLUMNS = ("revision", "kind", "seq", "command", "events", "data")
"""A log record's columns, as :func:`record_from_row` takes them."""

# The one read of an encounter and its log, in the named-parameter style both drivers take
# (SQLAlchemy's ``text`` and Python's ``sqlite3``).
INFO_SQL = "SELECT id, name, game, seed, revision FROM encounters WHERE id = :encounter_id"
RECORDS_SQL = (
    f"SELECT {', '.join(RECORD_COLUMNS)} FROM log_records"
    " WHERE encounter_id = :encounter_id AND revision <= :revision ORDER BY revision"
)
REVISION_SQL = "SELECT revision FROM encounters WHERE id = :encounter_id"
Rows = Callable[[str, dict[str, int]], Sequence[Sequence[Any]]]
"""A driver's query: the rows of an SQL statement with its parameters (JSON columns decoded)."""


def read_info(rows: Rows, encounter_id: int) -> EncounterInfo:
    """An encounter's description and current revision, read with ``rows``.

    Raises:
        UnknownEncounterError: No encounter has this id.
    """
    found = rows(INFO_SQL, {"encounter_id": encounter_id})
    if not found:
        raise UnknownEncounterError(encounter_id)
    return EncounterInfo(*found[0])


def read_log(rows: Rows, encounter_id: int) -> tuple[EncounterInfo, list[LogRecord]]:
    """An encounter and its whole log up to its revision, ordered by revision.

    ``rows`` runs both statements in the caller's one transaction (one consistent read).

    Raises:
        UnknownEncounterError: No encounter has this id.
    """
    require_id(encounter_id, "encounter")
    info = read_info(rows, encounter_id)
    found = rows(RECORDS_SQL, {"encounter_id": encounter_id, "revision": info.revision})
    return info, [record_from_row(*row) for row in found]


def refuse_append(rows: Rows, encounter_id: int, revision: int) -> NoReturn:
    """Say why the append of ``revision`` bumped no encounter (read in the same transaction).

    Raises:
        UnknownEncounterError: No encounter has this id.
        StaleRevisionError: Another record was appended first.
    """
    found = rows(REVISION_SQL, {"encounter_id": encounter_id})
    if not found:
        raise UnknownEncounterError(encounter_id)
    raise StaleRevisionError(encounter_id, revision - 1, found[0][0])


def require_id(value: object, what: str) -> None:
    """Refuse an id that is not an integer (``what``: encounter, character)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"A {what} id must be an integer, got {value!r}.")


def require_appendable(record: object) -> LogRecord:
    """The record, if it can be appended at all (a LogRecord of revision 1 or more)."""
    if not isinstance(record, LogRecord):
        raise DataError(f"Only a LogRecord can be appended, got {type(record).__name__}.")
    if record.revision < 1:
        raise DataError(f"A log record's revision must be 1 or more, got {record.revision}.")
    return record


def not_plain_json(encounter_id: int, record: LogRecord, cause: Exception) -> DataError:
    """The refusal of a record whose JSON the store's encoder refused."""
    return DataError(
        f"Record {record.revision} of encounter {encounter_id} is not plain JSON: {cause}."
    )


def record_row(encounter_id: int, record: LogRecord) -> dict[str, Any]:
    """The row of ``log_records`` holding ``record`` (its JSON columns still as values)."""
    data = record.to_json()
    return {
        "encounter_id": encounter_id,
        "revision": record.revision,
        "kind": data["kind"],
        "seq": record.seq,
        "command": data["command"],
        "events": data["events"],
        "data": data.get("data"),
    }


def record_from_row(
    revision: int,
    kind: str,
    seq: int | None,
    command: dict[str, Any] | None,
    events: Any,
    data: dict[str, Any] | None = None,
) -> LogRecord:
    """The record a row of ``log_records`` holds (its JSON columns decoded)."""
    return LogRecord.from_json(
        {
            "revision": revision,
            "kind": kind,
            "seq": seq,
            "command": command,
            "events": events,
            "data": data,
        }
    )

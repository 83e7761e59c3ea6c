"""A web table's encounter log: the authorising read, appends that hide a command, reads.

A hidden command is marked in the same transaction that appends its record, so a record is never
visible to players, even for a moment, if its command was hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    bindparam,
    select,
)
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import Select

from tableside.encounter.log import LogRecord
from tableside.errors import DataError
from tableside.store.db import (
    EncounterInfo,
    Store,
    _record,
)
from tableside.store.errors import UnknownEncounterError
from tableside.store.models import (
    EncounterRow,
    GameTableRow,
    LogRecordRow,
    SeatRow,
    TableEncounterRow,
    WebSessionRow,
)
from tableside.store.table_audience import _HIDDEN, Audience, Secrecy, _read_audience
from tableside.store.tables import Holder, Seat


@dataclass(frozen=True, slots=True)
class Access:
    """An encounter, the table it is played at, and a token's holder at that table.

    Attributes:
        info: The encounter, with its current revision.
        table_id: Its table (None for an encounter of no table).
        holder: Who holds the token at that table: its Host, or one of its seats; None when the
            token is neither (unknown, or another table's).
        secrecy: The encounter's secrecy, read in the same transaction, when the holder is a
            seat (None for the Host, who sees every value, and for a refused token).
    """

    info: EncounterInfo
    table_id: int | None
    holder: Holder | None
    secrecy: Secrecy | None = None
    audience: Audience | None = None


def _access_query(credential: ColumnElement[Any]) -> Select[*tuple[Any, ...]]:
    """The access read, for a token's hash or a session's (resolved to its token's hash)."""
    return (
        select(
            EncounterRow.id,
            EncounterRow.name,
            EncounterRow.game,
            EncounterRow.seed,
            EncounterRow.revision,
            TableEncounterRow.table_id,
            GameTableRow.host_token_hash,
            SeatRow.id,
            SeatRow.name,
            SeatRow.characters,
            credential.label("credential"),
        )
        .select_from(EncounterRow)
        .join(TableEncounterRow, TableEncounterRow.encounter_id == EncounterRow.id, isouter=True)
        .join(GameTableRow, GameTableRow.id == TableEncounterRow.table_id, isouter=True)
        .join(
            SeatRow,
            (SeatRow.table_id == TableEncounterRow.table_id) & (SeatRow.token_hash == credential),
            isouter=True,
        )
        .where(EncounterRow.id == bindparam("encounter_id"))
    )


# Built once: every request on an encounter runs one (one read instead of three).
_ACCESS = _access_query(bindparam("token_hash"))
_SESSION_ACCESS = _access_query(
    select(WebSessionRow.token_hash)
    .where(WebSessionRow.session_hash == bindparam("token_hash"))
    .scalar_subquery()
)


def access(
    store: Store, token_hash: str, encounter_id: int, session: bool = False
) -> Access | None:
    """An encounter, its table and the holder of the token with this hash there, in one read.

    For a seat's token the same transaction also reads the encounter's secrecy (one more
    statement), so that a player's request needs no read of its own for it. With ``session``
    the hash is a session's, resolved to its token's in the same statement (W-11).

    Returns:
        None when no encounter has this id.
    """
    query = _SESSION_ACCESS if session else _ACCESS
    with store._hot_read() as connection:
        row = connection.execute(
            query, {"token_hash": token_hash, "encounter_id": encounter_id}
        ).one_or_none()
        if row is None:
            return None
        eid, name, game, seed, revision, table_id, host_hash, seat_id, seat_name, characters = row[
            :10
        ]
        resolved = row[10]
        info = EncounterInfo(eid, name, game, seed, revision)
        if table_id is not None and resolved is not None and host_hash == resolved:
            return Access(info, table_id, Holder(table_id, None))
        if seat_id is None:
            return Access(info, table_id, None)
        audience = _read_audience(connection, eid)
        plays = next((s.characters for s in audience.seats if s.id == seat_id), ())
        seat = Seat(seat_id, table_id, seat_name, plays, tuple(characters))
        return Access(info, table_id, Holder(table_id, seat), audience.secrecy, audience)


def append(store: Store, encounter_id: int, record: LogRecord, hidden: bool = False) -> None:
    """Append a record like :meth:`Store.append`, marking its command hidden in the same step.

    Raises:
        StaleRevisionError: Another record was appended first (nothing is written).
    """
    if not hidden:
        store.append(encounter_id, record)
        return
    if record.seq is None:
        raise DataError(f"Only a command's record can be hidden, got a {record.kind.value}.")
    with store._hot_write(lone=True) as connection:
        store._append_one(connection, encounter_id, record, hide=True)


def records_after(
    store: Store, encounter_id: int, after: int
) -> tuple[list[LogRecord], frozenset[int]]:
    """The records after revision ``after`` and the hidden commands, in one consistent read.

    Raises:
        UnknownEncounterError: No encounter has this id.
    """
    with store._hot_read() as connection:
        revision = connection.execute(_REVISION, {"revision_of": encounter_id}).scalar_one_or_none()
        if revision is None:
            raise UnknownEncounterError(encounter_id)
        rows = connection.execute(
            _RECORDS_AFTER, {"records_of": encounter_id, "after": after, "upto": revision}
        ).all()
        seqs = connection.execute(_HIDDEN, {"hidden_of": encounter_id}).scalars()
        return [_record(*row) for row in rows], frozenset(seqs)


# Built once (the hot path: issue 26)
_REVISION = select(EncounterRow.revision).where(EncounterRow.id == bindparam("revision_of"))
_RECORDS_AFTER = (
    select(
        LogRecordRow.revision,
        LogRecordRow.kind,
        LogRecordRow.seq,
        LogRecordRow.command,
        LogRecordRow.events,
        LogRecordRow.data,
    )
    .where(
        LogRecordRow.encounter_id == bindparam("records_of"),
        LogRecordRow.revision > bindparam("after"),
        LogRecordRow.revision <= bindparam("upto"),
    )
    .order_by(LogRecordRow.revision)
)


# redo of a withdrawn waiting command (D-5: the sweeper finds them after a restart).
MAYBE_WAITING = ("request", "answer", "redo")


def maybe_waiting(store: Store) -> list[int]:
    """The table encounters whose last record may leave a command waiting, in one read.

    An answer that resolved or withdrew its command is left out (its ``data`` says so); a redo
    is kept (only the encounter, loaded, says whether it put a waiting command back).
    """
    with store._read() as connection:
        rows = connection.execute(
            select(LogRecordRow.encounter_id, LogRecordRow.kind, LogRecordRow.data)
            .join(
                EncounterRow,
                (EncounterRow.id == LogRecordRow.encounter_id)
                & (EncounterRow.revision == LogRecordRow.revision),
            )
            .join(TableEncounterRow, TableEncounterRow.encounter_id == EncounterRow.id)
            .where(LogRecordRow.kind.in_(MAYBE_WAITING))
        ).all()
    found: list[int] = []
    for encounter_id, kind, data in rows:
        if kind == "answer" and isinstance(data, dict) and data.get("outcome"):
            continue
        found.append(int(encounter_id))
    return sorted(found)

"""The web table's records: tables, their encounters, player seats and hidden commands.

Tokens never reach the database: callers pass the hash of a token (``token_hash``), and look a
token up by its hash. A hidden command is marked in the same transaction that appends its
record, so a record is never visible to players, even for a moment, if its command was hidden.

A browser's session (W-11) is kept as the hash of its cookie and the hash of the token it was
exchanged for; every look-up that takes a ``session`` flag resolves the session to that token in
the same statement, so a session is refused the moment its token is rotated or its seat removed
(W-12). Those changes also delete the token's sessions and, on PostgreSQL, announce every
encounter of the table so that other processes' streams check their holder at once.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import (
    bindparam,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection

from tableside.errors import DataError
from tableside.store.bindings import owners_of, played_by, read_bindings, release
from tableside.store.db import (
    _NOTIFY,
    Store,
    _require_header,
    _require_text,
)
from tableside.store.errors import StoreError, UnknownEncounterError
from tableside.store.models import (
    NAME_LENGTH,
    EncounterRow,
    GameTableRow,
    SeatRow,
    TableEncounterRow,
    WebSessionRow,
)


class UnknownTableError(StoreError):
    """No web table has the id asked for."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"There is no table with id {table_id}.")
        self.table_id = table_id


class UnknownSeatError(StoreError):
    """No seat of this table has the id asked for."""

    def __init__(self, table_id: int, seat_id: int) -> None:
        super().__init__(f"Table {table_id} has no seat with id {seat_id}.")
        self.table_id = table_id
        self.seat_id = seat_id


SESSIONS_PER_TOKEN = 20
"""The newest sessions a token keeps (each visit of a join link makes one); older ones end."""


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A web table and the ids of its encounters, oldest first."""

    id: int
    name: str
    encounters: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Seat:
    """A player's seat: the combatant ids it plays.

    Read for one encounter, ``characters`` are the combatants it plays there (CH-2) and
    ``listed`` the ids the seat lists (None: the same as ``characters``).
    """

    id: int
    table_id: int
    name: str
    characters: tuple[str, ...]
    listed: tuple[str, ...] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The ids the seat lists, whatever encounter it was read for."""
        return self.characters if self.listed is None else self.listed

    def same_as(self, other: Seat) -> bool:
        """The same seat with the same name and listed ids (read for any encounter)."""
        return (self.id, self.name, self.names) == (other.id, other.name, other.names)


@dataclass(frozen=True, slots=True)
class Holder:
    """Whoever holds a token: the Host of a table (``seat`` None) or a player's seat."""

    table_id: int
    seat: Seat | None


def create_table(store: Store, name: str, host_token_hash: str) -> int:
    """Create a web table whose Host holds the token with this hash; return its id."""
    _require_text(name, "A table's name", NAME_LENGTH)
    _require_hash(host_token_hash)
    with store._write() as connection:
        return connection.execute(
            insert(GameTableRow)
            .values(name=name, host_token_hash=host_token_hash)
            .returning(GameTableRow.id)
        ).scalar_one()


def tables_named(store: Store, name: str) -> tuple[int, ...]:
    """The ids of the web tables called ``name``, oldest first."""
    with store._read() as connection:
        return tuple(
            connection.execute(
                select(GameTableRow.id).where(GameTableRow.name == name).order_by(GameTableRow.id)
            ).scalars()
        )


def table(store: Store, table_id: int) -> TableInfo:
    """One web table with its encounters.

    Raises:
        UnknownTableError: No table has this id.
    """
    with store._read() as connection:
        name = connection.execute(
            select(GameTableRow.name).where(GameTableRow.id == table_id)
        ).scalar_one_or_none()
        if name is None:
            raise UnknownTableError(table_id)
        ids = connection.execute(
            select(TableEncounterRow.encounter_id)
            .where(TableEncounterRow.table_id == table_id)
            .order_by(TableEncounterRow.encounter_id)
        ).scalars()
        return TableInfo(table_id, name, tuple(ids))


def create_table_encounter(store: Store, table_id: int, name: str, game: str, seed: int) -> int:
    """Create an empty encounter at a table, in one transaction; return its id."""
    _require_header(name, game, seed)
    with store._write() as connection:
        _require_table(connection, table_id)
        encounter_id = connection.execute(
            insert(EncounterRow)
            .values(name=name, game=game, seed=seed, revision=0)
            .returning(EncounterRow.id)
        ).scalar_one()
        connection.execute(
            insert(TableEncounterRow).values(encounter_id=encounter_id, table_id=table_id)
        )
        return int(encounter_id)


def table_of(store: Store, encounter_id: int) -> int | None:
    """The table an encounter is played at (None for an encounter of no table)."""
    with store._read() as connection:
        return connection.execute(
            select(TableEncounterRow.table_id).where(TableEncounterRow.encounter_id == encounter_id)
        ).scalar_one_or_none()


def add_seat(
    store: Store, table_id: int, name: str, characters: tuple[str, ...], token_hash: str
) -> Seat:
    """Add a player's seat, playing ``characters``, whose token has this hash."""
    _require_text(name, "A player's name", NAME_LENGTH)
    _require_hash(token_hash)
    with store._write() as connection:
        _require_table(connection, table_id)
        seat_id = connection.execute(
            insert(SeatRow)
            .values(table_id=table_id, name=name, token_hash=token_hash, characters=characters)
            .returning(SeatRow.id)
        ).scalar_one()
        release(connection, table_id, characters)
    return Seat(seat_id, table_id, name, characters)


# Built once (a command's policy reads them: issue 21, item 8)
_TABLE_SEATS = (
    select(SeatRow.id, SeatRow.table_id, SeatRow.name, SeatRow.characters)
    .where(SeatRow.table_id == bindparam("seats_of"))
    .order_by(SeatRow.id)
)


def seats(store: Store, table_id: int, encounter_id: int | None = None) -> list[Seat]:
    """Every seat of a table, oldest first.

    With ``encounter_id`` each seat's characters are the combatants it plays in that encounter
    (CH-2: bound ones by their roster character's owner); without, the ids the seat lists.
    """
    with store._read() as connection:
        rows = connection.execute(_TABLE_SEATS, {"seats_of": table_id}).all()
        if encounter_id is None:
            return [Seat(i, t, n, tuple(c)) for i, t, n, c in rows]
        bound = read_bindings(connection, encounter_id)
    return [Seat(i, t, n, played_by(i, c, owners_of(bound)), tuple(c)) for i, t, n, c in rows]


def holder(store: Store, token_hash: str, session: bool = False) -> Holder | None:
    """Who holds the token with this hash (None when nobody does).

    Args:
        store: The store.
        token_hash: The hash of a token, or with ``session`` of a session's cookie.
        session: Resolve a session to the token it was exchanged for first (W-11).
    """
    with store._read() as connection:
        if session:
            found = connection.execute(
                select(WebSessionRow.token_hash).where(WebSessionRow.session_hash == token_hash)
            ).scalar_one_or_none()
            if found is None:
                return None
            token_hash = found
        table_id = connection.execute(
            select(GameTableRow.id).where(GameTableRow.host_token_hash == token_hash)
        ).scalar_one_or_none()
        if table_id is not None:
            return Holder(table_id, None)
        row = connection.execute(
            select(SeatRow.id, SeatRow.table_id, SeatRow.name, SeatRow.characters).where(
                SeatRow.token_hash == token_hash
            )
        ).one_or_none()
    if row is None:
        return None
    seat = Seat(row.id, row.table_id, row.name, tuple(row.characters))
    return Holder(seat.table_id, seat)


def create_session(store: Store, session_hash: str, token_hash: str) -> None:
    """A new session for the token with this hash (W-11); its oldest beyond the limit end.

    Raises:
        DataError: A hash that is not a sha256.
    """
    _require_hash(session_hash)
    _require_hash(token_hash)
    with store._write() as connection:
        connection.execute(
            insert(WebSessionRow).values(session_hash=session_hash, token_hash=token_hash)
        )
        oldest_kept = connection.execute(
            select(WebSessionRow.id)
            .where(WebSessionRow.token_hash == token_hash)
            .order_by(WebSessionRow.id.desc())
            .offset(SESSIONS_PER_TOKEN - 1)
            .limit(1)
        ).scalar_one_or_none()
        if oldest_kept is not None:
            connection.execute(
                delete(WebSessionRow).where(
                    WebSessionRow.token_hash == token_hash, WebSessionRow.id < oldest_kept
                )
            )


def sessions(store: Store, token_hash: str) -> int:
    """How many sessions the token with this hash has (for tests and the docs' figures)."""
    with store._read() as connection:
        return len(
            connection.execute(
                select(WebSessionRow.session_hash).where(WebSessionRow.token_hash == token_hash)
            ).all()
        )


def remove_seat(store: Store, table_id: int, seat_id: int) -> Seat:
    """Remove a seat of a table (W-12): its token and sessions are refused from now on.

    Raises:
        UnknownTableError: No table has this id.
        UnknownSeatError: The table has no seat with this id.
    """
    with store._write() as connection:
        seat, old_hash = _seat(connection, table_id, seat_id)
        connection.execute(delete(SeatRow).where(SeatRow.id == seat_id))
        _revoked(store, connection, table_id, old_hash)
    return seat


def edit_seat(
    store: Store, table_id: int, seat_id: int, name: str, characters: tuple[str, ...]
) -> Seat:
    """Rename a seat and set the characters it plays; its token and sessions stay (W-28).

    Raises:
        UnknownTableError: No table has this id.
        UnknownSeatError: The table has no seat with this id.
    """
    _require_text(name, "A player's name", NAME_LENGTH)
    with store._write() as connection:
        before, _hash = _seat(connection, table_id, seat_id)
        connection.execute(
            update(SeatRow).where(SeatRow.id == seat_id).values(name=name, characters=characters)
        )
        release(connection, table_id, tuple(c for c in characters if c not in before.characters))
    return Seat(seat_id, table_id, name, characters)


def rotate_seat_token(store: Store, table_id: int, seat_id: int, token_hash: str) -> Seat:
    """Give a seat the token with this hash (W-12): the old one and its sessions are refused.

    Raises:
        UnknownTableError: No table has this id.
        UnknownSeatError: The table has no seat with this id.
    """
    _require_hash(token_hash)
    with store._write() as connection:
        seat, old_hash = _seat(connection, table_id, seat_id)
        connection.execute(
            update(SeatRow).where(SeatRow.id == seat_id).values(token_hash=token_hash)
        )
        _revoked(store, connection, table_id, old_hash)
    return seat


def rotate_host_token(store: Store, table_id: int, token_hash: str) -> None:
    """Give a table's Host the token with this hash (W-12): the old one and its sessions end.

    Raises:
        UnknownTableError: No table has this id.
    """
    _require_hash(token_hash)
    with store._write() as connection:
        old_hash = connection.execute(
            select(GameTableRow.host_token_hash).where(GameTableRow.id == table_id)
        ).scalar_one_or_none()
        if old_hash is None:
            raise UnknownTableError(table_id)
        connection.execute(
            update(GameTableRow)
            .where(GameTableRow.id == table_id)
            .values(host_token_hash=token_hash)
        )
        _revoked(store, connection, table_id, old_hash)


def table_encounters(store: Store, table_id: int) -> tuple[int, ...]:
    """The ids of a table's encounters (no check that the table exists)."""
    with store._read() as connection:
        return tuple(
            connection.execute(
                select(TableEncounterRow.encounter_id).where(TableEncounterRow.table_id == table_id)
            ).scalars()
        )


def _seat(connection: Connection, table_id: int, seat_id: int) -> tuple[Seat, str]:
    """A seat of the table and its token's hash, or UnknownTableError / UnknownSeatError."""
    _require_table(connection, table_id)
    row = connection.execute(
        select(SeatRow.name, SeatRow.characters, SeatRow.token_hash).where(
            SeatRow.id == seat_id, SeatRow.table_id == table_id
        )
    ).one_or_none()
    if row is None:
        raise UnknownSeatError(table_id, seat_id)
    return Seat(seat_id, table_id, row.name, tuple(row.characters)), row.token_hash


def _revoked(store: Store, connection: Connection, table_id: int, old_hash: str) -> None:
    """End the old token's sessions; on PostgreSQL announce the table's encounters at commit."""
    connection.execute(delete(WebSessionRow).where(WebSessionRow.token_hash == old_hash))
    if store.backend != "postgresql":
        return
    ids = connection.execute(
        select(TableEncounterRow.encounter_id).where(TableEncounterRow.table_id == table_id)
    ).scalars()
    for encounter_id in ids:
        connection.execute(_NOTIFY, {"payload": f"{encounter_id}:revoked"})


def _require_encounter(connection: Connection, encounter_id: int) -> None:
    found = connection.execute(
        select(EncounterRow.id).where(EncounterRow.id == encounter_id)
    ).scalar_one_or_none()
    if found is None:
        raise UnknownEncounterError(encounter_id)


def _require_table(connection: Connection, table_id: int) -> None:
    found = connection.execute(
        select(GameTableRow.id).where(GameTableRow.id == table_id)
    ).scalar_one_or_none()
    if found is None:
        raise UnknownTableError(table_id)


def _require_hash(value: str) -> None:
    if not isinstance(value, str) or len(value) != 64:
        raise DataError("A token hash must be 64 hexadecimal digits (sha256).")


def revisions(store: Store, encounter_ids: Collection[int]) -> dict[int, int]:
    """The stored revision of each of these encounters (unknown ids are left out), in one read."""
    with store._read() as connection:
        rows = connection.execute(
            select(EncounterRow.id, EncounterRow.revision).where(
                EncounterRow.id.in_(list(encounter_ids))
            )
        ).all()
    return {int(i): int(r) for i, r in rows}

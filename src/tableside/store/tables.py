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
from typing import Any

from sqlalchemy import (
    bindparam,
    delete,
    insert,
    literal_column,
    null,
    select,
    union_all,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import CompoundSelect, Select

from tableside.encounter.log import LogRecord
from tableside.errors import DataError
from tableside.store.bindings import Binding, played_by, read_bindings, release
from tableside.store.db import (
    _NOTIFY,
    EncounterInfo,
    Store,
    _record,
    _record_row,
    _require_header,
    _require_text,
)
from tableside.store.errors import StoreError, UnknownEncounterError
from tableside.store.models import (
    COMBATANT_LENGTH,
    NAME_LENGTH,
    EncounterCombatantRow,
    EncounterRow,
    EncounterSecrecyRow,
    EncounterSettingsRow,
    GameTableRow,
    HiddenCommandRow,
    LogRecordRow,
    RosterCharacterRow,
    SeatRow,
    SecretValueRow,
    TableEncounterRow,
    WebSessionRow,
)

_INSERT_RECORD = insert(LogRecordRow)


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
    return [Seat(i, t, n, played_by(i, c, bound), tuple(c)) for i, t, n, c in rows]


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
    with store._read() as connection:
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
    seat = next((s for s in audience.seats if s.id == seat_id), None)
    if seat is None:  # not listed for this encounter's table: plays nothing here
        seat = Seat(seat_id, table_id, seat_name, (), tuple(characters))
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
    with store._write() as connection:
        store._bump(connection, encounter_id, record.revision)
        connection.execute(_INSERT_RECORD, _record_row(encounter_id, record))
        connection.execute(
            insert(HiddenCommandRow).values(encounter_id=encounter_id, seq=record.seq)
        )


def hidden_seqs(store: Store, encounter_id: int) -> frozenset[int]:
    """The ``seq`` of every hidden command of an encounter."""
    with store._read() as connection:
        return frozenset(connection.execute(_HIDDEN, {"hidden_of": encounter_id}).scalars())


_HIDDEN = select(HiddenCommandRow.seq).where(
    HiddenCommandRow.encounter_id == bindparam("hidden_of")
)


def records_after(
    store: Store, encounter_id: int, after: int
) -> tuple[list[LogRecord], frozenset[int]]:
    """The records after revision ``after`` and the hidden commands, in one consistent read.

    Raises:
        UnknownEncounterError: No encounter has this id.
    """
    with store._read() as connection:
        revision = connection.execute(
            select(EncounterRow.revision).where(EncounterRow.id == encounter_id)
        ).scalar_one_or_none()
        if revision is None:
            raise UnknownEncounterError(encounter_id)
        rows = connection.execute(
            select(
                LogRecordRow.revision,
                LogRecordRow.kind,
                LogRecordRow.seq,
                LogRecordRow.command,
                LogRecordRow.events,
                LogRecordRow.data,
            )
            .where(
                LogRecordRow.encounter_id == encounter_id,
                LogRecordRow.revision > after,
                LogRecordRow.revision <= revision,
            )
            .order_by(LogRecordRow.revision)
        ).all()
        seqs = connection.execute(
            select(HiddenCommandRow.seq).where(HiddenCommandRow.encounter_id == encounter_id)
        ).scalars()
        return [_record(*row) for row in rows], frozenset(seqs)


@dataclass(frozen=True, slots=True)
class Secrecy:
    """Whose values are secret from players in one encounter (see docs/web.md, W-1 … W-4).

    Attributes:
        npcs_secret: The encounter's setting: NPCs' values are secret (the default).
        choices: The Host's choice per combatant id (True secret, False open).
        played: Every combatant id a seat of the encounter's table plays.
    """

    npcs_secret: bool
    choices: dict[str, bool]
    played: frozenset[str]

    def secret(self, combatant: str) -> bool:
        """Whether the combatant's values are secret (from players who do not play it)."""
        chosen = self.choices.get(combatant)
        if chosen is not None:
            return chosen
        return self.npcs_secret and combatant not in self.played


# Built once: the setting (part 0), the Host's choices (part 1), every seat at the encounter's
# table (part 2: its characters, id and name) and the decision settings (part 3: npcs_decide as
# ``combatant``, trust_modifiers as ``flag``, decision_timeout as ``seat_id``, hidden_asks as
# ``seat_name``), in one statement. The seats' part comes first so that the union's columns keep
# their types (``characters`` is JSON).
_SECRECY: CompoundSelect[Any] = union_all(
    select(
        literal_column("2").label("part"),
        null().label("combatant"),
        null().label("flag"),
        SeatRow.characters.label("characters"),
        SeatRow.id.label("seat_id"),
        SeatRow.name.label("seat_name"),
        SeatRow.table_id.label("table_id"),
    )
    .join(TableEncounterRow, TableEncounterRow.table_id == SeatRow.table_id)
    .where(TableEncounterRow.encounter_id == bindparam("secrecy_id")),
    select(
        literal_column("0"),
        null(),
        EncounterSecrecyRow.npcs_secret,
        null(),
        null(),
        null(),
        null(),
    ).where(EncounterSecrecyRow.encounter_id == bindparam("secrecy_id")),
    select(
        literal_column("1"),
        SecretValueRow.combatant,
        SecretValueRow.secret,
        null(),
        null(),
        null(),
        null(),
    ).where(SecretValueRow.encounter_id == bindparam("secrecy_id")),
    select(
        literal_column("3"),
        EncounterSettingsRow.npcs_decide,
        EncounterSettingsRow.trust_modifiers,
        null(),
        EncounterSettingsRow.decision_timeout,
        EncounterSettingsRow.hidden_asks,
        null(),
    ).where(EncounterSettingsRow.encounter_id == bindparam("secrecy_id")),
    select(  # the combatants bound to the roster, and their characters' owners (CH-2)
        literal_column("4"),
        EncounterCombatantRow.combatant,
        EncounterCombatantRow.carried,
        null(),
        RosterCharacterRow.owner_seat_id,
        null(),
        EncounterCombatantRow.character_id,
    )
    .join(
        RosterCharacterRow,
        RosterCharacterRow.id == EncounterCombatantRow.character_id,
        isouter=True,
    )
    .where(EncounterCombatantRow.encounter_id == bindparam("secrecy_id")),
)


@dataclass(frozen=True, slots=True)
class Audience:
    """Who sits at an encounter's table and how its decisions are made, read with its secrecy.

    A player's request reads it with the read that authorises it (issue 21, item 8: a command's
    policy then reads nothing more).
    """

    secrecy: Secrecy
    seats: list[Seat]
    settings: DecisionSettings


def audience(store: Store, encounter_id: int) -> tuple[Audience, frozenset[int]]:
    """The encounter's :class:`Audience` and its hidden commands' ``seq``, in one transaction."""
    with store._read() as connection:
        found = _read_audience(connection, encounter_id)
        hidden = frozenset(connection.execute(_HIDDEN, {"hidden_of": encounter_id}).scalars())
    return found, hidden


def secrecy(store: Store, encounter_id: int) -> Secrecy:
    """The encounter's secrecy settings and its table's seats, in one statement."""
    with store._read() as connection:
        return _read_audience(connection, encounter_id).secrecy


def _read_secrecy(connection: Connection, encounter_id: int) -> Secrecy:
    """The encounter's secrecy on an open connection (one statement)."""
    return _read_audience(connection, encounter_id).secrecy


def _read_audience(connection: Connection, encounter_id: int) -> Audience:
    """The encounter's secrecy, its table's seats and its decision settings (one statement).

    A combatant bound to the roster is played when its character has an owner seat, by that
    seat only; an unbound one when a seat lists its id (CH-2).
    """
    npcs_secret = True  # the default when the encounter has no setting stored
    choices: dict[str, bool] = {}
    played: set[str] = set()
    listed: list[tuple[int, int, str, tuple[str, ...]]] = []
    bound: dict[str, Binding] = {}
    settings = DecisionSettings()
    for part, combatant, flag, characters, seat_id, seat_name, table_id in connection.execute(
        _SECRECY, {"secrecy_id": encounter_id}
    ):
        if part == 0:
            npcs_secret = bool(flag)
        elif part == 1:
            choices[combatant] = bool(flag)
        elif part == 2:
            played.update(characters)
            listed.append((seat_id, table_id, str(seat_name), tuple(characters)))
        elif part == 3:
            settings = DecisionSettings(seat_id, str(combatant), bool(flag), str(seat_name))
        else:
            bound[combatant] = Binding(combatant, table_id, seat_id, bool(flag))
    played.difference_update(bound)
    played.update(b.combatant for b in bound.values() if b.owner is not None)
    seats = [
        Seat(seat_id, table_id, name, played_by(seat_id, names, bound), names)
        for seat_id, table_id, name, names in sorted(listed)
    ]
    return Audience(Secrecy(npcs_secret, choices, frozenset(played)), seats, settings)


def set_npcs_secret(store: Store, encounter_id: int, npcs_secret: bool) -> None:
    """Set whether the values of an encounter's NPCs are secret."""
    with store._write() as connection:
        _require_encounter(connection, encounter_id)
        connection.execute(
            delete(EncounterSecrecyRow).where(EncounterSecrecyRow.encounter_id == encounter_id)
        )
        connection.execute(
            insert(EncounterSecrecyRow).values(encounter_id=encounter_id, npcs_secret=npcs_secret)
        )


def set_secret(store: Store, encounter_id: int, combatant: str, secret: bool | None) -> None:
    """The Host's choice for one combatant: secret, open, or None to follow the setting."""
    _require_text(combatant, "A combatant id", COMBATANT_LENGTH)
    with store._write() as connection:
        _require_encounter(connection, encounter_id)
        connection.execute(
            delete(SecretValueRow).where(
                SecretValueRow.encounter_id == encounter_id, SecretValueRow.combatant == combatant
            )
        )
        if secret is not None:
            connection.execute(
                insert(SecretValueRow).values(
                    encounter_id=encounter_id, combatant=combatant, secret=secret
                )
            )


TIMEOUT_MIN = 5
TIMEOUT_MAX = 3600
NPCS_DECIDE = ("ask", "auto")
HIDDEN_ASKS = ("player", "host")


@dataclass(frozen=True, slots=True)
class DecisionSettings:
    """An encounter's decision settings (docs/decisions.md, D-4 and D-5).

    Attributes:
        decision_timeout: Seconds after which an unanswered decision takes its suggestion
            (D-5); None waits for the answer (the default).
        npcs_decide: ``auto`` (the suggestion is taken at once, the default since issue 21) or
            ``ask`` (the Host is asked for its NPCs' choices).
        trust_modifiers: A player's proposed modifiers apply without the Host's approval (D-4;
            off by default).
        hidden_asks: Who decides a hidden Host command's choices that belong to a player's
            character: ``player`` (its player is asked, the default) or ``host`` (the Host
            decides them, and both screens say so; issue 21, D-4).
    """

    decision_timeout: int | None = None
    npcs_decide: str = "auto"
    trust_modifiers: bool = False
    hidden_asks: str = "player"

    def __post_init__(self) -> None:
        """Refuse a setting out of range, naming it and the value."""
        timeout = self.decision_timeout
        if timeout is not None and (
            isinstance(timeout, bool)
            or not isinstance(timeout, int)
            or not TIMEOUT_MIN <= timeout <= TIMEOUT_MAX
        ):
            raise DataError(
                f"The decision timeout must be null (wait) or whole seconds from {TIMEOUT_MIN} "
                f"to {TIMEOUT_MAX}, not {timeout!r}."
            )
        if self.npcs_decide not in NPCS_DECIDE:
            raise DataError(f"npcs_decide must be 'ask' or 'auto', not {self.npcs_decide!r}.")
        if not isinstance(self.trust_modifiers, bool):
            raise DataError(f"trust_modifiers must be true or false, not {self.trust_modifiers!r}.")
        if self.hidden_asks not in HIDDEN_ASKS:
            raise DataError(f"hidden_asks must be 'player' or 'host', not {self.hidden_asks!r}.")

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (what ``GET /api/encounters/{eid}/settings`` answers)."""
        return {
            "decision_timeout": self.decision_timeout,
            "npcs_decide": self.npcs_decide,
            "trust_modifiers": self.trust_modifiers,
            "hidden_asks": self.hidden_asks,
        }


def decision_settings(store: Store, encounter_id: int) -> DecisionSettings:
    """The encounter's decision settings (the defaults when none are stored)."""
    with store._read() as connection:
        return _read_settings(connection, encounter_id)


def seats_and_settings(
    store: Store, table_id: int, encounter_id: int
) -> tuple[list[Seat], DecisionSettings]:
    """A table's seats and an encounter's decision settings in one read (a command's policy)."""
    with store._read() as connection:
        rows = connection.execute(_TABLE_SEATS, {"seats_of": table_id}).all()
        settings = _read_settings(connection, encounter_id)
        bound = read_bindings(connection, encounter_id)
    return [Seat(i, t, n, played_by(i, c, bound), tuple(c)) for i, t, n, c in rows], settings


# Built once (a command's policy reads them: issue 21, item 8)
_TABLE_SEATS = (
    select(SeatRow.id, SeatRow.table_id, SeatRow.name, SeatRow.characters)
    .where(SeatRow.table_id == bindparam("seats_of"))
    .order_by(SeatRow.id)
)
_SETTINGS = select(
    EncounterSettingsRow.decision_timeout,
    EncounterSettingsRow.npcs_decide,
    EncounterSettingsRow.trust_modifiers,
    EncounterSettingsRow.hidden_asks,
).where(EncounterSettingsRow.encounter_id == bindparam("settings_of"))


def _read_settings(connection: Connection, encounter_id: int) -> DecisionSettings:
    """The decision settings on an open connection."""
    row = connection.execute(_SETTINGS, {"settings_of": encounter_id}).one_or_none()
    if row is None:
        return DecisionSettings()
    return DecisionSettings(row[0], str(row[1]), bool(row[2]), str(row[3]))


def set_decision_settings(store: Store, encounter_id: int, settings: DecisionSettings) -> None:
    """Store the encounter's decision settings (replacing any).

    Raises:
        UnknownEncounterError: No encounter has this id.
    """
    with store._write() as connection:
        _require_encounter(connection, encounter_id)
        connection.execute(
            delete(EncounterSettingsRow).where(EncounterSettingsRow.encounter_id == encounter_id)
        )
        connection.execute(
            insert(EncounterSettingsRow).values(
                encounter_id=encounter_id,
                decision_timeout=settings.decision_timeout,
                npcs_decide=settings.npcs_decide,
                trust_modifiers=settings.trust_modifiers,
                hidden_asks=settings.hidden_asks,
            )
        )


# A waiting encounter's last record is a request, an answer that left questions open, or the
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

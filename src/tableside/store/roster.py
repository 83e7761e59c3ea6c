"""A table's roster: characters that live beyond one fight (issue 25, CH-1 … CH-30).

The store knows no game: a roster character is kept as its game's validated sheet (validated by
``tableside.roster``), with its owner seat (None: the Host's), a player's edit waiting for the
Host's approval and the last carry-over. An encounter's combatant made from a roster character,
or loaded from a file as the Host's, is bound in ``encounter_combatants`` (CH-2): the seat that
plays it is then its character's owner, whatever names the seats list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from tableside.errors import DataError
from tableside.store.bindings import Binding, read_bindings
from tableside.store.db import Store, _require_text
from tableside.store.errors import StoreError
from tableside.store.formats import require_plain_json
from tableside.store.models import (
    COMBATANT_LENGTH,
    GAME_LENGTH,
    NAME_LENGTH,
    EncounterCombatantRow,
    GameTableRow,
    RosterCharacterRow,
    SeatRow,
    TableEncounterRow,
)
from tableside.store.tables import UnknownSeatError, UnknownTableError, _require_table


class UnknownRosterCharacterError(StoreError):
    """No roster character has the id asked for."""

    def __init__(self, character_id: int) -> None:
        super().__init__(f"There is no roster character with id {character_id}.")
        self.character_id = character_id


@dataclass(frozen=True, slots=True)
class RosterCharacter:
    """A roster character (CH-1).

    Attributes:
        id: Its id.
        table_id: The table whose roster holds it.
        game: The encounter game it plays in (``majesty-war`` or ``strife-combat``).
        name: Its name (the sheet's).
        sheet: The game's own sheet, with the current values.
        owner: The seat that owns it (None: the Host's).
        pending: A player's edit waiting for the Host (CH-13), or None.
        carried: What the last carry-over changed (CH-10), or None.
    """

    id: int
    table_id: int
    game: str
    name: str
    sheet: dict[str, Any]
    owner: int | None
    pending: dict[str, Any] | None = None
    carried: dict[str, Any] | None = None


_COLUMNS = (
    RosterCharacterRow.id,
    RosterCharacterRow.table_id,
    RosterCharacterRow.game,
    RosterCharacterRow.name,
    RosterCharacterRow.sheet,
    RosterCharacterRow.owner_seat_id,
    RosterCharacterRow.pending,
    RosterCharacterRow.carried,
)


def _character(row: Any) -> RosterCharacter:
    return RosterCharacter(*row)


def _require_document(value: object, what: str) -> None:
    if not isinstance(value, dict):
        raise DataError(f"{what} must be a JSON object.")
    require_plain_json(value, what)


def _require_owner(connection: Connection, table_id: int, owner: int | None) -> None:
    if owner is None:
        return
    found = connection.execute(
        select(SeatRow.id).where(SeatRow.id == owner).where(SeatRow.table_id == table_id)
    ).scalar_one_or_none()
    if found is None:
        raise UnknownSeatError(table_id, owner)


def _insert(
    connection: Connection, table_id: int, game: str, sheet: dict[str, Any], owner: int | None
) -> int:
    name = sheet.get("name")
    _require_text(name, "A character's name", NAME_LENGTH)
    _require_text(game, "A character's game", GAME_LENGTH)
    _require_document(sheet, "A character's sheet")
    _require_owner(connection, table_id, owner)
    return int(
        connection.execute(
            insert(RosterCharacterRow)
            .values(table_id=table_id, game=game, name=name, sheet=sheet, owner_seat_id=owner)
            .returning(RosterCharacterRow.id)
        ).scalar_one()
    )


def add_character(
    store: Store, table_id: int, game: str, sheet: dict[str, Any], owner: int | None
) -> int:
    """Add a validated sheet to a table's roster, owned by a seat of that table or the Host.

    Raises:
        UnknownTableError: No table has this id.
        UnknownSeatError: The owner is no seat of this table.
    """
    with store._write() as connection:
        _require_table(connection, table_id)
        return _insert(connection, table_id, game, sheet, owner)


def characters(store: Store, table_id: int) -> list[RosterCharacter]:
    """A table's roster, oldest first.

    Raises:
        UnknownTableError: No table has this id.
    """
    with store._read() as connection:
        _require_table(connection, table_id)
        rows = connection.execute(
            select(*_COLUMNS)
            .where(RosterCharacterRow.table_id == table_id)
            .order_by(RosterCharacterRow.id)
        ).all()
    return [_character(row) for row in rows]


def character(store: Store, character_id: int) -> RosterCharacter:
    """One roster character.

    Raises:
        UnknownRosterCharacterError: No roster character has this id.
    """
    with store._read() as connection:
        return _read(connection, character_id)


def _read(connection: Connection, character_id: int) -> RosterCharacter:
    row = connection.execute(
        select(*_COLUMNS).where(RosterCharacterRow.id == character_id)
    ).one_or_none()
    if row is None:
        raise UnknownRosterCharacterError(character_id)
    return _character(row)


_UNSET: Any = object()


def edit_character(
    store: Store,
    character_id: int,
    *,
    sheet: dict[str, Any] = _UNSET,
    owner: int | None = _UNSET,
    pending: dict[str, Any] | None = _UNSET,
    carried: dict[str, Any] | None = _UNSET,
) -> RosterCharacter:
    """Change a roster character's sheet, owner, pending edit or carry-over, in one write.

    Raises:
        UnknownRosterCharacterError: No roster character has this id.
        UnknownSeatError: The new owner is no seat of its table.
    """
    with store._write() as connection:
        return _edit(connection, character_id, sheet, owner, pending, carried)


def _edit(
    connection: Connection,
    character_id: int,
    sheet: dict[str, Any],
    owner: int | None,
    pending: dict[str, Any] | None,
    carried: dict[str, Any] | None,
) -> RosterCharacter:
    before = _read(connection, character_id)
    values: dict[str, Any] = {}
    if sheet is not _UNSET:
        _require_document(sheet, "A character's sheet")
        name = sheet.get("name")
        _require_text(name, "A character's name", NAME_LENGTH)
        values |= {"sheet": sheet, "name": name}
    if owner is not _UNSET:
        _require_owner(connection, before.table_id, owner)
        values["owner_seat_id"] = owner
    for key, value in (("pending", pending), ("carried", carried)):
        if value is not _UNSET:
            if value is not None:
                _require_document(value, f"A character's {key}")
            values[key] = value
    if values:
        connection.execute(
            update(RosterCharacterRow).where(RosterCharacterRow.id == character_id).values(values)
        )
    return _read(connection, character_id)


def remove_character(store: Store, character_id: int) -> None:
    """Remove a roster character (its combatants in past encounters become the Host's)."""
    with store._write() as connection:
        _read(connection, character_id)
        connection.execute(delete(RosterCharacterRow).where(RosterCharacterRow.id == character_id))


def trusts_players(store: Store, table_id: int) -> bool:
    """The table's setting: do players' edits of rule-fixed numbers apply at once (CH-14)?"""
    with store._read() as connection:
        trust = connection.execute(
            select(GameTableRow.trust_players).where(GameTableRow.id == table_id)
        ).scalar_one_or_none()
    if trust is None:
        raise UnknownTableError(table_id)
    return bool(trust)


def set_trust_players(store: Store, table_id: int, trust: bool) -> None:
    """Set whether players' edits apply without the Host's approval (CH-14)."""
    with store._write() as connection:
        _require_table(connection, table_id)
        connection.execute(
            update(GameTableRow).where(GameTableRow.id == table_id).values(trust_players=trust)
        )


def bind(store: Store, encounter_id: int, combatant: str, character_id: int | None) -> None:
    """Bind an encounter's combatant to a roster character, or to the Host (None) (CH-2)."""
    with store._write() as connection:
        _bind(connection, encounter_id, combatant, character_id)


def _bind(
    connection: Connection, encounter_id: int, combatant: str, character_id: int | None
) -> None:
    _require_text(combatant, "A combatant's id", COMBATANT_LENGTH)
    connection.execute(
        delete(EncounterCombatantRow)
        .where(EncounterCombatantRow.encounter_id == encounter_id)
        .where(EncounterCombatantRow.combatant == combatant)
    )
    connection.execute(
        insert(EncounterCombatantRow).values(
            encounter_id=encounter_id,
            combatant=combatant,
            character_id=character_id,
            carried=False,
        )
    )


def bind_to_host(store: Store, encounter_id: int, combatants: list[str]) -> None:
    """Bind combatants to the Host, whatever names the seats list (a file's, CH-2), at once."""
    with store._write() as connection:
        for combatant in combatants:
            _bind(connection, encounter_id, combatant, None)


def unbind(store: Store, encounter_id: int, combatants: list[str]) -> None:
    """Forget the bindings of these combatants (a load that failed)."""
    with store._write() as connection:
        connection.execute(
            delete(EncounterCombatantRow)
            .where(EncounterCombatantRow.encounter_id == encounter_id)
            .where(EncounterCombatantRow.combatant.in_(combatants))
        )


def bindings(store: Store, encounter_id: int) -> dict[str, Binding]:
    """Every bound combatant of an encounter with its character's owner (CH-2)."""
    with store._read() as connection:
        return read_bindings(connection, encounter_id)


def apply_carry_over(
    store: Store, encounter_id: int, changes: Mapping[str, tuple[int, dict[str, Any], Any]]
) -> None:
    """Write a confirmed carry-over, all at once (CH-9).

    Args:
        store: The store.
        encounter_id: The encounter that ended.
        changes: Per combatant: its roster character, the new sheet and what changed.

    Raises:
        StoreError: A combatant was already carried over (nothing is written).
    """
    with store._write() as connection:
        bound = read_bindings(connection, encounter_id)
        for combatant, (character_id, sheet, changed) in changes.items():
            binding = bound.get(combatant)
            if binding is None or binding.character_id != character_id or binding.carried:
                raise StoreError(
                    f"{combatant} of encounter {encounter_id} has no carry-over to apply "
                    "(already applied, or not from the roster)."
                )
            _edit(connection, character_id, sheet, _UNSET, _UNSET, changed)
            connection.execute(
                update(EncounterCombatantRow)
                .where(EncounterCombatantRow.encounter_id == encounter_id)
                .where(EncounterCombatantRow.combatant == combatant)
                .values(carried=True)
            )


def fights_of(store: Store, character_id: int) -> list[tuple[int, str]]:
    """The encounters a roster character fought in (encounter id, combatant), oldest first."""
    with store._read() as connection:
        _read(connection, character_id)
        rows = connection.execute(
            select(EncounterCombatantRow.encounter_id, EncounterCombatantRow.combatant)
            .where(EncounterCombatantRow.character_id == character_id)
            .order_by(EncounterCombatantRow.encounter_id)
        ).all()
    return [(int(e), str(c)) for e, c in rows]


def table_bindings(store: Store, table_id: int) -> list[tuple[int, str, int | None, bool]]:
    """Every binding of a table's encounters (encounter, combatant, character, carried)."""
    with store._read() as connection:
        rows = connection.execute(
            select(
                EncounterCombatantRow.encounter_id,
                EncounterCombatantRow.combatant,
                EncounterCombatantRow.character_id,
                EncounterCombatantRow.carried,
            )
            .join(
                TableEncounterRow,
                TableEncounterRow.encounter_id == EncounterCombatantRow.encounter_id,
            )
            .where(TableEncounterRow.table_id == table_id)
            .order_by(EncounterCombatantRow.encounter_id, EncounterCombatantRow.combatant)
        ).all()
    return [(int(e), str(c), None if i is None else int(i), bool(d)) for e, c, i, d in rows]

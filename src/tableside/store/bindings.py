"""Which seat plays a combatant of one encounter: by binding to the roster (CH-2), else by name.

Kept apart from ``tables`` and ``roster`` so that both read the same rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, select
from sqlalchemy.engine import Connection

from tableside.store.models import EncounterCombatantRow, RosterCharacterRow, TableEncounterRow
from tableside.store.raw import Executes


@dataclass(frozen=True, slots=True)
class Binding:
    """A combatant of an encounter bound to a roster character, or to the Host (CH-2)."""

    combatant: str
    character_id: int | None
    owner: int | None
    carried: bool


_BINDINGS = (
    select(
        EncounterCombatantRow.combatant,
        EncounterCombatantRow.character_id,
        RosterCharacterRow.owner_seat_id,
        EncounterCombatantRow.carried,
    )
    .join(
        RosterCharacterRow,
        RosterCharacterRow.id == EncounterCombatantRow.character_id,
        isouter=True,
    )
    .order_by(EncounterCombatantRow.combatant)
)


_BINDINGS_OF = _BINDINGS.where(EncounterCombatantRow.encounter_id == bindparam("bindings_of"))


def read_bindings(connection: Executes, encounter_id: int) -> dict[str, Binding]:
    """The bindings on an open connection (one statement)."""
    rows = connection.execute(_BINDINGS_OF, {"bindings_of": encounter_id}).all()
    return {c: Binding(c, cid, owner, bool(done)) for c, cid, owner, done in rows}


def owners_of(bound: Mapping[str, Binding]) -> dict[str, int | None]:
    """Each bound combatant's owner seat (None: the Host's)."""
    return {name: b.owner for name, b in bound.items()}


def played_by(
    seat_id: int, names: Iterable[str], owners: Mapping[str, int | None]
) -> tuple[str, ...]:
    """The combatants a seat plays in one encounter (CH-2).

    A bound combatant (``owners``: its owner seat, None for the Host) is played by its
    character's owner only; an unbound one (every combatant of an encounter made before the
    roster, or added by name) by the seats that list its id.
    """
    named = tuple(n for n in names if n not in owners)
    owned = tuple(name for name, owner in sorted(owners.items()) if owner == seat_id)
    return tuple(dict.fromkeys((*named, *owned)))


def release(connection: Connection, table_id: int, listed: Iterable[str]) -> None:
    """The Host lists ids on a seat: the table's combatants so named stop being the Host's.

    A combatant loaded from a file is the Host's (CH-2) until the Host adds its id to a seat's
    list (a new seat, or an id new to the seat); a roster character's stays its owner's.
    """
    names = tuple(listed)
    if not names:
        return
    of_table = select(TableEncounterRow.encounter_id).where(TableEncounterRow.table_id == table_id)
    connection.execute(
        delete(EncounterCombatantRow)
        .where(EncounterCombatantRow.character_id.is_(None))
        .where(EncounterCombatantRow.combatant.in_(names))
        .where(EncounterCombatantRow.encounter_id.in_(of_table))
    )

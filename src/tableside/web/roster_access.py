"""Who may reach a roster character, and a roster character into a fight (issue 25).

Shared by the roster's API (``characters``), the sheet pages (``sheet_page``) and the set-up
API's ``POST /api/encounters/{eid}/characters {"roster": cid}`` (``setup``).
"""

from __future__ import annotations

from typing import Any

from tableside.campaign import play
from tableside.encounter.log import Command
from tableside.store import roster
from tableside.store.roster import RosterCharacter
from tableside.web.auth import ForbiddenError, Principal, credential, require_host
from tableside.web.table import WebTable


def owns(who: Principal, character: RosterCharacter) -> bool:
    """Whether ``who`` is the character's owner seat."""
    return who.seat is not None and character.owner == who.seat.id


def at_character(
    table: WebTable, authorization: str | None, character_id: int
) -> tuple[Principal, RosterCharacter]:
    """The token's holder and the character, refused (403) unless its owner or the Host."""
    character = roster.character(table.store, character_id)
    who = table.at_table(credential(authorization), character.table_id)
    if not who.is_host and not owns(who, character):
        raise ForbiddenError(f"Roster character {character_id} is not yours.")
    return who, character


def add_to_encounter(
    table: WebTable, who: Principal, encounter_id: int, character_id: int, spec: Any
) -> dict[str, Any]:
    """Add a roster character to an encounter with its current sheet (CH-2; the Host)."""
    require_host(who, "add characters")
    side = spec.side or "players"

    def run(command: Command) -> Any:
        return table.execute(who, encounter_id, command, spec.revision)

    combatant, answer = play.join(
        table.store, encounter_id, character_id, run, spec.id, tuple(spec.position), side
    )
    return {**answer, "combatant": combatant}

"""Roster characters into a fight and back (CH-2, CH-9, CH-10): the store joined to the rules.

A roster character joins an encounter of its table and game with its current sheet, bound to
it (CH-2). When the fight has ended, :func:`proposal` reads each bound combatant's state at the
end and proposes its roster sheet after the carry-over (CH-3 … CH-8); nothing changes until the
Host confirms with :func:`apply` (CH-9), which writes every change at once and keeps what
changed on the sheet (CH-10). A combatant is carried over once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tableside.campaign.carry import Options, carry
from tableside.campaign.sheets import MAJESTY, numbers, validated
from tableside.encounter.log import Command, LogRecord
from tableside.errors import DataError, TablesideError
from tableside.service import open_encounter
from tableside.store import roster, tables

if TYPE_CHECKING:
    from tableside.encounter.engine import Encounter
    from tableside.store import Store

_ID = re.compile(r"^[A-Za-z0-9_.\-]{1,40}$")


class NotEndedError(TablesideError):
    """The fight has not ended: there is nothing to carry over yet."""


def combatant_id(name: str, wanted: object) -> str:
    """The combatant's id: the one asked for, else the character's name made an id."""
    if wanted is None:
        made = re.sub(r"[^A-Za-z0-9_.\-]+", "_", name).strip("_")[:40]
        return made or "character"
    if not isinstance(wanted, str) or not _ID.match(wanted):
        raise DataError(
            f"A combatant's id must be 1 to 40 letters, digits, '_', '.' or '-', got {wanted!r}."
        )
    return wanted


def add_command(
    character: roster.RosterCharacter,
    combatant: str,
    position: tuple[float, float, float],
    side: str,
) -> Command:
    """The game's ``add`` command for a roster character with its current sheet."""
    if character.game == MAJESTY:
        return Command("add", {"id": combatant, "character": character.sheet,
                               "position": list(position)})  # fmt: skip
    return Command("add", {"id": combatant, "sheet": character.sheet, "side": side,
                           "position": list(position)})  # fmt: skip


def join(
    store: Store,
    encounter_id: int,
    character_id: int,
    run: Callable[[Command], Any],
    combatant: str | None = None,
    position: tuple[float, float, float] = (0.0, 0.0, 0.0),
    side: str = "players",
) -> tuple[str, Any]:
    """Add a roster character to an encounter of its table and game, bound to it (CH-2).

    Args:
        store: The store.
        encounter_id: The encounter.
        character_id: The roster character.
        run: Runs the ``add`` command (the web table's or the command line's way).
        combatant: The combatant's id (default: made from the name).
        position: Where it stands.
        side: Realm of Strife: its side.

    Returns:
        The combatant's id and what ``run`` answered.
    """
    character = roster.character(store, character_id)
    info = store.encounter(encounter_id)
    if tables.table_of(store, encounter_id) != character.table_id:
        raise DataError(
            f"Roster character {character_id} belongs to another table than encounter "
            f"{encounter_id}."
        )
    if info.game != character.game:
        raise DataError(
            f"{character.name} is a {character.game} character; encounter {encounter_id} is "
            f"a {info.game} encounter."
        )
    made = combatant_id(character.name, combatant)
    if made in roster.bindings(store, encounter_id):
        raise DataError(f"Encounter {encounter_id} already has a combatant {made!r}.")
    roster.bind(store, encounter_id, made, character_id)
    try:
        answer = run(add_command(character, made, position, side))
    except BaseException:
        roster.unbind(store, encounter_id, [made])
        raise
    return made, answer


ENDS = frozenset({"war_ended", "fight_ended"})
"""The events that end a fight: a command that emits one answers with the carry-over."""


def ends_fight(record: LogRecord) -> bool:
    """Whether this record ended its fight."""
    return any(event.kind in ENDS for event in record.events)


def _fought(game: str, state: Any, combatant: str) -> dict[str, Any] | None:
    if game == MAJESTY:
        from tableside.majesty.formats import character_to_data

        found = state.combatants.get(combatant)
        return None if found is None else character_to_data(found.character)
    model = state.models.get(combatant)
    return None if model is None else dict(model.sheet.model_dump(mode="json"))


def proposal(
    store: Store, encounter_id: int, options: Options, encounter: Encounter[Any] | None = None
) -> list[dict[str, Any]]:
    """The carry-over proposed at a fight's end, per roster combatant not yet carried (CH-9).

    ``encounter``: the encounter as it stands, when the caller holds it live (the web table
    after the command that ended the fight): it is not replayed from the log again.

    Raises:
        NotEndedError: The fight has not ended.
    """
    if encounter is None:
        encounter = open_encounter(store, encounter_id)
    state = encounter.state
    if not state.ended:
        raise NotEndedError(
            f"Encounter {encounter_id} has not ended: its carry-over is proposed at its end."
        )
    game = store.encounter(encounter_id).game
    applied = any(done.command.kind == "end_combat" for done in encounter.applied)
    proposed = []
    for binding in roster.bindings(store, encounter_id).values():
        if binding.character_id is None or binding.carried:
            continue
        character = roster.character(store, binding.character_id)
        fought = _fought(game, state, binding.combatant)
        if fought is None:
            continue  # removed from the fight: nothing happened to it there
        after, changes = carry(game, character.sheet, fought, applied, options)
        proposed.append({"combatant": binding.combatant, "character": character.id,
                         "name": character.name, "sheet": after,
                         "changes": [c.to_json() for c in changes],
                         "notes": _notes(game, after)})  # fmt: skip
    return proposed


def _notes(game: str, sheet: dict[str, Any]) -> list[str]:
    if game != MAJESTY and "Honor" in sheet.get("resources", {}):
        return ["Honor oaths and virtues may be changed at the start of the next combat (CH-6)."]
    return []


def apply(store: Store, encounter_id: int, options: Options) -> list[dict[str, Any]]:
    """Apply the proposed carry-over, every character at once (the Host's confirmation, CH-9)."""
    proposed = proposal(store, encounter_id, options)
    changes = {
        p["combatant"]: (p["character"], p["sheet"], {"encounter": encounter_id,
                                                      "changes": p["changes"]})
        for p in proposed
    }  # fmt: skip
    roster.apply_carry_over(store, encounter_id, changes)
    return proposed


def history(store: Store, character_id: int) -> list[dict[str, Any]]:
    """A roster character's fights, read from the encounters' logs (nothing kept twice, CH-15).

    Per fight: the encounter, the combatant, how many commands it sent (those whose arguments
    name it as the actor) and of which kinds, how the fight ended (its winner, or still going),
    and its numbers that the fight changed (as it came in, as it stands now).
    """
    fights = []
    for encounter_id, combatant in roster.fights_of(store, character_id):
        info, records = store.load(encounter_id)
        acts = [
            r.command.kind for r in records if r.command is not None and _acts(r.command, combatant)
        ]
        state = open_encounter(store, encounter_id).state
        fights.append({"encounter": encounter_id, "name": info.name, "combatant": combatant,
                       "commands": len(acts), "kinds": sorted(set(acts)),
                       "ended": bool(state.ended), "winner": state.winner,
                       "changed": _changed(info.game, records, state, combatant)})  # fmt: skip
    return fights


def _changed(
    game: str, records: list[LogRecord], state: Any, combatant: str
) -> list[dict[str, Any]]:
    """The numbers of ``combatant`` that differ between its ``add`` and the fight's state."""
    adds = (r.command for r in records if r.command is not None and r.command.kind == "add")
    came = next((c.args for c in adds if c.args.get("id") == combatant), None)
    now = _fought(game, state, combatant)
    if came is None or now is None:
        return []
    sheet = came.get("character") if game == MAJESTY else came.get("sheet")
    if not isinstance(sheet, dict):
        return []
    before = {n["name"]: n["current"] for n in numbers(game, validated(game, sheet))}
    return [{"name": n["name"], "before": before.get(n["name"]), "after": n["current"]}
            for n in numbers(game, now) if before.get(n["name"]) != n["current"]]  # fmt: skip


_ACTOR_KEYS = ("striker", "attacker", "caster", "id", "actor")


def _acts(command: Command, combatant: str) -> bool:
    return command.kind != "add" and any(command.args.get(k) == combatant for k in _ACTOR_KEYS)

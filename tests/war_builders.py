"""Builders for War tests: characters as documents, an in-memory War, scripted commands."""

from __future__ import annotations

from typing import Any

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord
from tableside.encounter.roster import character_doc
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import Combatant, WarState


def doc(
    name: str,
    side: str = "holy",
    speed: int | None = None,
    weapon: str = "Sword",
    might: int = 42,
    swiftness: int = 30,
    control: int = 30,
    endurance: int = 60,
    resolve: int = 40,
    passion: int = 40,
    **overrides: int,
) -> dict[str, Any]:
    """A character document (M-1, M-2) with optional War Attribute overrides."""
    if speed is not None:
        overrides["speed"] = speed
    attributes = {"might": might, "swiftness": swiftness, "control": control,
                  "endurance": endurance, "resolve": resolve, "passion": passion}  # fmt: skip
    return character_doc(name, side, weapon, attributes, overrides)


def war(seed: int = 1) -> Encounter[WarState]:
    """An empty in-memory War."""
    return Encounter(MajestyWar(), seed)


def add(
    encounter: Encounter[WarState],
    name: str,
    position: tuple[float, float, float] = (0.0, 0.0, 0.0),
    **character: Any,
) -> LogRecord:
    """Add a combatant built with :func:`doc`."""
    args = {"id": name, "character": doc(name, **character), "position": list(position)}
    return encounter.execute(Command("add", args))


def do(
    encounter: Encounter[WarState], kind: str, dice: tuple[int, ...] | None = None, **args: Any
) -> LogRecord:
    """Execute one command."""
    return encounter.execute(Command(kind, args, dice))


def who(encounter: Encounter[WarState], name: str) -> Combatant:
    """A combatant of the current state."""
    return encounter.state.combatants[name]


def kinds(record: LogRecord) -> list[str]:
    """The kinds of a record's events."""
    return [e.kind for e in record.events]


def until_turn_of(encounter: Encounter[WarState], name: str, limit: int = 40) -> None:
    """Advance with 'next' until it is ``name``'s Turn."""
    for _ in range(limit):
        do(encounter, "next")
        current = encounter.state.current
        if current is not None and current.combatant == name:
            return
    raise AssertionError(f"{name}'s Turn never came")

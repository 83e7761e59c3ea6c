"""Remake the War exports of tests/test_simulate_agreement_effects.py (F-30, F-31).

Each is ``examples/war_duel.json`` (Herald against the Fallen Warrior, Poison 3 on the Herald,
F:2 and Exertion 4 on the Warrior) with more commands played by the real engine, written as
``war export`` writes it::

    PYTHONPATH=src python tests/data/make_war_effects.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.war.game import MajestyWar
from tableside.store.formats import encounter_document, parse_encounter

HERE = Path(__file__).resolve().parent
DUEL = HERE.parents[1] / "examples" / "war_duel.json"


def effect(who: str, name: str, **args: Any) -> Command:
    """An ``apply_effect`` command."""
    return Command("apply_effect", {"id": who, "effect": name, **args})


def with_weapons(records: list[dict[str, Any]], weapons: dict[str, str]) -> list[dict[str, Any]]:
    """The duel's ``add`` records with other weapons (their events changed alike)."""
    changed: list[dict[str, Any]] = json.loads(json.dumps(records))
    for record in changed:
        places = [(record.get("command") or {}).get("args") or {}]
        places += [event["data"] for event in record.get("events") or []]
        for data in places:
            character = data.get("character")
            if isinstance(character, dict) and data.get("id") in weapons:
                character["weapon"] = weapons[data["id"]]
    return changed


SCENARIOS: dict[str, tuple[str, dict[str, str], list[Command]]] = {
    # The Warrior holds the Herald (14 more Might: it may Strike only the Herald, M-37).
    "war_grapple.json": ("Duel in a hold", {}, [effect("Herald", "grappled", by="Warrior")]),
    # The Warrior is Entangled by a Bind of strength 60 for the whole War (M-37, A-38).
    "war_entangled.json": (
        "Duel with a Bind",
        {},
        [effect("Warrior", "entangled", source="Bind", amount=60)],
    ),
    # Spear (12 Effect: Falter:1) against Hammer (Falter:2), the Warrior Knocked Back 2" (its
    # Control Check may Falter it), both Status lowered for 1 Cycle, Poison 6 on the Warrior,
    # the Herald F:1 Cycle (every AP of its Cycle 1 wasted, M-34).
    # (The Hammer is the Warrior's: its Passion Effect, which reads all Hits and so is rolled
    # by the engine's functions in the fast engine, does not fire against the Herald's Resolve.)
    "war_falter.json": (
        "Spear and Hammer",
        {"Herald": "Spear", "Warrior": "Hammer"},
        [
            effect("Warrior", "knock_back", by="Herald", amount=2),
            effect("Herald", "lower_status"),
            effect("Warrior", "lower_status"),
            effect("Warrior", "poison", amount=6),
            effect("Herald", "falter_cycle"),
        ],
    ),
}


def main() -> None:
    """Write every scenario beside this script."""
    duel = json.loads(DUEL.read_text("utf-8"))
    for name, (title, weapons, commands) in SCENARIOS.items():
        document = {**duel, "records": with_weapons(duel["records"], weapons)}
        _, records = parse_encounter(document)
        encounter = Encounter.from_records(MajestyWar(), duel["seed"], records)
        for command in commands:
            encounter.execute(command)
        out = encounter_document(title, "majesty-war", duel["seed"], encounter.records)
        (HERE / name).write_text(json.dumps(out, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()

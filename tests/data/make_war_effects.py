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
    # The next three (and war_ready.json) weaken one side by 54 Wear E, so that the other wins
    # about 95 % of the Wars: the agreement test at 1 % power then needs few full-engine runs.
    # F-55: the Herald in Full Defensive Stance (Guard + 5), the Warrior in Defensive Stance;
    # each Strikes for 4 AP (M-14, M-17).
    "war_stance.json": (
        "Duel in Stances",
        {},
        [
            Command("stance", {"id": "Herald", "on": True, "full": True}),
            Command("stance", {"id": "Warrior", "on": True}),
            effect("Warrior", "wear_e", amount=54),
        ],
    ),
    # F-56: the War begun; whoever has the first Turn Carries Over 1 AP and Stands Ready with 2
    # (they rest at its next Turn); the Host gives the other 3 Readied AP (F:2 wastes them first).
    "war_ready.json": (
        "Duel with Readied AP",
        {},
        [effect("Herald", "wear_e", amount=54), Command("next")],
    ),
    # F-57: the Warrior Exposed (Guard 0, M-19) for the whole War.
    "war_exposed.json": ("Duel, the Warrior Exposed", {}, [effect("Warrior", "exposed")]),
    # F-57: the Warrior Surprised by the Herald until the Warrior's first Turn (M-19).
    "war_surprised.json": (
        "Duel, the Warrior Surprised",
        {},
        [effect("Warrior", "surprised", by="Herald"), effect("Warrior", "wear_e", amount=54)],
    ),
    # F-58: the Warrior Bound and Asleep (it passes its Turns, is Exposed, its F:2 converts,
    # M-34, M-36, A-43: an Asleep elohim does not act either, so the Herald stays awake).
    "war_bound.json": (
        "Duel, Bound and Asleep",
        {},
        [effect("Warrior", "bound"), effect("Warrior", "asleep")],
    ),
    # F-59: the Herald with a Bow (Ranged Strikes beyond 3" and up to 12", M-15, M-27): it steps
    # back to 3.5" from the Warrior, 2" away, and shoots while the Warrior closes in.
    "war_ranged.json": (
        "Bow against Axe",
        {"Herald": "Bow"},
        [effect("Warrior", "wear_e", amount=54)],
    ),
    # F-65, F-66: war_ranged.json with a Spiritual Dominion of radius 1" centred 4" behind the
    # Herald: as the Herald steps back it meets the sphere and Strikes through its surface are
    # refused (about a third of the Strikes the policy chooses); each then Rests or ends its
    # Turn. Poison 4 on the Warrior too, so that the Herald wins about 98 % of the Wars.
    "war_dominion.json": (
        "Bow against Axe by a Dominion",
        {"Herald": "Bow"},
        [
            effect("Warrior", "wear_e", amount=54),
            effect("Warrior", "poison", amount=4),
            Command("dominion", {"id": "Veil", "center": [-4.0, 0.0, 0.0], "radius": 1.0}),
        ],
    ),
}


def ready_commands(encounter: Encounter[Any]) -> list[Command]:
    """war_ready.json's commands after its first ``next``: Carry Over, Stand Ready, Readied AP."""
    state = encounter.state
    first = state.order[state.turn].combatant
    other = next(c for c in state.combatants if c != first)
    return [
        Command("carry_over", {"id": first, "ap": 1}),
        Command("stand_ready", {"id": first, "ap": 2, "uses": ["Strike"]}),
        Command("host_set", {"id": other, "field": "readied", "value": 3}),
    ]


def main() -> None:
    """Write every scenario beside this script."""
    duel = json.loads(DUEL.read_text("utf-8"))
    for name, (title, weapons, commands) in SCENARIOS.items():
        document = {**duel, "records": with_weapons(duel["records"], weapons)}
        _, records = parse_encounter(document)
        encounter = Encounter.from_records(MajestyWar(), duel["seed"], records)
        for command in commands:
            encounter.execute(command)
        if name == "war_ready.json":
            for command in ready_commands(encounter):
                encounter.execute(command)
        out = encounter_document(title, "majesty-war", duel["seed"], encounter.records)
        (HERE / name).write_text(json.dumps(out, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()

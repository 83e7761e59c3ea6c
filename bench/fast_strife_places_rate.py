"""Starts the fast Realm of Strife engine plays since F-68 … F-71, against the full engine.

Aldric and Sera against two Goblins (seed 5), started from: a Dagger Sera threw lying on the
ground (F-68), Goblin-2 gone to the bottom of the queue (F-68), Sera hidden (F-69), Aldric
under water (F-70), the Goblins perched 1.5" up and flying 0.8" up (F-71); Ilsa under water
and Aldric against Goblins 21" away (F-70, casts through water); and hurt Aldric and Sera
against a Goblin, an Archer flying 0.5" up and a Cave Troll (F-71, a flying shooter).
For each: fights per CPU second of ``--engine full`` and of ``--engine fast`` (the compiled
kernel, warm: its laws and tables built by a first call), one worker, in this process, with
the ratio to the full engine. Before F-68 … F-71 each of these starts fell back to the full
engine, so the full engine's rate is also the fast engine's former one.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from typing import Any

from fast_strife_rate import EXAMPLES, line
from timing import timed

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.strife.fight import StrifeFight
from tableside.simulate import simulate
from tableside.store.formats import encounter_document
from tableside.strife.catalog import builtin_catalog

Step = tuple[str, dict[str, Any]]
THROW = {"attacker": "Sera",
         "attacks": [{"defender": "Goblin-2", "weapon": "Dagger", "thrown": True}]}  # fmt: skip
HURT = [("host_set", {"id": "Aldric", "field": "hp", "value": 12}),
        ("host_set", {"id": "Sera", "field": "hp", "value": 9})]  # fmt: skip


def add(who: str, side: str, at: tuple[float, float, float], **kind: Any) -> dict[str, Any]:
    """An ``add`` command's arguments (a catalogue model of the same name unless ``kind``)."""
    return {"id": who, "side": side, "position": list(at), **(kind or {"model": who})}


def ilsa() -> dict[str, Any]:
    """``examples/strife_caster.json``: Arcane Missile, Flame Strike, Birds of Prey (F-70)."""
    found: dict[str, Any] = json.loads((EXAMPLES / "strife_caster.json").read_text("utf-8"))
    return found


def archer() -> dict[str, Any]:
    """A Goblin with a Short Bow, flying 0.5" up (F-71)."""
    goblin = builtin_catalog().combatant("Goblin").model_dump(mode="json")
    goblin.update(main_hand="Short Bow", off_hand=None, shield=None,
                  proficiencies=[*goblin["proficiencies"], "Bows"])  # fmt: skip
    return add("Archer", "monsters", (0.5, 1.5, 0.5), sheet=goblin, perched=False)


HEROES = [add("Aldric", "heroes", (0, 0, 0)), add("Sera", "heroes", (0, 3, 0))]
GOBLINS = [add("Goblin-1", "monsters", (4, 0, 0), model="Goblin"),
           add("Goblin-2", "monsters", (4, 3, 0), model="Goblin")]  # fmt: skip
STARTS: dict[str, Callable[[], tuple[list[dict[str, Any]], list[Step], list[Step]]]] = {
    # name: (the ``add`` commands, commands before the start, commands after it)
    "weapon on the ground (F-68)": lambda: (
        [*HEROES, *GOBLINS], [], [("next", {}), ("next", {}), ("next", {}), ("attack", THROW)]),
    "bottom of the queue (F-68)": lambda: (
        [*HEROES, *GOBLINS], [], [("bottom", {"id": "Goblin-2"})]),
    "hidden (F-69)": lambda: ([HEROES[0], {**HEROES[1], "hiding": True}, *GOBLINS], [], []),
    "under water (F-70)": lambda: (
        [*HEROES, *GOBLINS], [("water", {"id": "Aldric", "submerged": True})], []),
    "perched and flying (F-71)": lambda: (
        [*HEROES, {**GOBLINS[0], "position": [4, 0, 1.5]},
         {**GOBLINS[1], "position": [4, 3, 0.8], "perched": False}], [], []),
    "a cast through water (F-70)": lambda: (
        [{**add("Ilsa", "heroes", (0, 0, 0)), "model": None, "sheet": ilsa()},
         {**HEROES[0], "position": [0, 3, 0]}, {**GOBLINS[0], "position": [21, 0, 0]},
         {**GOBLINS[1], "position": [21, 3, 0]}],
        [("water", {"id": "Ilsa", "submerged": True})], []),
    "a flying shooter (F-71)": lambda: (
        [*HEROES, GOBLINS[0], archer(), add("Troll", "monsters", (2, 1.5, 0), model="Cave Troll")],
        [], HURT),
}  # fmt: skip


def document(name: str) -> dict[str, Any]:
    """The fight of ``name`` in :data:`STARTS`, as the store exports it."""
    adds, before, after = STARTS[name]()
    encounter: Encounter[Any] = Encounter(StrifeFight(), 5)
    for args in adds:
        encounter.execute(Command("add", {k: v for k, v in args.items() if v is not None}))
    for kind, args in [*before, ("start", {}), *after]:
        encounter.execute(Command(kind, args))
    return encounter_document(name, "strife-combat", encounter.seed, encounter.records)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", type=int, default=300, help="fights on the full engine")
    parser.add_argument("--fast", type=int, default=200000, help="fights on the kernel")
    args = parser.parse_args()
    print(f"F-68 … F-71 starts, one worker; load {os.getloadavg()[0]:.2f}")
    for name in STARTS:
        fight = document(name)

        def play(engine: str, runs: int, doc: dict[str, Any] = fight) -> Callable[[], object]:
            return lambda: simulate(doc, runs, seed=2026, workers=1, engine=engine)

        report = simulate(fight, 1000, seed=1, workers=1, engine="fast")  # laws, tables
        assert report["engine"] == "fast" and "kernel_fallback" not in report, report
        print(name)
        base = line("full engine (the former fallback)", args.full, *timed(play("full", args.full)),
                    None)  # fmt: skip
        line("kernel, warm", args.fast, *timed(play("fast", args.fast)), base)
    print(f"  load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

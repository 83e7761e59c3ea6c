"""Starts the fast Realm of Strife engine plays since F-68 … F-70, against the full engine.

Aldric and Sera against two Goblins (seed 5), started from: a Dagger Sera threw lying on the
ground (F-68), Goblin-2 gone to the bottom of the queue (F-68), Sera hidden (F-69), Aldric
under water (F-70). For each: fights per CPU second of ``--engine full`` and of ``--engine
fast`` (the compiled kernel, warm: its laws and tables built by a first call), one worker, in
this process, with the ratio to the full engine. Before F-68 … F-70 each of these starts fell
back to the full engine, so the full engine's rate is also the fast engine's former one.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from fast_strife_rate import line
from timing import timed

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.strife.fight import StrifeFight
from tableside.simulate import simulate
from tableside.store.formats import encounter_document

Step = tuple[str, dict[str, Any]]
THROW = {"attacker": "Sera",
         "attacks": [{"defender": "Goblin-2", "weapon": "Dagger", "thrown": True}]}  # fmt: skip
STARTS: dict[str, tuple[dict[str, dict[str, Any]], list[Step], list[Step]]] = {
    # name: (extra arguments of an ``add``, commands before the start, commands after it)
    "weapon on the ground (F-68)": ({}, [], [("next", {}), ("next", {}), ("next", {}),
                                             ("attack", THROW)]),
    "bottom of the queue (F-68)": ({}, [], [("bottom", {"id": "Goblin-2"})]),
    "hidden (F-69)": ({"Sera": {"hiding": True}}, [], []),
    "under water (F-70)": ({}, [("water", {"id": "Aldric", "submerged": True})], []),
}  # fmt: skip
ROSTER = (("Aldric", "heroes", 0.0, 0.0, "Aldric"), ("Sera", "heroes", 0.0, 3.0, "Sera"),
          ("Goblin-1", "monsters", 4.0, 0.0, "Goblin"),
          ("Goblin-2", "monsters", 4.0, 3.0, "Goblin"))  # fmt: skip


def document(name: str) -> dict[str, Any]:
    """The fight of ``name`` in :data:`STARTS`, as the store exports it."""
    extra, before, after = STARTS[name]
    encounter: Encounter[Any] = Encounter(StrifeFight(), 5)
    for who, side, x, y, kind in ROSTER:
        encounter.execute(Command("add", {"id": who, "side": side, "position": [x, y, 0.0],
                                          "model": kind, **extra.get(who, {})}))  # fmt: skip
    for kind, args in [*before, ("start", {}), *after]:
        encounter.execute(Command(kind, args))
    return encounter_document(name, "strife-combat", encounter.seed, encounter.records)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", type=int, default=300, help="fights on the full engine")
    parser.add_argument("--fast", type=int, default=200000, help="fights on the kernel")
    args = parser.parse_args()
    print(f"Aldric and Sera against two Goblins, one worker; load {os.getloadavg()[0]:.2f}")
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

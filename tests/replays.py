"""What a full-engine run's events say, read the same way by the tests that replay runs against
the fast engines (tests/test_simulate_fast*.py, tests/test_simulate_agreement*.py)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tableside.encounter.log import Event
from tableside.encounter.strife.state import condition_from
from tableside.simulate.fast_strife_law import Outcome


def outcome_of(events: list[Event], attacker: str, defender: str) -> Outcome:
    """What the engine's own dice did to the fight, read from a Strife attack's events."""
    after = next(i for i, e in enumerate(events) if e.kind == "attack_resolved")
    failed, damage, inflicted = False, 0, []
    for event in events[after + 1 :]:
        d = event.data
        if event.kind == "reaction_spent" and d["id"] == defender:
            failed = bool(d["failed_parry"])
        elif event.kind == "hp_set":
            damage = int(d["damage"])
        elif event.kind == "condition_added":
            target = "attacker" if d["id"] == attacker else "defender"
            inflicted.append((target, condition_from(d["condition"])))
    return Outcome(failed, damage, tuple(inflicted))


def wear_taken(events: list[Event], ids: list[str]) -> npt.NDArray[np.int64]:
    """The Wear each War combatant (in ``ids``' order) took in a command: Exertion, Rend, Pain."""
    taken = np.zeros((len(ids), 3), dtype=np.int64)
    for event in events:
        if event.kind == "wear_taken":
            d = event.data
            taken[ids.index(d["id"]), "ERP".index(d["kind"])] += d["amount"]
    return taken

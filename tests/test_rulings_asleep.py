"""A-43: an Asleep elohim is incapacitated (M-34 lists it among those who cannot act).

It cannot Move, Strike, take Defensive Stance, interpose, break free, Stand Ready or Carry
Over; it may Rest and end its Turn; the Host wakes it with ``awake``. The simulators' policy
passes its Turn (F-58), as the fast kernel does (its agreement: test_simulate_agreement_*).
"""

from __future__ import annotations

from typing import Any

import pytest
from war_builders import add, do, until_turn_of, war, who

from tableside.encounter.policy import WarPolicy
from tableside.errors import TablesideError


def asleep_duel() -> Any:
    """The Herald's Turn, the Herald Asleep, the Warrior 2" away."""
    encounter = war()
    add(encounter, "Herald", swiftness=40, might=60)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10, might=40)
    until_turn_of(encounter, "Herald")
    do(encounter, "apply_effect", id="Herald", effect="asleep")
    return encounter


@pytest.mark.parametrize(
    ("kind", "args", "action"),
    [
        ("strike", {"striker": "Herald", "defender": "Warrior"}, "Strike"),
        ("move", {"id": "Herald", "to": [1.0, 0.0, 0.0]}, "Move"),
        ("stance", {"id": "Herald", "on": True}, "take Defensive Stance"),
        ("stand_ready", {"id": "Herald", "ap": 3, "uses": ["Rest"]}, "Stand Ready"),
        ("carry_over", {"id": "Herald", "ap": 1}, "Carry Over"),
    ],
)
def test_a43_an_asleep_elohim_cannot_act(kind: str, args: dict[str, Any], action: str) -> None:
    encounter = asleep_duel()
    before = (encounter.revision, who(encounter, "Herald").ap)
    with pytest.raises(TablesideError, match=rf"Herald is Asleep and cannot {action}: .*A-43"):
        do(encounter, kind, **args)
    assert (encounter.revision, who(encounter, "Herald").ap) == before  # nothing spent


def test_a43_asleep_may_rest_and_end_its_turn_and_is_woken_by_the_host() -> None:
    encounter = asleep_duel()
    do(encounter, "rest", id="Herald", ap=1)  # sleep is rest
    assert who(encounter, "Herald").ap == 6
    do(encounter, "apply_effect", id="Herald", effect="awake")
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert who(encounter, "Herald").ap == 3
    do(encounter, "next")


def test_a43_asleep_cannot_break_free_nor_interpose() -> None:
    encounter = asleep_duel()
    do(encounter, "apply_effect", id="Herald", effect="grappled", by="Warrior")
    with pytest.raises(TablesideError, match="Herald is Asleep and cannot break free"):
        do(encounter, "break_free", id="Herald")
    guard = war()
    add(guard, "Herald", swiftness=40)
    add(guard, "Watcher", (1.0, 0.0, 0.0), swiftness=30)
    add(guard, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(guard, "Watcher")
    do(guard, "stance", id="Watcher", on=True)
    do(guard, "apply_effect", id="Watcher", effect="asleep")
    with pytest.raises(TablesideError, match="Watcher is Asleep and cannot interpose"):
        do(guard, "interpose", id="Watcher", striker="Warrior", defender="Herald")


def test_a43_an_asleep_elohim_is_struck_as_it_stands_not_exposed() -> None:
    encounter = asleep_duel()
    do(encounter, "next")
    until_turn_of(encounter, "Warrior")
    do(encounter, "host_set", id="Warrior", field="ap", value=7)
    record = do(encounter, "strike", (3, 2, 1, 9, 5, 5, 5), striker="Warrior", defender="Herald")
    result = next(e.data["result"] for e in record.events if e.kind == "strike_resolved")
    assert result["reading"] != "exposed" and result["guard"]["value"] > 0


def test_a43_f58_the_policy_passes_an_asleep_elohims_turn() -> None:
    encounter = asleep_duel()
    assert WarPolicy()(encounter.state).kind == "next"
    assert WarPolicy(rest=True)(encounter.state).kind == "next"
    do(encounter, "apply_effect", id="Herald", effect="awake")
    assert WarPolicy()(encounter.state).kind == "strike"

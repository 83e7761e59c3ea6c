"""The War on live combatants: M-14 … M-29 applied, M-34 … M-41 automated."""

from __future__ import annotations

import pytest
from war_builders import add, do, kinds, until_turn_of, war, who

from tableside.encounter.war.state import EndPoint
from tableside.errors import TablesideError


def four_at_speeds() -> list[str]:
    encounter = war()
    for name, speed, side, swift in (("A", 17, "holy", 40), ("B", 16, "fallen", 30),
                                     ("C", 12, "holy", 20), ("D", 11, "fallen", 10)):  # fmt: skip
        add(encounter, name, speed=speed, side=side, swiftness=swift)
    record = do(encounter, "next")
    order = record.events[0].data["order"]
    return [f"{t['segment']}:{t['combatant']}:{t['ap']}" for t in order]


def test_m40_worked_example_segments_on_the_war_scroll() -> None:
    assert four_at_speeds() == [
        "1:A:7", "1:B:7", "1:C:7", "1:D:7", "2:A:3", "2:B:2", "A:A:7", "A:B:7", "A:C:5", "A:D:4",
    ]  # fmt: skip


def test_m40_ties_go_to_the_holy_side_first() -> None:
    encounter = war()
    add(encounter, "Fallen", side="fallen", swiftness=30)
    add(encounter, "Holy", side="holy", swiftness=30)
    do(encounter, "next")
    assert encounter.state.current is not None
    assert encounter.state.current.combatant == "Holy"


def test_m40_turns_in_order_and_a_new_cycle() -> None:
    encounter = war()
    add(encounter, "A", speed=7, swiftness=40)
    add(encounter, "B", side="fallen", speed=7, swiftness=20)
    seen = []
    for _ in range(3):
        do(encounter, "next")
        current = encounter.state.current
        assert current is not None
        seen.append((encounter.state.cycle, current.combatant))
    assert seen == [(1, "A"), (1, "B"), (2, "A")]


def strike_ready(**striker: object) -> tuple[object, str, str]:
    encounter = war()
    add(encounter, "Herald", swiftness=40, **striker)  # type: ignore[arg-type]
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(encounter, "Herald")
    return encounter, "Herald", "Warrior"


def test_m14_strike_spends_ap_and_m26_wear_reaches_the_defender() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, force=4, precision=2)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10, guard=2)
    until_turn_of(encounter, "Herald")
    record = do(encounter, "strike", (9, 9, 9, 5, 5, 5, 5), striker="Herald", defender="Warrior")
    assert who(encounter, "Herald").ap == 4
    wear = [e.data for e in record.events if e.kind == "wear_taken"]
    assert wear == [{"id": "Warrior", "kind": "E", "amount": 12, "source": "Strike"}]  # M-26: 3 × 4
    assert who(encounter, "Warrior").character.current_endurance == 48


def test_m4_the_first_three_exertion_of_a_window_are_free() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, speed=14)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(encounter, "Herald")
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert who(encounter, "Herald").character.exertion == 0
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert who(encounter, "Herald").character.exertion == 3


def test_m14_not_enough_ap_is_refused() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, speed=7)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(encounter, "Herald")
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    with pytest.raises(TablesideError, match="1 AP"):
        do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")


def test_m34_worked_example_falter_cap_converts_to_wear() -> None:
    encounter = war()
    add(encounter, "Jackal", side="fallen")
    add(encounter, "Herald")
    do(encounter, "apply_effect", id="Jackal", effect="falter", amount=6)
    record = do(encounter, "apply_effect", id="Jackal", effect="falter", amount=7)
    jackal = who(encounter, "Jackal")
    assert jackal.falter == 7
    wear = {(e.data["kind"], e.data["amount"]) for e in record.events if e.kind == "wear_taken"}
    assert wear == {("R", 18), ("P", 18)}


def test_m34_falter_wastes_ap_as_they_arrive() -> None:
    encounter = war()
    add(encounter, "Jackal", side="fallen", swiftness=40)
    add(encounter, "Herald", swiftness=10)
    do(encounter, "apply_effect", id="Jackal", effect="falter", amount=3)
    until_turn_of(encounter, "Jackal")
    jackal = who(encounter, "Jackal")
    assert (jackal.ap, jackal.falter) == (4, 0)


def test_m34_falter_on_a_bound_elohim_converts_entirely() -> None:
    encounter = war()
    add(encounter, "Jackal", side="fallen")
    add(encounter, "Herald")
    do(encounter, "apply_effect", id="Jackal", effect="falter", amount=2)
    record = do(encounter, "apply_effect", id="Jackal", effect="bound")
    assert who(encounter, "Jackal").falter == 0
    assert sum(e.data["amount"] for e in record.events if e.kind == "wear_taken") == 12
    do(encounter, "apply_effect", id="Jackal", effect="falter", amount=1)
    assert who(encounter, "Jackal").falter == 0


def test_m34_falter_one_cycle_wastes_every_ap_and_ends_a_cycle_later() -> None:
    encounter = war()
    add(encounter, "Jackal", side="fallen", swiftness=40, speed=7)
    add(encounter, "Herald", swiftness=10, speed=7)
    until_turn_of(encounter, "Herald")
    do(encounter, "apply_effect", id="Jackal", effect="falter_cycle", source="Song")
    timed = who(encounter, "Jackal").falter_cycle
    assert timed is not None and timed.ends == EndPoint(2, 1)
    until_turn_of(encounter, "Jackal")
    assert who(encounter, "Jackal").ap == 0  # Cycle 2: every AP wasted
    until_turn_of(encounter, "Herald")
    assert who(encounter, "Jackal").falter_cycle is None
    until_turn_of(encounter, "Jackal")
    assert who(encounter, "Jackal").ap == 7


def test_m38_worked_example_poison_on_successive_turn_starts() -> None:
    encounter = war()
    add(encounter, "Victim", side="fallen", swiftness=40, speed=7)
    add(encounter, "Herald", swiftness=10, speed=7)
    do(encounter, "apply_effect", id="Victim", effect="poison", amount=7)
    gained = []
    for _ in range(4):
        until_turn_of(encounter, "Victim")
        gained.append(who(encounter, "Victim").character.exertion)
    assert gained == [7, 10, 11, 11]
    assert who(encounter, "Victim").poison == 0


def test_m36_bound_cannot_move_or_strike_and_is_exposed() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(encounter, "Herald")
    do(encounter, "apply_effect", id="Herald", effect="bound")
    with pytest.raises(TablesideError, match="Bound"):
        do(encounter, "strike", striker="Herald", defender="Warrior")
    with pytest.raises(TablesideError, match="Bound"):
        do(encounter, "move", id="Herald", to=[1.0, 0.0, 0.0])
    do(encounter, "rest", id="Herald", ap=1)  # Rest is allowed (M-36)
    do(encounter, "apply_effect", id="Herald", effect="unbound")
    do(encounter, "apply_effect", id="Warrior", effect="bound")
    record = do(encounter, "strike", (3, 2, 1, 9, 5, 5, 5), striker="Herald", defender="Warrior")
    result = next(e.data["result"] for e in record.events if e.kind == "strike_resolved")
    assert result["guard"]["value"] == 0 and result["reading"] == "exposed"
    assert result["stops"] == 0


def test_m37_grappled_breaks_free_with_ap_exertion_and_a_might_check() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, might=60)
    add(encounter, "Brute", (1.0, 0.0, 0.0), side="fallen", swiftness=10, might=40)
    until_turn_of(encounter, "Herald")
    do(encounter, "apply_effect", id="Herald", effect="grappled", by="Brute")
    with pytest.raises(TablesideError, match="Grappled"):
        do(encounter, "move", id="Herald", to=[0.0, 1.0, 0.0])
    record = do(encounter, "break_free", (12, 10, 9, 9, 5, 5, 5), id="Herald")
    assert "check_resolved" in kinds(record)
    herald = who(encounter, "Herald")
    assert herald.grappled_by is None
    assert herald.ap == 4
    assert herald.character.exertion == 0  # the first 3 of the window are free (M-4)


def test_m19_surprise_ends_just_before_the_victims_next_activation() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(encounter, "Herald")
    do(encounter, "apply_effect", id="Warrior", effect="surprised", by="Herald")
    record = do(encounter, "strike", (11, 11, 5, 5, 5, 5, 5), striker="Herald",
                defender="Warrior", mode="none")  # fmt: skip
    result = next(e.data["result"] for e in record.events if e.kind == "strike_resolved")
    assert result["epic"] == "strike"  # natural 11s count as 12s (M-19)
    until_turn_of(encounter, "Warrior")
    assert who(encounter, "Warrior").surprised_by == ()


def test_m24_status_lowered_for_one_cycle_then_restored() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, speed=7)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10, speed=7)
    until_turn_of(encounter, "Herald")
    do(encounter, "strike", (12, 12, 12, 5, 5, 5, 5), striker="Herald", defender="Warrior",
       mode="none")  # fmt: skip
    warrior = who(encounter, "Warrior")
    assert warrior.character.status.value == "weakened"
    assert warrior.timed[0].ends == EndPoint(2, 0)
    until_turn_of(encounter, "Herald")  # Cycle 2, Turn 1: the lowering ends just before it
    assert who(encounter, "Warrior").character.status.value == "normal"


def test_m24_four_twelves_defeat_and_the_war_ends() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(encounter, "Herald")
    record = do(encounter, "strike", (12, 12, 12, 12, 5, 5, 5), striker="Herald",
                defender="Warrior", mode="none")  # fmt: skip
    assert "defeated" in kinds(record)
    assert who(encounter, "Warrior").character.current_endurance == -40
    assert encounter.state.ended and encounter.state.winner == "holy"
    with pytest.raises(TablesideError, match="ended"):
        do(encounter, "next")


def test_m35_knock_back_with_collision_wear_and_control_checks() -> None:
    encounter = war()
    add(encounter, "Herald", (0.0, 0.0, 0.0), swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", endurance=45, control=30)
    add(encounter, "Wall", (4.0, 0.0, 0.0), side="fallen", endurance=80, swiftness=10, control=30)
    dice = (5,) * 21  # Swiftness, collision Control and Knock Back Control Checks
    record = do(encounter, "apply_effect", dice, id="Warrior", effect="knock_back", amount=6.5,
                by="Herald")  # fmt: skip
    wear = {(e.data["id"], e.data["amount"]) for e in record.events if e.kind == "wear_taken"}
    # Collision 1" short of Wall's centre: 5.5" left → 5 Hits; Force 3 + 8 − 4 = 7 (M-35).
    assert wear == {("Warrior", 35), ("Wall", 15)}
    assert who(encounter, "Warrior").position == pytest.approx((3.0, 0.0, 0.0))
    falters = {e.data["id"]: e.data["falter"] for e in record.events if e.kind == "falter_set"}
    assert falters == {"Wall": 3, "Warrior": 3}  # Passes short 3, at most 6 (M-35)


def test_m41_carry_over_and_stand_ready() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, speed=10)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10, speed=7)
    until_turn_of(encounter, "Herald")
    with pytest.raises(TablesideError):
        do(encounter, "carry_over", id="Herald", ap=5)  # next Turn 3 AP: 3 + 5 > 7
    do(encounter, "carry_over", id="Herald", ap=4)
    do(encounter, "stand_ready", id="Herald", ap=3, uses=["Strike"])
    until_turn_of(encounter, "Warrior")
    do(encounter, "strike", (9, 5, 5, 5, 5, 5, 5), striker="Herald", defender="Warrior")
    assert who(encounter, "Herald").readied == 0
    until_turn_of(encounter, "Herald")
    assert who(encounter, "Herald").ap == 7


def test_m41_unused_readied_ap_count_as_rest() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, speed=7)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10, speed=7)
    until_turn_of(encounter, "Herald")
    do(encounter, "host_set", id="Herald", field="exertion", value=5)
    do(encounter, "stand_ready", id="Herald", ap=3, uses=["Strike", "Move"])
    until_turn_of(encounter, "Herald")
    assert who(encounter, "Herald").character.exertion == 2


def test_move_costs_one_ap_per_inch_in_3d() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Warrior", (9.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(encounter, "Herald")
    do(encounter, "move", id="Herald", to=[2.0, 2.0, 1.0])  # 3" in 3D
    assert who(encounter, "Herald").ap == 4
    with pytest.raises(TablesideError, match="5 AP"):
        do(encounter, "move", id="Herald", to=[7.0, 2.0, 1.0])


def test_host_adjustments_are_logged_and_undoable() -> None:
    encounter = war()
    add(encounter, "Herald")
    record = do(encounter, "host_set", id="Herald", field="wear_e", value=10)
    assert record.events[0].rule == "host"
    assert who(encounter, "Herald").character.current_endurance == 50
    encounter.undo()
    assert who(encounter, "Herald").character.current_endurance == 60
    with pytest.raises(TablesideError, match="F:7"):
        do(encounter, "host_set", id="Herald", field="falter", value=9)


def test_adding_and_removing_mid_war() -> None:
    encounter = war()
    add(encounter, "Herald", speed=7, swiftness=40)
    add(encounter, "Warrior", side="fallen", speed=7, swiftness=20)
    do(encounter, "next")
    add(encounter, "Late", side="fallen", speed=7, swiftness=10)
    do(encounter, "remove", id="Warrior")
    do(encounter, "next")  # Warrior's Turn is skipped; Late waits for the next Cycle
    assert encounter.state.cycle == 2
    assert [t.combatant for t in encounter.state.order] == ["Herald", "Late"]


def test_bad_arguments_name_the_field() -> None:
    encounter = war()
    add(encounter, "Herald")
    with pytest.raises(TablesideError, match="field ap"):
        do(encounter, "rest", id="Herald", ap=0)
    with pytest.raises(TablesideError, match="field to"):
        do(encounter, "move", id="Herald", to="north")
    with pytest.raises(TablesideError, match="no combatant 'Ghost'"):
        do(encounter, "rest", id="Ghost", ap=1)


def test_m37_a_grappler_strikes_others_only_with_40_more_might() -> None:
    encounter = war()
    add(encounter, "Brute", swiftness=40, might=60)
    add(encounter, "Held", (1.0, 0.0, 0.0), side="fallen", might=40)
    add(encounter, "Other", (0.0, 1.0, 0.0), side="fallen", might=40)
    until_turn_of(encounter, "Brute")
    do(encounter, "apply_effect", id="Held", effect="grappled", by="Brute")
    with pytest.raises(TablesideError, match="40 more Might"):
        do(encounter, "strike", striker="Brute", defender="Other")
    with pytest.raises(TablesideError, match="Grappling"):
        do(encounter, "stance", id="Brute")
    do(encounter, "host_set", id="Brute", field="ap", value=7)
    # Striking the Grappled releases the Grapple unless a 12 Effect fires (M-37).
    do(encounter, "strike", (9, 9, 5, 5, 5, 5, 5), striker="Brute", defender="Held", mode="none")
    assert who(encounter, "Held").grappled_by is None


def test_m37_a_grappler_with_40_more_might_may_strike_others() -> None:
    encounter = war()
    add(encounter, "Brute", swiftness=40, might=90)
    add(encounter, "Held", (1.0, 0.0, 0.0), side="fallen", might=40)
    add(encounter, "Other", (0.0, 1.0, 0.0), side="fallen", might=40)
    until_turn_of(encounter, "Brute")
    do(encounter, "apply_effect", id="Held", effect="grappled", by="Brute")
    do(encounter, "strike", (9, 9, 5, 5, 5, 5, 5), striker="Brute", defender="Other", mode="none")
    assert who(encounter, "Held").grappled_by == "Brute"

"""Issue 13: the War against the rule texts (M-24, M-34 … M-41), one test per wrong item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from builders import strike, strike_setup, striker_adjusts
from clirun import printed_json, run_cli
from war_builders import add, do, kinds, until_turn_of, war, who

from tableside.encounter.war.state import EndPoint
from tableside.errors import TablesideError
from tableside.majesty.adjust import AdjustMode
from tableside.majesty.odds import strike_odds
from tableside.majesty.rolls import EXPOSED
from tableside.majesty.scroll import use_for
from tableside.majesty.strike import DefenderState

ROOT = Path(__file__).resolve().parents[1]
HERALD = str(ROOT / "examples" / "herald.json")
WARRIOR = str(ROOT / "examples" / "fallen_warrior.json")


def cli_json(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    return printed_json(run_cli(capsys, monkeypatch, *args, "--json"))


# --- 1. Bound is Exposed (M-36) -----------------------------------------------------------------

# 1s, 2s and 3s (Misses when Exposed), an 11 (a 12 when Exposed, M-19).
BOUND_DICE = (1, 1, 2, 3, 11, 9, 6)


def test_m36_bound_strike_reads_dice_as_exposed() -> None:
    bound = strike(BOUND_DICE, state=DefenderState(bound=True), mode=AdjustMode.NONE)
    exposed = strike(BOUND_DICE, state=DefenderState(exposed=True), mode=AdjustMode.NONE)
    assert bound.reading == EXPOSED
    assert bound.outcome == exposed.outcome
    assert bound.outcome.uncanceled_stops == 0  # 1s inert, 1–3 Misses
    assert bound.outcome.twelve_effects == 1  # the 11 reads as a 12


def test_m36_majesty_strike_bound_reads_dice_as_exposed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ["majesty", "strike", "--striker", HERALD, "--defender", WARRIOR, "--dice",
            ",".join(map(str, BOUND_DICE)), "--mode", "none"]  # fmt: skip
    bound = cli_json([*base, "--bound"], capsys, monkeypatch)
    exposed = cli_json([*base, "--bound", "--exposed"], capsys, monkeypatch)
    assert bound["reading"] == "exposed"
    assert {k: v for k, v in bound.items() if k != "seed"} == {
        k: v for k, v in exposed.items() if k != "seed"
    }


def test_m36_bound_odds_are_the_law_of_the_exposed_reading(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bound = strike_odds(strike_setup(state=DefenderState(bound=True), **striker_adjusts(1)))
    exposed = strike_odds(
        strike_setup(state=DefenderState(bound=True, exposed=True), **striker_adjusts(1))
    )
    assert bound.reading == EXPOSED
    assert dict(bound.net.items()) == dict(exposed.net.items())
    assert dict(bound.striker_falter.items()) == {0: 1}  # 1s inert: no Striker Falter
    base = ["odds", "strike", "--striker", HERALD, "--defender", WARRIOR]
    cli_bound = cli_json([*base, "--bound"], capsys, monkeypatch)
    cli_exposed = cli_json([*base, "--bound", "--exposed"], capsys, monkeypatch)
    assert cli_bound["distributions"] == cli_exposed["distributions"]


# --- 2. Carry Over never above 7 (M-41) ---------------------------------------------------------


def test_m41_carry_over_into_the_next_cycle_never_above_7() -> None:
    encounter = war()
    add(encounter, "Herald", speed=7, swiftness=40)
    add(encounter, "Warrior", (9.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    until_turn_of(encounter, "Herald")
    assert who(encounter, "Herald").ap == 7
    with pytest.raises(TablesideError, match="fewer than 7 AP"):
        do(encounter, "carry_over", id="Herald", ap=3)  # its next Turn: Cycle 2, Segment 1, 7 AP
    until_turn_of(encounter, "Herald")
    assert (encounter.state.cycle, who(encounter, "Herald").ap) == (2, 7)


def test_m41_carry_over_into_the_next_cycles_short_turn() -> None:
    encounter = war()
    add(encounter, "Herald", speed=3, swiftness=40)
    add(encounter, "Warrior", (9.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    until_turn_of(encounter, "Herald")
    do(encounter, "host_set", id="Herald", field="ap", value=5)
    with pytest.raises(TablesideError, match="exceed 7 AP"):
        do(encounter, "carry_over", id="Herald", ap=5)  # 3 + 5 > 7
    do(encounter, "carry_over", id="Herald", ap=4)
    until_turn_of(encounter, "Herald")
    assert (encounter.state.cycle, who(encounter, "Herald").ap) == (2, 7)


# --- 3. F:1 Cycle wastes Readied AP (M-34) ------------------------------------------------------


def test_m34_falter_cycle_wastes_readied_ap() -> None:
    encounter = war()
    add(encounter, "Herald", speed=7, swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    until_turn_of(encounter, "Herald")
    do(encounter, "stand_ready", id="Herald", ap=3, uses=["Strike"])
    until_turn_of(encounter, "Warrior")
    record = do(encounter, "apply_effect", id="Herald", effect="falter_cycle", source="Song")
    wasted = [e.data for e in record.events if e.kind == "ap_wasted"]
    assert {"pool": "readied", "ap": 3} in [{k: w[k] for k in ("pool", "ap")} for w in wasted]
    assert who(encounter, "Herald").readied == 0
    with pytest.raises(TablesideError, match="F:1 Cycle until just before Cycle 2"):
        do(encounter, "strike", (9, 5, 5, 5, 5, 5, 5), striker="Herald", defender="Warrior")


def test_m34_falter_cycle_refuses_host_given_readied_ap() -> None:
    encounter = war()
    add(encounter, "Herald", speed=7, swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    until_turn_of(encounter, "Warrior")
    do(encounter, "apply_effect", id="Herald", effect="falter_cycle", source="Song")
    do(encounter, "host_set", id="Herald", field="readied", value=3)
    with pytest.raises(TablesideError, match="F:1 Cycle"):
        do(encounter, "strike", (9, 5, 5, 5, 5, 5, 5), striker="Herald", defender="Warrior")


# --- 4. Defeat converts Falter (M-34) -----------------------------------------------------------


def falter_wear(record: Any) -> list[tuple[str, int]]:
    return [
        (e.data["kind"], e.data["amount"])
        for e in record.events
        if e.kind == "wear_taken" and "Falter converted" in e.data["source"]
    ]


def test_m34_defeat_by_wear_converts_falter_to_wear_r_and_wear_p() -> None:
    encounter = war()
    add(encounter, "Herald", speed=7, swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10, resolve=60)
    add(encounter, "Jackal", (4.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    do(encounter, "apply_effect", id="Warrior", effect="falter", amount=2)
    record = do(encounter, "apply_effect", id="Warrior", effect="wear_e", amount=60)
    warrior = who(encounter, "Warrior")
    assert warrior.defeated and warrior.falter == 0
    assert falter_wear(record) == [("R", 6), ("P", 6)]
    assert warrior.character.wear.R == 6 and warrior.character.wear.P == 6


def test_m34_defeat_by_lowered_status_converts_falter() -> None:
    encounter = war()
    add(encounter, "Herald", speed=7, swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    add(encounter, "Jackal", (4.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    do(encounter, "apply_effect", id="Warrior", effect="falter", amount=1)
    do(encounter, "apply_effect", id="Warrior", effect="lower_status")
    record = do(encounter, "apply_effect", id="Warrior", effect="lower_status")
    assert who(encounter, "Warrior").defeated and who(encounter, "Warrior").falter == 0
    assert falter_wear(record) == [("R", 3), ("P", 3)]


# --- 5. "For 1 Cycle" means one Cycle (M-24, M-39, A-30) ---------------------------------------


def cycle_order(record: Any) -> list[str]:
    started = next(e for e in record.events if e.kind == "cycle_started")
    return [f"{t['segment']}:{t['combatant']}:{t['ap']}" for t in started.data["order"]]


def lowered_in_cycle_one(times: int) -> Any:
    encounter = war()
    add(encounter, "Herald", swiftness=60)  # Speed 14; Weakened: Swiftness 30, Speed 11
    add(encounter, "Watcher", (0.0, 2.0, 0.0), speed=7, swiftness=20)
    add(encounter, "Warrior", (9.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    until_turn_of(encounter, "Warrior")
    for _ in range(times):
        do(encounter, "apply_effect", id="Herald", effect="lower_status", source="Epic result")
    return encounter


def next_cycle_record(encounter: Any) -> Any:
    for _ in range(10):
        record = do(encounter, "next")
        if any(e.kind == "cycle_started" for e in record.events):
            return record
    raise AssertionError("no new Cycle")


def test_m24_m39_status_lowered_for_1_cycle_does_not_cost_the_next_cycles_turns() -> None:
    encounter = lowered_in_cycle_one(1)
    assert who(encounter, "Herald").character.status.value == "weakened"
    record = next_cycle_record(encounter)
    assert [t for t in cycle_order(record) if "Herald" in t] == ["1:Herald:7", "A:Herald:7"]


def test_m24_m39_lowered_to_defeated_for_1_cycle_still_gets_the_next_cycles_turns() -> None:
    encounter = lowered_in_cycle_one(2)
    assert who(encounter, "Herald").defeated
    record = next_cycle_record(encounter)
    assert [t for t in cycle_order(record) if "Herald" in t] == ["1:Herald:7", "A:Herald:7"]
    until_turn_of(encounter, "Herald")  # the lowering ended just before Cycle 2's Warrior Turn
    assert encounter.state.current is not None and encounter.state.current.segment == "A"
    assert not who(encounter, "Herald").defeated and who(encounter, "Herald").ap == 7


# --- 6. Effects applied before the War starts (M-39, A-31) --------------------------------------


def test_m39_falter_cycle_before_the_war_lasts_all_of_cycle_one() -> None:
    encounter = war()
    add(encounter, "Herald", speed=7, swiftness=40)
    add(encounter, "Warrior", (9.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    do(encounter, "apply_effect", id="Herald", effect="falter_cycle", source="Song")
    timed = who(encounter, "Herald").falter_cycle
    assert timed is not None and timed.ends == EndPoint(2, 0)
    until_turn_of(encounter, "Herald")
    assert encounter.state.cycle == 1 and who(encounter, "Herald").ap == 0  # every AP wasted
    until_turn_of(encounter, "Herald")
    assert encounter.state.cycle == 2 and who(encounter, "Herald").ap == 7
    assert who(encounter, "Herald").falter_cycle is None


def test_m24_m39_status_lowered_before_the_war_lasts_all_of_cycle_one() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=60)  # Speed 14; Weakened: 11
    add(encounter, "Warrior", (9.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    do(encounter, "apply_effect", id="Herald", effect="lower_status", source="Epic result")
    record = do(encounter, "next")
    assert [t for t in cycle_order(record) if "Herald" in t] == ["1:Herald:7", "A:Herald:4"]
    assert who(encounter, "Herald").character.status.value == "weakened"
    record = next_cycle_record(encounter)
    assert [t for t in cycle_order(record) if "Herald" in t] == ["1:Herald:7", "A:Herald:7"]
    assert who(encounter, "Herald").character.status.value == "normal"


# --- 7. Knock Back meets every elohim on its path (M-35) ----------------------------------------


def test_m35_knock_back_meets_every_elohim_on_its_path() -> None:
    encounter = war()
    add(encounter, "Herald", (0.0, 0.0, 0.0), swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", endurance=45, control=30)
    add(encounter, "Nimble", (4.0, 0.0, 0.0), side="fallen", swiftness=60)
    add(encounter, "Wall", (6.0, 0.0, 0.0), side="fallen", endurance=80, swiftness=10, control=30)
    # Nimble's Swiftness Check: three unpaired 12s succeed (M-33), it steps aside; Wall's fails,
    # then Wall's collision Control Check and Warrior's Knock Back Control Check.
    dice = (12, 12, 12, 5, 5, 5, 5) + (5,) * 21
    record = do(encounter, "apply_effect", dice, id="Warrior", effect="knock_back", amount=8.5,
                by="Herald")  # fmt: skip
    checks = [
        (e.data["id"], e.data["purpose"]) for e in record.events if e.kind == "check_resolved"
    ]
    assert checks[:2] == [
        ("Nimble", "Swiftness Check to avoid a collision"),
        ("Wall", "Swiftness Check to avoid a collision"),
    ]
    wear = {(e.data["id"], e.data["amount"]) for e in record.events if e.kind == "wear_taken"}
    # Stopped 1" short of Wall's centre: 5.5" left → 5 Hits; Force 3 + 8 − 4 = 7 (M-35).
    assert wear == {("Warrior", 35), ("Wall", 15)}
    assert who(encounter, "Warrior").position == pytest.approx((5.0, 0.0, 0.0))
    assert who(encounter, "Nimble").character.wear.E == 0


# --- 8. A Grappler cannot be in Defensive Stance (M-37) -----------------------------------------


def test_m37_grappling_ends_the_grapplers_defensive_stance() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10)
    do(encounter, "stance", id="Herald", on=True)
    do(encounter, "stance", id="Warrior", on=True)
    do(encounter, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    assert not who(encounter, "Herald").stance
    assert not who(encounter, "Warrior").stance
    with pytest.raises(TablesideError, match="Grappling"):
        do(encounter, "stance", id="Herald", on=True)


# --- 9. Weary as soon as Exertion passes Stamina (M-4, A-32) ------------------------------------


def test_m4_weary_as_soon_as_exertion_passes_stamina_during_its_turn() -> None:
    encounter = war()
    add(encounter, "Herald", (0.0, 0.0, 0.0), swiftness=40)  # Stamina 3 + 60 // 10 = 9
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10, endurance=200)
    until_turn_of(encounter, "Herald")
    do(encounter, "host_set", id="Herald", field="exertion", value=8)
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")  # first 3 ignored
    assert who(encounter, "Herald").character.exertion == 8 and not who(encounter, "Herald").weary
    record = do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert who(encounter, "Herald").character.exertion == 11
    assert who(encounter, "Herald").weary
    assert "weary_set" in kinds(record)
    do(encounter, "rest", id="Herald", ap=1)  # 10: still above 9
    assert who(encounter, "Herald").weary


def test_m4_exertion_outside_its_turn_makes_it_weary_when_its_turn_begins() -> None:
    encounter = war()
    add(encounter, "Herald", (0.0, 0.0, 0.0), swiftness=40)
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(encounter, "Warrior")
    do(encounter, "apply_effect", id="Herald", effect="exertion", amount=12)
    assert not who(encounter, "Herald").weary  # not during its own Turn (M-4)
    until_turn_of(encounter, "Herald")
    assert who(encounter, "Herald").weary


# --- 10. A Sword's 12-Effect AP on a Strike with Readied AP (M-21, M-41, A-33) ------------------


def test_m21_m41_sword_twelve_effect_ap_on_a_readied_strike_can_be_spent() -> None:
    encounter = war()
    add(encounter, "Herald", (0.0, 0.0, 0.0), swiftness=40, weapon="Sword")
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10, endurance=200)
    until_turn_of(encounter, "Herald")
    do(encounter, "stand_ready", id="Herald", ap=5, uses=["Strike", "Strike"])
    until_turn_of(encounter, "Warrior")
    do(encounter, "strike", (12, 9, 9, 5, 5, 5, 5), striker="Herald", defender="Warrior",
       mode="none")  # fmt: skip
    herald = who(encounter, "Herald")
    assert herald.twelves_this_turn == 1
    assert (herald.readied, herald.ap, herald.ready_uses) == (3, 0, ("Strike",))
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior", mode="none")
    assert who(encounter, "Herald").readied == 0


# --- 11. Stand Ready's declared uses (M-41, M-36, A-34) -----------------------------------------


def readied_war(uses: list[str]) -> Any:
    encounter = war()
    add(encounter, "Herald", (0.0, 0.0, 0.0), swiftness=40)
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10, endurance=200)
    until_turn_of(encounter, "Herald")
    do(encounter, "stand_ready", id="Herald", ap=6, uses=uses)
    until_turn_of(encounter, "Warrior")
    return encounter


def test_m41_a_move_uses_up_the_declared_move_not_the_strike() -> None:
    encounter = readied_war(["Counter Strike", "Move"])
    do(encounter, "move", id="Herald", to=[0.0, 1.0, 0.0])
    assert who(encounter, "Herald").ready_uses == ("Counter Strike",)
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert who(encounter, "Herald").ready_uses == ()
    assert who(encounter, "Herald").readied == 2


def test_m41_readied_ap_refuse_an_action_not_declared() -> None:
    encounter = readied_war(["Strike"])
    with pytest.raises(TablesideError, match="declared for 'Strike', not for Move"):
        do(encounter, "move", id="Herald", to=[0.0, 1.0, 0.0])
    assert who(encounter, "Herald").readied == 6


def test_m36_bound_may_stand_ready_only_for_what_a_bound_elohim_may_do() -> None:
    encounter = war()
    add(encounter, "Herald", (0.0, 0.0, 0.0), swiftness=40)
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10)
    until_turn_of(encounter, "Herald")
    do(encounter, "apply_effect", id="Herald", effect="bound")
    with pytest.raises(TablesideError, match="Bound and may Stand Ready only"):
        do(encounter, "stand_ready", id="Herald", ap=3, uses=["Rest", "Strike"])
    do(encounter, "stand_ready", id="Herald", ap=3, uses=["Song", "Rest"])
    assert who(encounter, "Herald").readied == 3


@pytest.mark.parametrize(
    ("uses", "action", "index"),
    [
        (("Counter Strike", "Move"), "Move", 1),
        (("counter strike",), "Strike", 0),
        (("Move",), "Strike", None),
        (("Break free",), "break free", 0),
        (("Interpose",), "Strike", None),
    ],
)
def test_m41_a_declared_use_names_the_action_by_its_words(
    uses: tuple[str, ...], action: str, index: int | None
) -> None:
    assert use_for(uses, action) == index


# --- 12. The Grappler's Strike (M-37, A-35) -----------------------------------------------------


def grappling_war(herald_might: int = 42, warrior_might: int = 42) -> Any:
    encounter = war()
    add(encounter, "Herald", swiftness=40, might=herald_might)
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10, might=warrior_might)
    do(encounter, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    until_turn_of(encounter, "Herald")
    return encounter


def test_m37_grapplers_two_ap_strike_is_a_might_check_and_keeps_the_grapple() -> None:
    encounter = grappling_war()
    ap = who(encounter, "Herald").ap
    record = do(encounter, "strike", (9, 9, 10, 5, 5, 5, 5), striker="Herald",
                defender="Warrior", two_ap=True, mode="none")  # fmt: skip
    assert "strike_resolved" not in kinds(record)  # no Strike Roll
    check = next(e for e in record.events if e.kind == "check_resolved")
    assert check.data["purpose"] == "Grappler's Strike on Warrior"
    assert (check.data["result"]["factor"], check.data["result"]["opposing"]) == (4, 4)
    # 3 net Passes are 3 Hits at Force 3 + 42 // 14 = 6: 18 WearE (M-26, A-35).
    wear = [(e.data["id"], e.data["kind"], e.data["amount"]) for e in record.events
            if e.kind == "wear_taken"]  # fmt: skip
    assert wear == [("Warrior", "E", 18)]
    assert who(encounter, "Herald").ap == ap - 2
    assert who(encounter, "Warrior").grappled_by == "Herald"  # not released
    exertion = [e.data for e in record.events if e.kind == "exertion_set"]
    assert exertion[0]["id"] == "Herald" and exertion[0]["added"] + exertion[0]["ignored"] == 2


def test_m37_grapplers_strike_check_that_fails_deals_no_wear() -> None:
    encounter = grappling_war(herald_might=42, warrior_might=72)  # Factor 4 vs 7: 2 against
    record = do(encounter, "strike", (9, 9, 5, 5, 5, 5, 2), striker="Herald",
                defender="Warrior", two_ap=True)  # fmt: skip
    check = next(e for e in record.events if e.kind == "check_resolved").data["result"]
    assert (check["adjuster"], check["final"]) == ("opponent", [8, 8, 5, 5, 5, 5, 2])
    assert (check["net"], check["outcome"]) == (-1, "failure")
    assert "wear_taken" not in kinds(record)  # no Defensive Hits either: not a Strike Roll
    assert who(encounter, "Warrior").grappled_by == "Herald"


def test_m37_m33_grapplers_strike_epic_check_counts_three_hits() -> None:
    encounter = grappling_war()
    record = do(encounter, "strike", (12, 12, 12, 3, 3, 3, 3), striker="Herald",
                defender="Warrior", two_ap=True, mode="none")  # fmt: skip
    check = next(e for e in record.events if e.kind == "check_resolved").data["result"]
    assert (check["net"], check["outcome"]) == (2, "success")  # three unpaired 12s (M-33)
    wear = [e.data["amount"] for e in record.events if e.kind == "wear_taken"]
    assert wear == [18]  # at least a success's 3 Hits × Force 6


def test_m37_grapplers_strike_refuses_strike_roll_options() -> None:
    encounter = grappling_war()
    with pytest.raises(TablesideError, match="Might Check, not a Strike Roll: --ranged"):
        do(encounter, "strike", striker="Herald", defender="Warrior", two_ap=True, ranged=True)


def test_m37_a_regular_strike_on_the_grappled_still_releases_it() -> None:
    encounter = grappling_war()
    record = do(encounter, "strike", (9, 5, 5, 5, 5, 5, 5), striker="Herald", defender="Warrior")
    assert "strike_resolved" in kinds(record)
    assert who(encounter, "Warrior").grappled_by is None


# --- 13. A second Grapple and the Grappled elohim as a weapon (M-37, A-36, A-37) ---------------


def three_war(herald_might: int, held_might: int = 42) -> Any:
    encounter = war()
    add(encounter, "Herald", swiftness=40, might=herald_might)
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10, might=held_might)
    add(encounter, "Nimble", (0.0, 1.0, 0.0), side="fallen", swiftness=10, might=held_might)
    add(encounter, "Wall", (2.0, 0.0, 0.0), side="fallen", swiftness=10, endurance=80)
    return encounter


def test_m37_second_grapple_needs_40_more_might_and_never_a_third() -> None:
    weak = three_war(herald_might=60)
    do(weak, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    with pytest.raises(TablesideError, match="at least 40 more Might than the one it holds"):
        do(weak, "apply_effect", id="Nimble", effect="grappled", by="Herald")
    strong = three_war(herald_might=100)
    do(strong, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    do(strong, "apply_effect", id="Nimble", effect="grappled", by="Herald")
    assert who(strong, "Nimble").grappled_by == "Herald"
    with pytest.raises(TablesideError, match="already holds 2 elohim"):
        do(strong, "apply_effect", id="Wall", effect="grappled", by="Herald")


def test_m37_two_held_split_the_grapplers_might_for_breaking_free() -> None:
    encounter = three_war(herald_might=100)
    do(encounter, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    do(encounter, "apply_effect", id="Nimble", effect="grappled", by="Herald")
    until_turn_of(encounter, "Warrior")
    record = do(encounter, "break_free", (5,) * 7, id="Warrior")
    check = next(e for e in record.events if e.kind == "check_resolved").data["result"]
    assert (check["factor"], check["opposing"]) == (4, 5)  # 100 // 2 = 50 → Factor 5


def test_m37_two_held_split_the_grapplers_might_for_striking_others() -> None:
    encounter = three_war(herald_might=100)
    do(encounter, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    until_turn_of(encounter, "Herald")
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Wall")  # 100 − 42 ≥ 40
    do(encounter, "apply_effect", id="Nimble", effect="grappled", by="Herald")
    with pytest.raises(TablesideError, match="at least 40 more Might"):
        do(encounter, "strike", (5,) * 7, striker="Herald", defender="Wall")  # 50 − 42 < 40
    record = do(encounter, "strike", (9, 9, 10, 5, 5, 5, 5), striker="Herald",
                defender="Nimble", two_ap=True, mode="none")  # fmt: skip
    check = next(e for e in record.events if e.kind == "check_resolved").data["result"]
    assert check["factor"] == 5  # the Grappler's Strike too uses the split Might


def test_m37_grappled_elohim_used_as_a_weapon_wears_both() -> None:
    encounter = three_war(herald_might=130)  # Force 3 + 130 // 14 = 12
    do(encounter, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    until_turn_of(encounter, "Herald")
    record = do(encounter, "strike", (9, 9, 9, 2, 5, 5, 5), striker="Herald", defender="Wall",
                body="Warrior", mode="none")  # fmt: skip
    strike_event = next(e for e in record.events if e.kind == "strike_resolved")
    assert strike_event.data["result"]["weapon"] == "Warrior (Grappled)"
    wear = [(e.data["id"], e.data["kind"], e.data["amount"], e.data["source"])
            for e in record.events if e.kind == "wear_taken"]  # fmt: skip
    # 3 Hits, 1 Stop: 2 × 12 WearE; collision Force (E 60 vs 80): Warrior 3 + 8 − 6 = 5 per Hit
    # regardless of Stops (3), Wall 3 per uncanceled Hit (2) (M-35, M-37).
    assert wear == [
        ("Wall", "E", 24, "Strike"),
        ("Warrior", "E", 15, "used as a weapon (collision)"),
        ("Wall", "E", 6, "struck with Warrior (collision)"),
    ]
    assert who(encounter, "Warrior").grappled_by == "Herald"


def test_m37_a_defeated_body_adds_3_force_and_no_collision() -> None:
    encounter = three_war(herald_might=130)
    do(encounter, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    do(encounter, "apply_effect", id="Warrior", effect="wear_e", amount=200)
    until_turn_of(encounter, "Herald")
    record = do(encounter, "strike", (9, 9, 9, 2, 5, 5, 5), striker="Herald", defender="Wall",
                body="Warrior", mode="none")  # fmt: skip
    wear = [(e.data["id"], e.data["amount"]) for e in record.events if e.kind == "wear_taken"]
    assert wear == [("Wall", 30)]  # 2 × (12 + 3)


def test_m37_a_body_weapon_needs_80_more_might() -> None:
    encounter = three_war(herald_might=100)  # 58 more: may Strike others, not with the body
    do(encounter, "apply_effect", id="Warrior", effect="grappled", by="Herald")
    until_turn_of(encounter, "Herald")
    with pytest.raises(TablesideError, match="at least 80 more Might than Warrior"):
        do(encounter, "strike", striker="Herald", defender="Wall", body="Warrior")
    with pytest.raises(TablesideError, match="not Grappling Nimble"):
        do(encounter, "strike", striker="Herald", defender="Wall", body="Nimble")


# --- 14. Entangled by a source with a strength (M-37, A-38) -------------------------------------


def test_m37_entangled_breaks_free_against_binds_resolve_allotment() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40, might=53)
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10)
    do(encounter, "apply_effect", id="Herald", effect="entangled", amount=40, source="Bind")
    herald = who(encounter, "Herald")
    assert (herald.grappled_by, herald.entangled_strength) == ("Bind", 40)
    until_turn_of(encounter, "Herald")
    with pytest.raises(TablesideError, match="Herald is Entangled by Bind and cannot Move"):
        do(encounter, "move", id="Herald", to=[0.0, 1.0, 0.0])
    record = do(encounter, "break_free", (9, 9, 10, 5, 5, 5, 5), id="Herald")
    check = next(e for e in record.events if e.kind == "check_resolved").data["result"]
    assert (check["factor"], check["opposing"]) == (5, 4)  # Might 53 against Allotment 40
    herald = who(encounter, "Herald")
    assert (herald.grappled_by, herald.entangled_strength) == (None, None)


def test_m37_a_hold_with_no_strength_refuses_breaking_free_before_spending() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10)
    do(encounter, "apply_effect", id="Herald", effect="grappled", source="vines")
    until_turn_of(encounter, "Herald")
    with pytest.raises(TablesideError, match="has no strength to break free against"):
        do(encounter, "break_free", id="Herald")
    assert who(encounter, "Herald").ap == 7


def test_m37_entangled_source_is_no_grappler() -> None:
    encounter = war()
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Warrior", (1.0, 0.0, 0.0), side="fallen", swiftness=10)
    with pytest.raises(TablesideError, match="Entangled comes from a source"):
        do(encounter, "apply_effect", id="Herald", effect="entangled", amount=40, by="Warrior")
    do(encounter, "apply_effect", id="Herald", effect="entangled", amount=40, source="Warrior")
    until_turn_of(encounter, "Warrior")
    do(encounter, "stance", id="Warrior", on=True)  # the source's name makes no Grappler
    do(encounter, "apply_effect", id="Herald", effect="released")
    assert who(encounter, "Herald").entangled_strength is None


# --- 16. Full Defensive Stance kept, Dominions, the ruleset per War (M-15, M-17, A-39 … A-41) ---


def stance_war() -> Any:
    encounter = war()
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10)
    return encounter


def guard_parts(record: Any) -> list[tuple[str, int]]:
    result = next(e for e in record.events if e.kind == "strike_resolved").data["result"]
    return [(p["label"], p["amount"]) for p in result["guard"]["parts"]]


def test_m17_full_defensive_stance_is_the_defenders_kept_state() -> None:
    encounter = stance_war()
    do(encounter, "stance", id="Warrior", full=True)
    assert who(encounter, "Warrior").full_stance
    until_turn_of(encounter, "Herald")
    record = do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert ("Full Defensive Stance", 5) in guard_parts(record)  # no flag on the Strike
    do(encounter, "stance", id="Warrior", on=False)
    assert not who(encounter, "Warrior").full_stance
    record = do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert not any("Stance" in label for label, _ in guard_parts(record))


def test_m17_the_newer_full_stance_ruleset_is_chosen_per_war() -> None:
    encounter = stance_war()
    do(encounter, "ruleset", name="newer-full-stance")
    do(encounter, "stance", id="Warrior", full=True)
    until_turn_of(encounter, "Herald")
    record = do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    result = next(e for e in record.events if e.kind == "strike_resolved").data["result"]
    assert result["ruleset"] == "newer-full-stance"
    assert not any("Stance" in label for label, _ in guard_parts(record))  # an Adjustment instead
    other = stance_war()  # another War keeps the standard ruleset
    do(other, "stance", id="Warrior", full=True)
    until_turn_of(other, "Herald")
    record = do(other, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert ("Full Defensive Stance", 5) in guard_parts(record)


def test_m15_a_spiritual_dominion_in_the_war_blocks_strikes_through_it() -> None:
    encounter = stance_war()
    do(encounter, "dominion", id="Ward", center=[1.0, 0.0, 0.0], radius=0.5)
    until_turn_of(encounter, "Herald")
    with pytest.raises(TablesideError, match="Dominion"):
        do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert who(encounter, "Herald").ap == 7  # nothing spent
    do(encounter, "dominion", id="Ward", on=False)
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    assert who(encounter, "Herald").ap == 4


# --- The Host's command line: a Strike's movement is logged with its inches (M-14) -------------


def test_m14_a_strikes_movement_is_logged_with_its_inches() -> None:
    encounter = stance_war()
    until_turn_of(encounter, "Herald")
    record = do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior",
                path=[[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]])  # fmt: skip
    moved = next(e for e in record.events if e.kind == "moved")
    assert (moved.data["to"], moved.data["inches"]) == ([1.0, 1.0, 0.0], 2.0)


# --- the Host's command line: Turn numbers and the Scroll after Carry Over (M-40, M-41) ----------


def test_m40_turn_numbers_read_the_same_in_the_log_and_the_scroll() -> None:
    """M-40: the log's "Turn N" is the Scroll's Turn column (both count from 1)."""
    from rich.console import Console

    from tableside.cli.war_render import event_text, scroll_table

    encounter = war()
    add(encounter, "Herald", speed=10, swiftness=40)
    add(encounter, "Warrior", (9.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    until_turn_of(encounter, "Warrior")
    started = [e for r in encounter.records for e in r.events if e.kind == "turn_started"]
    line = event_text(started[-1])
    index = encounter.state.turn
    assert line.startswith(f"Cycle 1, Turn {index + 1} (Segment ")
    console = Console(width=100, record=True)
    console.print(scroll_table(encounter.state))
    row = next(r for r in console.export_text().splitlines() if "▶" in r)
    assert f" {index + 1} " in row and "Warrior" in row


def test_m41_the_scroll_shows_the_ap_a_turn_gets_after_carry_over() -> None:
    """M-41, A-29: Herald carries 2 AP into its second Turn of the Cycle (3 AP): it shows 5."""
    from rich.console import Console

    from tableside.cli.war_render import scroll_table

    encounter = war()
    add(encounter, "Herald", speed=10, swiftness=40)
    add(encounter, "Warrior", (9.0, 0.0, 0.0), side="fallen", speed=7, swiftness=10)
    until_turn_of(encounter, "Herald")
    assert [t.ap for t in encounter.state.order if t.combatant == "Herald"] == [7, 3]
    do(encounter, "carry_over", id="Herald", ap=2)
    console = Console(width=100, record=True)
    console.print(scroll_table(encounter.state))
    assert "5 (3 + 2 carried)" in console.export_text()
    until_turn_of(encounter, "Herald")
    assert who(encounter, "Herald").ap == 5


# --- 16. Barriers (M-35, A-42) -----------------------------------------------------------------


def test_a42_knock_back_stops_at_a_barrier_with_its_resolve_as_endurance() -> None:
    """A-42: Warrior (E 45) knocked 8.5" into a Barrier of Resolve 80 at x=6 (radius 1)."""
    encounter = war()
    add(encounter, "Herald", (0.0, 0.0, 0.0), swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", endurance=45, control=30)
    do(encounter, "barrier", id="Ward", center=[6.0, 0.0, 0.0], radius=1.0, resolve=80)
    record = do(encounter, "apply_effect", (5,) * 7, id="Warrior", effect="knock_back",
                amount=8.5, by="Herald")  # fmt: skip
    checks = [e.data["purpose"] for e in record.events if e.kind == "check_resolved"]
    assert checks == ["Knock Back Control Check"]  # the Barrier makes no Check
    wear = [(e.data["id"], e.data["amount"]) for e in record.events if e.kind == "wear_taken"]
    # Stopped at the Barrier's surface (x = 5): 5.5" left → 5 Hits at Force 3 + 8 − 4 = 7.
    assert wear == [("Warrior", 35)]
    assert who(encounter, "Warrior").position == pytest.approx((5.0, 0.0, 0.0))


def test_a42_an_elohim_before_the_barrier_is_met_first_and_the_barrier_can_end() -> None:
    """A-42: the nearest thing on the path is met first; an ended Barrier stops nothing."""
    encounter = war()
    add(encounter, "Herald", (0.0, 0.0, 0.0), swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", endurance=45, control=30)
    do(encounter, "barrier", id="Ward", center=[9.0, 0.0, 0.0], radius=1.0, resolve=80)
    do(encounter, "barrier", id="Ward", on=False)
    assert encounter.state.barriers == {}
    with pytest.raises(TablesideError, match="no Barrier 'Ward'"):
        do(encounter, "barrier", id="Ward", on=False)
    do(encounter, "apply_effect", (5,) * 7, id="Warrior", effect="knock_back", amount=3.0,
       by="Herald")  # fmt: skip
    assert who(encounter, "Warrior").position == pytest.approx((5.0, 0.0, 0.0))


# --- the Host's command line: a refusal names why the AP are gone (M-34) --------------------------


def test_m34_a_strike_refused_for_ap_names_the_ap_falter_wasted() -> None:
    """M-34: F:3 wastes 3 of Herald's 7 AP; a second Strike's refusal says so."""
    encounter = war()
    add(encounter, "Herald", swiftness=40)
    add(encounter, "Warrior", (2.0, 0.0, 0.0), side="fallen", swiftness=10)
    do(encounter, "apply_effect", id="Herald", effect="falter", amount=3, by="Warrior")
    until_turn_of(encounter, "Herald")
    assert who(encounter, "Herald").ap == 4 and who(encounter, "Herald").wasted == 3
    do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")
    with pytest.raises(
        TablesideError,
        match=r"Herald has 1 AP \(3 wasted by Falter this Turn, M-34\) and 0 Readied AP\.$",
    ):
        do(encounter, "strike", (5,) * 7, striker="Herald", defender="Warrior")

"""Issue 13: the War against the rule texts (M-24, M-34 … M-41), one test per wrong item."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from builders import strike, strike_setup, striker_adjusts
from war_builders import add, do, kinds, until_turn_of, war, who

from tableside.cli.app import main
from tableside.encounter.war_state import EndPoint
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
    monkeypatch.setattr(sys, "argv", ["tableside", *args, "--json"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    out, err = capsys.readouterr()
    assert exit_info.value.code in (0, None), err
    data: dict[str, Any] = json.loads(out)
    return data


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

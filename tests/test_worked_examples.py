"""The "Worked examples" table of docs/rules.md: one named test per Allies of Majesty row.

Rows for rules not built yet are left out: M-34 (Falter cap), M-40 (War Scroll Segments),
M-38 (Poison) and M-35 (Knock Back collisions).
"""

from __future__ import annotations

import pytest
from builders import (
    AdjustMode,
    assert_current,
    assert_passes,
    character,
    run_check,
    strike,
    wear_line,
)

from tableside.dice import Side
from tableside.majesty.character import WearKind
from tableside.majesty.checks import CheckKind, factor_value, song_factor
from tableside.majesty.rolls import PLAIN, Tally, adjustments_from_advantage, natural_roll_from
from tableside.majesty.strike import passion_triggers
from tableside.majesty.wear import Part, deal_wear, percent_delta

NEUTRAL = (5, 5, 5, 5, 5, 5, 5)


def test_worked_m18_precision_2_vs_guard_4_defender_makes_1_adjustment() -> None:
    result = strike(
        (9, 9, 9, 5, 5, 5, 5),
        striker=character("Herald", precision=2),
        defender=character("Fallen Warrior", guard=4),
    )
    assert result.adjusting.advantage == -2
    assert_passes(result.adjusting.passes, [(Side.DEFENDER, 1)])
    assert [(a.by, a.from_, a.to) for a in result.adjustments] == [(Side.DEFENDER, 9, 8)]


def test_worked_m10_advantage_table() -> None:
    advantages = (0, 1, 2, 3, 5, 6, 9, 10, 14, 15, 20)
    expected = [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6]
    assert [adjustments_from_advantage(a) for a in advantages] == expected


def test_worked_m26_3_uncanceled_hits_force_4_deal_12_wear_e() -> None:
    assert deal_wear(WearKind.E, 3, 4).amount == 12
    result = strike((9, 10, 11, 5, 5, 5, 5), striker=character("Herald", force=4))
    line = wear_line(result, WearKind.E)
    assert (line.hits, line.force, line.amount) == (3, 4, 12)
    assert_current(result.defender_after, endurance=100 - 12)


def test_worked_m26_27_wear_minus_20_percent_is_22() -> None:
    assert percent_delta(27, -20) == -5
    assert deal_wear(WearKind.E, 3, 9, percents=(Part("Strength in Struggle", -20),)).amount == 22
    result = strike(
        (9, 9, 9, 5, 5, 5, 5),
        striker=character("Messenger", force=9),
        wear_percent=-20,
        mode=AdjustMode.NONE,
    )
    assert wear_line(result, WearKind.E).amount == 22


def test_worked_m26_27_wear_plus_20_percent_is_32() -> None:
    assert percent_delta(27, 20) == 5
    result = strike(
        (9, 9, 9, 5, 5, 5, 5),
        striker=character("Messenger", force=9),
        wear_percent=20,
        mode=AdjustMode.NONE,
    )
    assert wear_line(result, WearKind.E).amount == 32


def test_worked_m26_4_wear_minus_10_percent_is_3_delta_at_least_1() -> None:
    assert percent_delta(4, -10) == -1
    result = strike((9, 5, 5, 5, 5, 5, 5), wear_percent=-10)
    assert wear_line(result, WearKind.E).amount == 3


DICE_M07 = (12, 10, 9, 6, 6, 5, 3, 2, 2)


def test_worked_m07_boon_2_discards_2_2_net_plus_3() -> None:
    roll = natural_roll_from(DICE_M07, 2)
    assert roll.discarded_faces == (2, 2)
    assert Tally.of(roll.natural, PLAIN).net == 3


def test_worked_m07_bane_2_discards_10_9_net_minus_1() -> None:
    roll = natural_roll_from(DICE_M07, -2)
    assert sorted(roll.discarded_faces) == [9, 10]
    assert Tally.of(roll.natural, PLAIN).net == -1


def test_worked_m30_control_53_resists_allotment_40_resister_1_adjustment() -> None:
    assert (factor_value(53), factor_value(40)) == (5, 4)
    result = run_check(
        NEUTRAL, CheckKind.RESIST, factor=factor_value(53), opposing=factor_value(40)
    )
    assert_passes(result.passes, [(Side.ROLLER, 1)])


def test_worked_m30_resolve_67_resists_song_of_3_spp_no_adjustments() -> None:
    assert (factor_value(67), song_factor(3)) == (6, 6)
    result = run_check(NEUTRAL, CheckKind.RESIST, factor=factor_value(67), opposing=song_factor(3))
    assert_passes(result.passes, [])
    assert result.adjustments == ()


def test_worked_m11_4_adjustments_difficulty_3_leave_1_adjustment() -> None:
    result = run_check((8, 5, 5, 5, 5, 5, 5), factor=10, difficulty=3)
    assert result.translated == 4
    assert_passes(result.passes, [(Side.ROLLER, 1)])
    assert [(a.by, a.from_, a.to) for a in result.adjustments] == [(Side.ROLLER, 8, 9)]


@pytest.mark.parametrize(("might", "force"), [(13, 3), (14, 4), (27, 4), (28, 5)])
def test_worked_m02_might_to_force(might: int, force: int) -> None:
    assert character(might=might).war.force == force


def test_worked_m25_passion_minus_resolve_to_triggers() -> None:
    differences = (0, 1, 39, 40, 79, 80, 200)
    assert [passion_triggers(d) for d in differences] == [0, 1, 1, 2, 2, 3, 3]
    strikes = [
        strike(NEUTRAL, striker=character(passion=100 + d)).effects.passion_triggers
        for d in differences
    ]
    assert strikes == [0, 1, 1, 2, 2, 3, 3]

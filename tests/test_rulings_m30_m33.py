"""Rulings M-30 … M-33 (docs/rules.md): Checks and interactions on scripted dice."""

from __future__ import annotations

import pytest
from builders import AdjustMode, Step, assert_passes, check, refused, run_check

from tableside.dice import ScriptedRng, Side
from tableside.majesty.checks import (
    CheckKind,
    CheckOutcome,
    check_with_dice,
    factor_value,
    roll_check,
    song_factor,
)

NEUTRAL = (5, 5, 5, 5, 5, 5, 5)

# --- M-30 Factor Value ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "fv"), [(0, 0), (9, 0), (10, 1), (40, 4), (53, 5), (67, 6), (119, 11)]
)
def test_m30_factor_value_is_attribute_div_10(attribute: int, fv: int) -> None:
    assert factor_value(attribute) == fv


@pytest.mark.parametrize(("spp", "fv"), [(0, 0), (1, 2), (3, 6)])
def test_m30_a_songs_factor_value_is_twice_its_spp(spp: int, fv: int) -> None:
    assert song_factor(spp) == fv


@pytest.mark.parametrize(
    ("factor", "opposing", "passes"),
    [
        (5, 4, [(Side.ROLLER, 1)]),
        (4, 5, [(Side.OPPONENT, 1)]),
        (6, 6, []),
        (10, 0, [(Side.ROLLER, 4)]),
        (2, 8, [(Side.OPPONENT, 3)]),
    ],
)
def test_m30_opposed_check_advantage_is_fv_minus_opposing_fv(
    factor: int, opposing: int, passes: list[tuple[Side, int]]
) -> None:
    result = run_check(NEUTRAL, CheckKind.RESIST, factor=factor, opposing=opposing)
    assert result.advantage == factor - opposing
    assert_passes(result.passes, passes)


@pytest.mark.parametrize(
    ("factor", "difficulty", "passes"),
    [
        (3, 0, [(Side.ROLLER, 2)]),  # advantage = FV
        (3, 1, [(Side.ROLLER, 1)]),
        (3, 2, []),
        (3, 4, [(Side.OPPONENT, 2)]),
        (0, 2, [(Side.OPPONENT, 2)]),
    ],
)
def test_m30_unopposed_check_difficulty_adds_raw_adjustments_against(
    factor: int, difficulty: int, passes: list[tuple[Side, int]]
) -> None:
    result = run_check(NEUTRAL, factor=factor, difficulty=difficulty)
    assert result.advantage == factor
    assert_passes(result.passes, passes)


@pytest.mark.parametrize(("factor", "difficulty", "count"), [(0, -2, 2), (1, -3, 4)])
def test_m30_negative_difficulty_is_in_favour(factor: int, difficulty: int, count: int) -> None:
    result = run_check(NEUTRAL, factor=factor, difficulty=difficulty)
    assert_passes(result.passes, [(Side.ROLLER, count)])


def test_m30_resist_check_end_to_end() -> None:
    # Control 53 resists an Allotment of 40: FV 5 vs 4 → the resister lifts the 8 to a 9.
    result = run_check(
        (8, 9, 9, 5, 5, 5, 5),
        CheckKind.RESIST,
        factor=factor_value(53),
        opposing=factor_value(40),
    )
    assert result.final == (9, 9, 9, 5, 5, 5, 5)
    assert result.outcome == CheckOutcome.SUCCESS
    assert "M-30" in result.rulings


def test_m30_negative_factor_values_are_refused() -> None:
    with refused("cannot be negative"):
        run_check(NEUTRAL, factor=-1)
    with refused("cannot be negative"):
        run_check(NEUTRAL, factor=1, opposing=-2)


# --- M-31 Success, partial success, failure ---------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "net", "outcome", "short"),
    [
        ((12, 12, 9, 9, 9, 5, 5), 7, CheckOutcome.SUCCESS, 0),
        ((9, 9, 9, 5, 5, 5, 5), 3, CheckOutcome.SUCCESS, 0),
        ((9, 9, 5, 5, 5, 5, 5), 2, CheckOutcome.PARTIAL, 1),
        ((9, 5, 5, 5, 5, 5, 5), 1, CheckOutcome.PARTIAL, 2),
        ((9, 2, 5, 5, 5, 5, 5), 0, CheckOutcome.FAILURE, 3),
        ((5, 5, 5, 5, 5, 5, 5), 0, CheckOutcome.FAILURE, 3),
        ((2, 2, 5, 5, 5, 5, 5), -2, CheckOutcome.FAILURE, 5),
    ],
)
def test_m31_success_at_3_partial_1_to_2_failure_0_or_less(
    faces: tuple[int, ...], net: int, outcome: CheckOutcome, short: int
) -> None:
    result = run_check(faces)
    assert (result.net, result.outcome, result.passes_short) == (net, outcome, short)


def test_m31_adjustments_move_the_outcome() -> None:
    partial = run_check((8, 9, 9, 5, 5, 5, 5), factor=1, opposing=0, mode=AdjustMode.NONE)
    assert partial.outcome == CheckOutcome.PARTIAL
    success = run_check((8, 9, 9, 5, 5, 5, 5), factor=1, opposing=0)
    assert success.outcome == CheckOutcome.SUCCESS
    explicit = run_check(
        (8, 9, 9, 5, 5, 5, 5), factor=1, opposing=0, mode=AdjustMode.EXPLICIT, steps=(Step(0, 1),)
    )
    assert explicit.outcome == CheckOutcome.SUCCESS


def test_m31_a_check_rolls_through_the_rng_with_boon() -> None:
    rng = ScriptedRng((9, 9, 9, 5, 5, 5, 5, 2))
    result = roll_check(check(boon=1), rng)
    rng.expect_all_used()
    assert result.roll.discarded_faces == (2,)
    assert result.outcome == CheckOutcome.SUCCESS


# --- M-32 Perception and Social interactions --------------------------------------------------


@pytest.mark.parametrize("kind", [CheckKind.PERCEPTION, CheckKind.SOCIAL])
def test_m32_interactions_take_raw_opposing_adjustments(kind: CheckKind) -> None:
    # 5 for, 2 against → 3 Adjustments (translating an advantage of 3 would give 2).
    result = run_check((8, 8, 8, 5, 5, 5, 5), kind, factor=5, opposing=2)
    assert result.translated == 0
    assert_passes(result.passes, [(Side.ROLLER, 3)])
    assert result.net == 3
    against = run_check(NEUTRAL, kind, factor=1, opposing=4)
    assert_passes(against.passes, [(Side.OPPONENT, 3)])
    assert "M-32" in result.rulings


@pytest.mark.parametrize(
    ("faces", "net", "degree"),
    [
        ((9, 9, 5, 5, 5, 5, 5), 2, 0),
        ((9, 9, 9, 5, 5, 5, 5), 3, 1),
        ((9, 9, 9, 9, 9, 9, 5), 6, 1),
        ((12, 9, 9, 9, 9, 9, 5), 7, 2),
        ((12, 12, 12, 9, 9, 5, 5), 8, 2),
        ((12, 12, 12, 12, 12, 9, 9), 12, 3),
        ((12, 12, 12, 12, 12, 12, 12), 14, 3),
    ],
)
def test_m32_degrees_of_success_at_3_7_and_12(
    faces: tuple[int, ...], net: int, degree: int
) -> None:
    result = run_check(faces, CheckKind.PERCEPTION)
    assert (result.net, result.degree) == (net, degree)


# --- M-33 Epic Checks -------------------------------------------------------------------------


def test_m33_three_unpaired_natural_twelves_succeed_automatically() -> None:
    result = run_check((12, 12, 12, 2, 2, 2, 2))
    assert result.net == 2
    assert result.automatic == CheckOutcome.SUCCESS
    assert result.outcome == CheckOutcome.SUCCESS


def test_m33_three_unpaired_natural_ones_fail_automatically() -> None:
    result = run_check((1, 1, 1, 9, 9, 9, 9))
    assert result.net == 1
    assert result.automatic == CheckOutcome.FAILURE
    assert result.outcome == CheckOutcome.FAILURE


def test_m33_automatic_failure_holds_against_the_rollers_adjustments() -> None:
    # The roller lifts every 8 to a 9 but the natural 1s are locked (M-9) and the natural
    # roll decides the Epic Check.
    result = run_check((1, 1, 1, 8, 8, 8, 8), factor=10, opposing=0)
    assert result.final[:3] == (1, 1, 1)
    assert result.outcome == CheckOutcome.FAILURE


def test_m33_paired_twelves_do_not_count() -> None:
    result = run_check((12, 12, 12, 1, 2, 2, 5))
    assert result.epic.unpaired_twelves == 2
    assert result.automatic is None
    assert result.outcome == CheckOutcome.PARTIAL  # 3 + 2 extras − 1 − 2 = 2


def test_m33_dice_adjusted_to_twelve_make_no_epic_check() -> None:
    result = run_check((11, 11, 11, 2, 2, 2, 2), factor=10, opposing=0)
    assert result.final[:3] == (12, 12, 12)
    assert result.automatic is None


def test_m33_epic_check_through_explicit_mode_keeps_the_lock() -> None:
    setup = check(factor=10, mode=AdjustMode.EXPLICIT, steps=(Step(0, -1, Side.OPPONENT),))
    with refused("locked by an Epic roll"):  # the public face first, then the count (W-52)
        check_with_dice(setup, (12, 12, 12, 5, 5, 5, 5))
    locked = check(factor=0, opposing=3, mode=AdjustMode.EXPLICIT, steps=(Step(0, -1),))
    with refused("M-9"):
        check_with_dice(locked, (12, 12, 12, 5, 5, 5, 5))

"""M-16 Interposing: Defensive Stance, Melee Range of both (or the Defender for Ranged)."""

from __future__ import annotations

import pytest

from tableside.dice import ScriptedRng
from tableside.errors import RulesError
from tableside.majesty.character import Attributes, Character
from tableside.majesty.checks import CheckOutcome, roll_check
from tableside.majesty.interpose import interpose_check, may_interpose, require_interpose

STRIKER = (0.0, 0.0, 0.0)
DEFENDER = (3.0, 0.0, 0.0)


def test_m16_in_stance_within_melee_range_of_both_may_interpose() -> None:
    assert may_interpose((1.5, 1.0, 0.0), True, STRIKER, DEFENDER, ranged=False)


def test_m16_needs_defensive_stance() -> None:
    assert not may_interpose((1.5, 1.0, 0.0), False, STRIKER, DEFENDER, ranged=False)
    with pytest.raises(RulesError, match="Defensive Stance"):
        require_interpose((1.5, 1.0, 0.0), False, STRIKER, DEFENDER, ranged=False)


def test_m16_melee_needs_melee_range_of_the_striker_too() -> None:
    far_from_striker = (5.5, 0.0, 0.0)  # 2.5" from the Defender, 5.5" from the Striker
    assert not may_interpose(far_from_striker, True, STRIKER, DEFENDER, ranged=False)
    with pytest.raises(RulesError, match="both the Striker and the Defender"):
        require_interpose(far_from_striker, True, STRIKER, DEFENDER, ranged=False)


def test_m16_ranged_needs_only_melee_range_of_the_defender() -> None:
    archer, target = (0.0, 0.0, 0.0), (10.0, 0.0, 0.0)
    assert may_interpose((9.0, 0.0, 2.0), True, archer, target, ranged=True)
    assert not may_interpose((6.0, 0.0, 0.0), True, archer, target, ranged=True)


def test_m16_interposer_makes_a_control_check_against_the_strikers_control() -> None:
    guard = Character("Guardian", Attributes(30, 30, 53, 30, 30, 30))
    striker = Character("Striker", Attributes(30, 30, 40, 30, 30, 30))
    setup = interpose_check(guard, striker)
    assert (setup.factor, setup.opposing) == (5, 4)  # M-30 Factor Values
    result = roll_check(setup, ScriptedRng([9, 10, 11, 5, 5, 6, 7]))
    assert result.outcome == CheckOutcome.SUCCESS

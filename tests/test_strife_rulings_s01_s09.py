"""One or more named tests per Realm of Strife ruling, S-1 … S-9 (and the rounding header)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from strife_builders import attack, custom_weapon, refused, sheet

from tableside.dice import ScriptedRng
from tableside.strife.attack import AttackSetup
from tableside.strife.casting import (
    CastDice,
    CastSetup,
    CombinedDice,
    CombinedResult,
    CombinedSetup,
    Power,
    SpiritPortion,
    cast_with_dice,
    combined_damage_setup,
    combined_with_dice,
    lowest_defence,
)
from tableside.strife.catalog import Element
from tableside.strife.checks import (
    Contestant,
    Winner,
    initiative_with_natural,
    order_initiative,
    roll_off_with_naturals,
    stat_test_with_natural,
)
from tableside.strife.conditions import VULNERABLE
from tableside.strife.hit import CastOutcome, CombinedOutcome, HitOutcome
from tableside.strife.movement import (
    Leg,
    MoveMode,
    check_path,
    disengage_action_limit,
    inch_cost,
    roll_with_the_blow_limit,
    sprint_plan,
)
from tableside.strife.records import Part
from tableside.strife.rounding import round_half_up
from tableside.strife.ruleset import CRIT_REQUIRES_HIT
from tableside.strife.size import CreatureSize
from tableside.strife.turns import (
    RoundTracker,
    TurnElement,
    ambush_round,
    check_turn,
    recover,
    with_bottom_of_queue,
)

STR = Part("STR", 12)


# --- rounding (docs/rules.md, SA-1) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2.5, 3), (2.4, 2), (0.5, 1), (1.5, 2), (-2.5, -3), (-0.4, 0), (Fraction(7, 2), 4), (3, 3)],
)
def test_rounding_header_half_up_never_bankers(value: float | Fraction, expected: int) -> None:
    assert round_half_up(value) == expected
    assert round(2.5) == 2  # what Python would have done


def test_rounding_header_refuses_nan() -> None:
    refused(round_half_up, float("nan"), match="finite")


# --- S-1 stat tests ---------------------------------------------------------------------------


def test_s01_stat_test_succeeds_above_20() -> None:
    assert not stat_test_with_natural(8, STR).success  # 20
    assert stat_test_with_natural(9, STR).success  # 21


def test_s01_advantage_and_disadvantage_are_flat_numbers() -> None:
    test = stat_test_with_natural(9, STR, (Part("advantage", 3), Part("disadvantage", -4)))
    assert (test.total, test.success) == (20, False)


def test_s01_natural_1_always_fails_natural_20_always_succeeds() -> None:
    assert not stat_test_with_natural(1, Part("STR", 40)).success
    assert stat_test_with_natural(20, Part("STR", -30)).success
    assert stat_test_with_natural(20, STR).automatic == "natural_20"


def test_s01_refuses_a_d20_face_of_21() -> None:
    refused(stat_test_with_natural, 21, STR, match="21")


# --- S-2 roll-offs ----------------------------------------------------------------------------


def _side(label: str, stat: int, size: CreatureSize = CreatureSize.MEDIUM) -> Contestant:
    return Contestant(label, Part("Initiative", stat), size=size)


def test_s02_higher_total_wins_the_roll_off() -> None:
    roll = roll_off_with_naturals(_side("A", 5), _side("B", 5), (10, 11))
    assert roll.winner == Winner.OPPOSING


def test_s02_ties_go_to_the_acting_side() -> None:
    roll = roll_off_with_naturals(_side("A", 5), _side("B", 4), (10, 11))
    assert (roll.tie, roll.winner) == (True, Winner.ACTING)


def test_s02_size_difference_enters_the_roll_off() -> None:
    roll = roll_off_with_naturals(_side("A", 0, CreatureSize.LARGE), _side("B", 0), (10, 11))
    assert roll.acting.total == 12
    assert roll.winner == Winner.ACTING


# --- S-3 Initiative ---------------------------------------------------------------------------


def test_s03_initiative_score_is_d20_plus_stat_plus_modifiers() -> None:
    entry = initiative_with_natural("Sera", "heroes", 8, 11, (Part("haste", 2),))
    assert entry.score == 21


def test_s03_ties_go_to_higher_initiative_stat_then_a_seeded_roll_off() -> None:
    entries = [
        initiative_with_natural("A", "x", 4, 16),  # 20
        initiative_with_natural("B", "x", 8, 12),  # 20, higher stat
        initiative_with_natural("C", "y", 4, 16),  # 20, tied with A
        initiative_with_natural("D", "y", 1, 3),
    ]
    order = order_initiative(entries, ScriptedRng([7, 7, 2, 9]))  # A/C tie, re-roll 2 vs 9
    assert order.names == ("B", "C", "A", "D")
    assert order.tie_breaks[0].rounds == ((("A", 7), ("C", 7)), (("A", 2), ("C", 9)))


def test_s03_refuses_two_models_with_one_name() -> None:
    one = initiative_with_natural("A", "x", 4, 16)
    refused(order_initiative, [one, one], ScriptedRng([]), match="own name")


# --- S-4 Turn order pieces --------------------------------------------------------------------


def test_s04_one_model_per_side_may_go_to_the_bottom_of_the_queue() -> None:
    sides = {"A": "x", "B": "x", "C": "y"}
    assert with_bottom_of_queue(["A", "B", "C"], sides, ["A", "C"]) == ("B", "A", "C")
    refused(with_bottom_of_queue, ["A", "B", "C"], sides, ["A", "B"], match="one model per side")


def test_s04_ambush_gives_only_the_ambushers_a_free_round() -> None:
    sides = {"A": "x", "B": "y", "C": "x"}
    assert ambush_round(["B", "A", "C"], sides, "x") == ("A", "C")


def test_s04_one_reaction_per_model_per_round() -> None:
    rounds = RoundTracker().spend_reaction("A")
    refused(rounds.spend_reaction, "A", match="already used its Reaction")
    assert rounds.next_round().can_react("A")


def test_s04_out_of_turn_instant_uses_next_turns_instant() -> None:
    rounds = RoundTracker().use_out_of_turn_instant("A")
    rounds, has_instant = rounds.next_round().start_turn("A")
    assert not has_instant
    assert rounds.start_turn("A")[1]


# --- S-5 a Turn -------------------------------------------------------------------------------


def test_s05_a_turn_is_one_move_instant_action_with_the_action_last() -> None:
    check_turn([TurnElement.INSTANT, TurnElement.MOVE, TurnElement.ACTION])
    refused(check_turn, [TurnElement.ACTION, TurnElement.MOVE], match="ends the Turn")
    refused(check_turn, [TurnElement.MOVE, TurnElement.MOVE], match="one move")
    refused(check_turn, [TurnElement.WHOLE_TURN, TurnElement.MOVE], match="Whole Turn")


def test_s05_sprint_doubles_natural_movement_and_repeats_need_stamina() -> None:
    assert (sprint_plan(5).distance, sprint_plan(5).stamina_test_needed) == (10, False)
    assert sprint_plan(5, consecutive=2).stamina_test_needed


def test_s05_recover_regains_one_hp_up_to_max() -> None:
    assert (recover(3, 10), recover(10, 10)) == (4, 10)


# --- S-6 movement -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("leg", "cost"),
    [
        (Leg(1), 1),
        (Leg(1, difficult=True), 2),
        (Leg(1, MoveMode.CRAWL), 2),
        (Leg(1, MoveMode.CRAWL, difficult=True), 3),
        (Leg(1, MoveMode.CLIMB), 2),
        (Leg(1, MoveMode.CLIMB, strength_test_passed=True), 1),
        (Leg(1, MoveMode.SWIM), 2),
        (Leg(1, MoveMode.SWIM, difficult=True), 3),
        (Leg(1, MoveMode.SWIM, with_current=True), 1),
    ],
)
def test_s06_cost_per_inch(leg: Leg, cost: int) -> None:
    assert inch_cost(leg) == cost


def test_s06_a_path_must_fit_movement() -> None:
    assert check_path(5, [Leg(2), Leg(1, MoveMode.CLIMB)]) == 4
    refused(check_path, 5, [Leg(3, MoveMode.SWIM)], match="costs 6")


def test_s06_disengage_action_half_movement_only_before_moving() -> None:
    assert disengage_action_limit(5, already_moved=False) == Fraction(5, 2)
    refused(disengage_action_limit, 5, already_moved=True, match="before moving")
    assert roll_with_the_blow_limit(6) == 3


# --- S-7 physical attack ----------------------------------------------------------------------


def test_s07_critical_miss_comes_first_and_makes_the_attacker_vulnerable() -> None:
    result = attack(5, hit_modifiers=(Part("huge bonus", 200),))
    assert result.outcome == HitOutcome.CRITICAL_MISS
    assert [(i.target, i.condition.name) for i in result.inflicted] == [("attacker", VULNERABLE)]


def test_s07_modified_roll_at_or_below_zero_is_an_automatic_miss_even_vs_ac_0() -> None:
    result = attack(40, defender=sheet("Defender", ac=0), hit_modifiers=(Part("penalty", -40),))
    assert result.outcome == HitOutcome.AUTO_MISS


def test_s07_critical_hit_ignores_dodge_and_ac_by_default() -> None:
    defender = sheet("Defender", ac=100, dodge=99)
    result = attack(99, attacker=sheet("A", crit=5), defender=defender, damage=(3,))
    assert result.outcome == HitOutcome.CRITICAL_HIT
    assert result.total_damage == 6


def test_s07_option_crit_requires_hit() -> None:
    defender = sheet("Defender", ac=100)
    result = attack(99, attacker=sheet("A", crit=5), defender=defender, ruleset=CRIT_REQUIRES_HIT)
    assert result.outcome == HitOutcome.ARMOR_SAVE


def test_s07_natural_at_or_below_dodge_is_a_dodge_even_when_beating_ac() -> None:
    defender = sheet("Defender", ac=0, dodge=30)
    assert attack(30, defender=defender).outcome == HitOutcome.DODGE
    assert attack(31, defender=defender, damage=(1,)).outcome == HitOutcome.HIT


def test_s07_modified_at_or_below_ac_is_an_armor_save() -> None:
    assert attack(20).outcome == HitOutcome.ARMOR_SAVE
    assert attack(21, damage=(2,)).outcome == HitOutcome.HIT


def test_s07_precision_attack_rolls_twice_and_keeps_the_lower() -> None:
    result = attack((90, 15), precision=True)
    assert (result.natural, result.outcome) == (15, HitOutcome.ARMOR_SAVE)


def test_s07_a_miss_deals_no_damage_and_rolls_no_effects() -> None:
    result = attack(10)
    assert (result.damage, result.effect_rolls) == (None, ())


# --- S-8 casting ------------------------------------------------------------------------------

BOLT = Power("Arcane Bolt", Element.ARCANE, damage="1d6")


def _cast(
    natural: int, damage: tuple[int, ...] = (), power: Power = BOLT, **options: Any
) -> CastOutcome:
    target = sheet("Target", dodge=20, resistances={Element.ARCANE: 30})
    setup = CastSetup(sheet("Mage", cast_crit=10), target, power, **options)
    return cast_with_dice(setup, CastDice(natural, damage=damage)).outcome


def test_s08_miscast_on_naturals_in_the_miscast_range() -> None:
    assert _cast(5) == CastOutcome.MISCAST


def test_s08_a_target_that_does_not_resist_is_hit() -> None:
    assert _cast(6, (2,), resists=False, modifiers=(Part("penalty", -50),)) == CastOutcome.SUCCESS


def test_s08_resisted_at_or_below_resistance_else_success() -> None:
    assert _cast(30) == CastOutcome.RESISTED
    assert _cast(31, (2,)) == CastOutcome.SUCCESS


def test_s08_auto_miss_and_critical_cast() -> None:
    assert _cast(50, modifiers=(Part("penalty", -50),)) == CastOutcome.AUTO_MISS
    assert _cast(91, (2,)) == CastOutcome.CRITICAL_CAST


def test_s08_dodge_when_allowed() -> None:
    missile = Power("Missile", Element.ARCANE, damage="1d6", dodge_allowed=True)
    assert _cast(20, power=missile) == CastOutcome.DODGED
    assert _cast(45, power=missile) == CastOutcome.RESISTED  # ≤ 30 + 20


# --- S-9 combined attacks ---------------------------------------------------------------------

SHOCK = SpiritPortion(Power("Shock", Element.LIGHTNING, damage="1d4"))


def _combined(natural: int, defender_ac: int = 20, dodge: int = 0, **dice: Any) -> CombinedResult:
    target = sheet("Target", ac=defender_ac, dodge=dodge, resistances={Element.LIGHTNING: 40})
    setup = CombinedSetup(AttackSetup(sheet("Knight"), target, custom_weapon()), SHOCK)
    return combined_with_dice(setup, CombinedDice((natural,), **dice))


def test_s09_one_natural_armor_save_voids_only_the_physical_portion() -> None:
    result = _combined(50, defender_ac=60, spirit_damage=(3,))
    assert result.verdict is not None
    assert result.verdict.overall == CombinedOutcome.SPIRIT_ONLY
    assert (result.physical_damage, result.spirit_damage.total) == (None, 3)  # type: ignore[union-attr]


def test_s09_a_dodge_voids_the_whole_attack() -> None:
    result = _combined(50, dodge=50)
    assert result.verdict is not None and result.verdict.overall == CombinedOutcome.MISS


def test_s09_spirit_resisted_leaves_a_plain_physical_hit() -> None:
    result = _combined(35, damage=(5,))
    assert result.verdict is not None
    assert result.verdict.overall == CombinedOutcome.PHYSICAL_ONLY


def test_s09_critical_miss_voids_all_and_is_a_miscast() -> None:
    result = _combined(3)
    assert result.verdict is not None and result.verdict.spirit == CastOutcome.MISCAST


def test_s09_combined_damage_without_portions_uses_the_lowest_defence() -> None:
    target = sheet("Target", ac=40, resistances={Element.FIRE: 15, Element.FROST: 25})
    assert lowest_defence(target, 40, (Element.FIRE, Element.FROST)) == Part("fire Resistance", 15)
    setup = combined_damage_setup(AttackSetup(sheet("A"), target, custom_weapon()), (Element.FIRE,))
    assert setup.ac == 15

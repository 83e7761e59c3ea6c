"""Rulings M-1 … M-13 (docs/rules.md): characters and every roll.

Every test names its ruling id; dice are scripted so every number is exact.
"""

from __future__ import annotations

import pytest
from builders import (
    AdjustMode,
    Step,
    assert_current,
    assert_outcome,
    assert_passes,
    character,
    defender_adjusts,
    moved,
    refused,
    roll_scripted,
    run_check,
    strike,
    strike_setup,
    striker_adjusts,
    wear_line,
)

from tableside.dice import DiceExhaustedError, Side
from tableside.majesty.character import Attribute, Status, WearKind, speed_from_swiftness
from tableside.majesty.checks import CheckKind
from tableside.majesty.condition import gain_exertion, is_weary, rest
from tableside.majesty.rolls import (
    EXPOSED,
    PLAIN,
    SURPRISED,
    Category,
    EpicState,
    Tally,
    adjustments_from_advantage,
    dice_to_roll,
    face_bounds,
    natural_roll_from,
    net_boon,
)
from tableside.majesty.strike import DefenderState, StrikeOptions

NEUTRAL = (5, 5, 5, 5, 5, 5, 5)

# --- M-1 Basic Attributes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "attribute"),
    [
        (WearKind.E, Attribute.ENDURANCE),
        (WearKind.R, Attribute.RESOLVE),
        (WearKind.P, Attribute.PASSION),
    ],
)
def test_m01_wear_lowers_the_current_value_of_its_kind(
    kind: WearKind, attribute: Attribute
) -> None:
    herald = character().take_wear(kind, 30)
    assert herald.current(attribute) == 70
    assert herald.natural.get(attribute) == 100
    others = {Attribute.ENDURANCE, Attribute.RESOLVE, Attribute.PASSION} - {attribute}
    assert all(herald.current(other) == 100 for other in others)


def test_m01_wear_never_touches_might_swiftness_control() -> None:
    herald = character(might=50, swiftness=40, control=30, wear_e=60, wear_r=60, wear_p=60)
    assert_current(herald, might=50, swiftness=40, control=30)


@pytest.mark.parametrize("kind", list(WearKind))
def test_m01_no_current_value_goes_below_minus_40(kind: WearKind) -> None:
    herald = character().take_wear(kind, 500)
    assert herald.current(kind.attribute) == -40


@pytest.mark.parametrize("kind", list(WearKind))
def test_m01_zero_or_less_in_any_of_e_r_p_is_defeated(kind: WearKind) -> None:
    assert character().take_wear(kind, 99).status == Status.NORMAL
    assert character().take_wear(kind, 100).status == Status.DEFEATED
    assert character().take_wear(kind, 130).status == Status.DEFEATED


def test_m01_strike_wearing_endurance_to_zero_defeats_the_defender() -> None:
    # 3 Hits × Force 4 = 12 WearE against a current Endurance of 12 (M-26, M-1).
    defender = character("Warrior", endurance=12)
    result = strike((9, 9, 9, 5, 5, 5, 5), defender=defender)
    assert wear_line(result, WearKind.E).amount == 12
    assert_current(result.defender_after, endurance=0)
    assert result.defender_after.status == Status.DEFEATED
    assert result.defender_status_change == "defeated"


def test_m01_negative_natural_attribute_is_refused() -> None:
    with refused("cannot be negative"):
        character(might=-1)


# --- M-2 War Attributes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("might", "force"), [(0, 3), (13, 3), (14, 4), (27, 4), (28, 5), (140, 13)]
)
def test_m02_force_is_3_plus_might_div_14(might: int, force: int) -> None:
    assert character(might=might).war.force == force


@pytest.mark.parametrize(
    ("might", "control", "guard"),
    [(0, 0, 0), (14, 14, 1), (19, 1, 0), (19, 2, 1), (50, 33, 3), (100, 39, 5)],
)
def test_m02_guard_is_two_might_plus_control_div_40(might: int, control: int, guard: int) -> None:
    assert character(might=might, control=control).war.guard == guard


@pytest.mark.parametrize(("control", "precision"), [(13, 0), (14, 1), (27, 1), (28, 2), (70, 5)])
def test_m02_precision_is_control_div_14(control: int, precision: int) -> None:
    assert character(control=control).war.precision == precision


def test_m02_stamina_and_spp() -> None:
    herald = character(endurance=57, passion=59)
    assert herald.war.stamina == 3 + 5
    assert herald.war.spp == 2


def test_m02_war_attributes_come_from_current_values() -> None:
    herald = character(endurance=100, passion=100, wear_e=31, wear_p=41)
    assert herald.war.stamina == 3 + 69 // 10
    assert herald.war.spp == 59 // 20


@pytest.mark.parametrize(
    ("swiftness", "speed"),
    [
        (0, 7), (6, 7), (7, 8), (13, 8), (14, 9), (21, 9), (22, 10), (29, 10), (30, 11),
        (39, 12), (48, 13), (58, 14), (68, 15), (79, 16), (90, 17), (102, 18), (114, 19),
        (127, 20), (140, 21), (154, 22), (168, 23), (183, 24), (198, 25), (214, 26),
        (230, 27), (247, 28), (263, 28), (264, 29), (281, 29), (282, 30), (299, 30),
        (300, 31), (318, 32),
    ],
)  # fmt: skip
def test_m02_speed_thresholds(swiftness: int, speed: int) -> None:
    assert speed_from_swiftness(swiftness) == speed
    assert character(swiftness=swiftness).war.speed == speed


def test_m02_sheet_overrides_replace_derived_values() -> None:
    monster = character(
        might=200, control=200, force=9, guard=0, precision=7, stamina=2, spp=11, speed=30
    )
    war = monster.war
    assert (war.force, war.guard, war.precision, war.stamina, war.spp, war.speed) == (
        9, 0, 7, 2, 11, 30,
    )  # fmt: skip


def test_m02_unset_overrides_still_derive() -> None:
    war = character(might=28, force=9).war
    assert war.force == 9
    assert war.guard == (2 * 28 + 14) // 40


def test_m02_overridden_force_drives_strike_wear() -> None:
    result = strike((9, 9, 5, 5, 5, 5, 5), striker=character(force=11))
    assert result.force.value == 11
    assert wear_line(result, WearKind.E).amount == 22


# --- M-3 Status -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wear_e", "wear_r", "wear_p", "status"),
    [
        (67, 50, 0, Status.WEAKENED),  # E 33 ≤ 1/3, R 50 ≤ 1/2
        (66, 50, 0, Status.NORMAL),  # E 34 > 1/3
        (67, 49, 0, Status.NORMAL),  # R 51 > 1/2
        (67, 0, 50, Status.WEAKENED),  # P is "another" too
        (0, 70, 60, Status.WEAKENED),  # R 30 ≤ 1/3, P 40 ≤ 1/2
        (80, 0, 0, Status.NORMAL),  # one attribute alone is not enough
        (50, 50, 50, Status.NORMAL),  # all at half, none at a third
    ],
)
def test_m03_weakened_thresholds(wear_e: int, wear_r: int, wear_p: int, status: Status) -> None:
    herald = character(wear_e=wear_e, wear_r=wear_r, wear_p=wear_p)
    assert herald.status == status


def test_m03_thresholds_are_exact_fractions_of_odd_naturals() -> None:
    # natural 61: 1/3 is 20.33 and 1/2 is 30.5
    assert character(endurance=61, resolve=61, wear_e=41, wear_r=31).status == Status.WEAKENED
    assert character(endurance=61, resolve=61, wear_e=40, wear_r=31).status == Status.NORMAL
    assert character(endurance=61, resolve=61, wear_e=41, wear_r=30).status == Status.NORMAL


def test_m03_timed_lowering_is_a_weakened_source() -> None:
    assert character(status_lowered=1).status == Status.WEAKENED
    assert character().lower_status().status == Status.WEAKENED


def test_m03_two_weakened_sources_defeat() -> None:
    thresholds = character(wear_e=67, wear_r=50)
    assert thresholds.status == Status.WEAKENED
    assert thresholds.lower_status().status == Status.DEFEATED
    assert character(status_lowered=2).status == Status.DEFEATED


def test_m03_weakened_references_at_most_half_natural() -> None:
    herald = character(
        might=56, swiftness=30, control=28, endurance=100, resolve=100, passion=100,
        wear_e=67, wear_r=50,
    )  # fmt: skip
    assert herald.status == Status.WEAKENED
    assert herald.referenced(Attribute.MIGHT) == 28
    assert herald.referenced(Attribute.SWIFTNESS) == 15
    assert herald.referenced(Attribute.CONTROL) == 14
    assert herald.referenced(Attribute.ENDURANCE) == 33  # current is already below half
    assert herald.referenced(Attribute.RESOLVE) == 50
    assert herald.referenced(Attribute.PASSION) == 50
    war = herald.war
    assert (war.force, war.guard, war.precision, war.stamina, war.spp, war.speed) == (
        3 + 28 // 14, (2 * 28 + 14) // 40, 14 // 14, 3 + 33 // 10, 50 // 20, 9,
    )  # fmt: skip


def test_m03_weakened_striker_strikes_with_halved_force() -> None:
    striker = character(might=56, status_lowered=1)
    assert character(might=56).war.force == 7
    result = strike((9, 9, 5, 5, 5, 5, 5), striker=striker, mode=AdjustMode.NONE)
    assert result.force.value == 5
    assert wear_line(result, WearKind.E).amount == 10


# --- M-4 Condition (Exertion) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "maneuvers", "ap", "exertion"),
    [
        ({}, (), 3, 3),
        ({"striker_in_stance": True}, (), 4, 3),
        ({"two_ap": True}, (), 2, 2),
        ({"two_ap": True, "striker_in_stance": True}, (), 3, 2),
        ({}, ("Lunge",), 4, 4),
        ({"striker_in_stance": True}, ("Lunge",), 5, 4),
    ],
)
def test_m04_strike_exertion_is_the_normal_ap_cost_without_stance_surcharge(
    options: dict[str, bool], maneuvers: tuple[str, ...], ap: int, exertion: int
) -> None:
    result = strike((5, 5, 5, 5, 5, 5, 5), maneuvers=maneuvers, **options)
    assert result.cost.ap == ap
    assert result.cost.exertion == exertion


def test_m04_strike_exertion_passes_the_free_first_3_of_the_window() -> None:
    herald = character()
    first = strike(NEUTRAL, striker=herald, striker_in_stance=True)
    gained = gain_exertion(herald, first.cost.exertion, 0)
    assert (gained.added, gained.ignored, gained.window_total) == (0, 3, 3)
    second = gain_exertion(gained.character, strike(NEUTRAL).cost.exertion, 3)
    assert (second.added, second.ignored) == (3, 0)
    assert second.character.exertion == 3


def test_m04_rest_removes_1_exertion_per_ap() -> None:
    assert rest(character(exertion=5), 2).exertion == 3
    assert rest(character(exertion=1), 3).exertion == 0


def test_m04_exertion_above_current_stamina_is_weary() -> None:
    herald = character(endurance=50)  # Stamina 3 + 5 = 8
    assert not is_weary(character(endurance=50, exertion=8))
    assert is_weary(character(endurance=50, exertion=9))
    assert herald.take_wear(WearKind.E, 20).war.stamina == 6
    assert is_weary(character(endurance=50, wear_e=20, exertion=7))


# --- M-5 Tier and Magnitude -------------------------------------------------------------------


def test_m05_tier_and_magnitude_default_to_1() -> None:
    herald = character()
    assert (herald.tier, herald.magnitude) == (1, 1)


@pytest.mark.parametrize("field", ["tier", "magnitude"])
def test_m05_tier_and_magnitude_below_1_are_refused(field: str) -> None:
    with refused("at least 1"):
        character(**{field: 0})  # type: ignore[arg-type]


@pytest.mark.parametrize(("tier", "flat"), [(1, 7), (2, 14), (3, 21)])
def test_m05_axe_twelve_effect_is_7_wear_times_target_tier(tier: int, flat: int) -> None:
    # 9 and an unpaired 12: 3 Hits × Force 4 = 12, + 7 × Tier (M-21, M-26, M-28).
    result = strike((12, 9, 5, 5, 5, 5, 5), weapon="Axe", defender=character(tier=tier))
    line = wear_line(result, WearKind.E)
    assert line.flat == flat
    assert line.amount == 12 + flat
    assert_current(result.defender_after, endurance=100 - 12 - flat)


@pytest.mark.parametrize(("tier", "exertion"), [(1, 2), (3, 6)])
def test_m05_hammer_passion_exertion_times_target_tier(tier: int, exertion: int) -> None:
    # Passion 150 − Resolve 100 = 50 → 2 triggers (M-25), each +1 Exertion × Tier.
    result = strike(
        (9, 5, 5, 5, 5, 5, 5),
        weapon="Hammer",
        striker=character(passion=150),
        defender=character(tier=tier),
    )
    assert result.effects.passion_applied == 2
    assert result.effects.defender_exertion == exertion


# --- M-6 A roll is 7d12 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "category"),
    [
        (1, Category.ONE), (2, Category.NEGATIVE), (3, Category.NEGATIVE),
        (4, Category.NEUTRAL), (8, Category.NEUTRAL), (9, Category.POSITIVE),
        (11, Category.POSITIVE), (12, Category.TWELVE),
    ],
)  # fmt: skip
def test_m06_faces_read_positive_neutral_negative(face: int, category: Category) -> None:
    assert PLAIN.category(face) == category


def test_m06_strike_reads_hits_misses_stops() -> None:
    result = strike((9, 10, 11, 4, 8, 2, 3))
    assert_outcome(result, hits=3, stops=2, uncanceled_hits=1, uncanceled_stops=0)


def test_m06_check_reads_passes_neutrals_fails() -> None:
    result = run_check((9, 10, 11, 4, 8, 2, 3))
    assert (result.tally.positives, result.tally.negatives, result.net) == (3, 2, 1)


def test_m06_a_roll_is_seven_d12() -> None:
    assert dice_to_roll(0) == 7
    with refused("needs 7 dice"):
        natural_roll_from((9, 9, 9, 9, 9, 9), 0)
    with refused("needs 7 dice"):
        natural_roll_from((9, 9, 9, 9, 9, 9, 9, 9), 0)
    with refused("cannot show 13"):
        natural_roll_from((13, 9, 9, 9, 9, 9, 9), 0)
    with refused("cannot show 0"):
        natural_roll_from((0, 9, 9, 9, 9, 9, 9), 0)


def test_m06_strike_rolls_exactly_seven_scripted_dice() -> None:
    result = roll_scripted(strike_setup(), (9, 9, 9, 5, 5, 5, 2))
    assert result.final == (9, 9, 9, 5, 5, 5, 2)
    with pytest.raises(DiceExhaustedError):
        roll_scripted(strike_setup(), (9, 9, 9, 5, 5, 5))
    with refused("left over"):
        roll_scripted(strike_setup(), (9, 9, 9, 5, 5, 5, 2, 2))


# --- M-7 Boon and Bane ------------------------------------------------------------------------


def test_m07_boon_and_bane_cancel_one_for_one() -> None:
    assert net_boon(2, 1) == 1
    assert net_boon(1, 3) == -2
    assert net_boon(2, 2) == 0
    assert [dice_to_roll(n) for n in (-2, -1, 0, 1, 3)] == [9, 8, 7, 8, 10]
    with refused("cannot be negative"):
        net_boon(-1, 0)


def test_m07_boon_discards_the_lowest_dice_that_are_not_ones() -> None:
    roll = natural_roll_from((1, 4, 9, 2, 12, 6, 7, 1, 3), 2)
    assert roll.discarded_faces == (2, 3)
    assert roll.natural == (1, 4, 9, 12, 6, 7, 1)


def test_m07_bane_discards_the_highest_dice_that_are_not_twelves() -> None:
    roll = natural_roll_from((12, 4, 9, 11, 12, 6, 7, 1, 3), -2)
    assert roll.discarded_faces == (9, 11)
    assert roll.natural == (12, 4, 12, 6, 7, 1, 3)


def test_m07_fewer_eligible_dice_keep_more_than_seven() -> None:
    boon = natural_roll_from((1, 1, 1, 1, 1, 1, 1, 1, 12), 2)
    assert boon.discarded_faces == (12,)
    assert boon.natural == (1,) * 8
    bane = natural_roll_from((12, 12, 12, 12, 12, 12, 12, 12, 1), -2)
    assert bane.discarded_faces == (1,)
    assert bane.natural == (12,) * 8


def test_m07_discarded_dice_never_existed_in_a_strike() -> None:
    # Boon:1 discards the 2: no Stop from it; Bane:1 discards a 10: one Hit fewer.
    boon = roll_scripted(strike_setup(boon=2, bane=1), (9, 9, 9, 5, 5, 5, 5, 2))
    assert boon.roll.discarded_faces == (2,)
    assert_outcome(boon, hits=3, stops=0, uncanceled_hits=3)
    bane = roll_scripted(strike_setup(bane=1), (10, 9, 9, 5, 5, 5, 5, 2))
    assert bane.roll.discarded_faces == (10,)
    assert_outcome(bane, hits=2, stops=1, uncanceled_hits=1)


def test_m07_bane_never_discards_a_twelve_so_it_stays_epic() -> None:
    bane = strike((12, 12, 12, 11, 5, 5, 5, 5), bane=1)
    assert bane.roll.discarded_faces == (11,)
    assert bane.epic.unpaired_twelves == 3
    assert bane.defender_status_change == "lowered_1_cycle"


def test_m07_boon_never_discards_a_one() -> None:
    boon = strike((1, 1, 1, 9, 5, 5, 5, 5), boon=1)
    assert boon.roll.discarded_faces == (5,)
    assert boon.epic.unpaired_ones == 3
    assert boon.striker_status_change == "lowered_1_cycle"


# --- M-8 Epic parts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "net", "unpaired_twelves", "unpaired_ones"),
    [
        ((12, 5, 5, 5, 5, 5, 5), 2, 1, 0),
        ((12, 1, 5, 5, 5, 5, 5), 0, 0, 0),  # the pair keeps its ordinary + and −
        ((12, 12, 1, 5, 5, 5, 5), 2, 1, 0),  # 2 positives + 1 extra − 1
        ((12, 1, 1, 5, 5, 5, 5), -1, 0, 1),
        ((12, 12, 12, 1, 2, 9, 5), 4, 2, 0),  # 4 + 2 extras − 2
        ((1, 1, 2, 3, 5, 5, 5), -4, 0, 2),
    ],
)
def test_m08_twelves_and_ones_pair_one_for_one(
    faces: tuple[int, ...], net: int, unpaired_twelves: int, unpaired_ones: int
) -> None:
    tally = Tally.of(faces, PLAIN)
    assert (tally.net, tally.unpaired_twelves, tally.unpaired_ones) == (
        net, unpaired_twelves, unpaired_ones,
    )  # fmt: skip


def test_m08_paired_twelve_keeps_its_hit_in_a_strike() -> None:
    result = strike((12, 1, 9, 5, 5, 5, 5), weapon="Spear")
    assert_outcome(result, hits=2, stops=1, uncanceled_hits=1, twelve_effects=0)
    assert result.striker_falter == 0
    assert result.defender_falter == 0  # the paired 12 fires no Falter:1


# --- M-9 Epic rolls ---------------------------------------------------------------------------


def test_m09_epic_positive_locks_natural_twelves_against_the_defender() -> None:
    # The Defender has 2 Adjustments but may not lower the natural 12s of an Epic Strike.
    result = strike((12, 12, 9, 9, 5, 5, 5), **defender_adjusts(2))
    assert result.epic_kind == "strike"
    assert result.final == (12, 12, 8, 8, 5, 5, 5)
    with refused("locked by an Epic roll"):
        strike(
            (12, 12, 9, 9, 5, 5, 5),
            **defender_adjusts(2),
            mode=AdjustMode.EXPLICIT,
            steps=(Step(0, -1),),
        )


def test_m09_epic_negative_locks_natural_ones_against_the_striker() -> None:
    result = strike((1, 1, 8, 5, 5, 5, 5), **striker_adjusts(2))
    assert result.epic_kind == "defense"
    assert result.final[:2] == (1, 1)
    with refused("locked by an Epic roll"):
        strike(
            (1, 1, 8, 5, 5, 5, 5),
            **striker_adjusts(2),
            mode=AdjustMode.EXPLICIT,
            steps=(Step(1, 1),),
        )


def test_m09_single_twelve_is_not_locked() -> None:
    result = strike(
        (12, 5, 5, 5, 5, 5, 5),
        **defender_adjusts(1),
        mode=AdjustMode.EXPLICIT,
        steps=(Step(0, -1),),
    )
    assert result.epic_kind is None
    assert result.final[0] == 11


def test_m09_epic_is_judged_on_unpaired_natural_twelves() -> None:
    assert EpicState.of((12, 12, 1, 5, 5, 5, 5), PLAIN).positive is False
    assert EpicState.of((12, 12, 12, 1, 5, 5, 5), PLAIN).positive is True
    assert EpicState.of((1, 1, 12, 5, 5, 5, 5), PLAIN).negative is False
    assert EpicState.of((1, 1, 1, 12, 5, 5, 5), PLAIN).negative is True


def test_m09_dice_adjusted_to_twelve_never_make_the_roll_epic() -> None:
    # The Striker lifts three 11s to 12: they carry their extras and 12 Effects (M-8, M-21)
    # but the natural roll has no 12, so no Epic Strike and no Status lowering (M-24).
    result = strike((11, 11, 11, 5, 5, 5, 5), weapon="Spear", **striker_adjusts(3))
    assert result.final == (12, 12, 12, 5, 5, 5, 5)
    assert_outcome(result, hits=6, twelve_effects=3)
    assert result.epic_kind is None
    assert result.defender_status_change is None
    assert result.defender_after.status_lowered == 0


def test_m09_epic_consequences_use_natural_counts_not_final() -> None:
    # Natural 12,12,12,1 has two unpaired 12s; the Striker lifts the 1 to a 2, leaving three
    # unpaired 12s on the final dice, but the Defender is not lowered (natural U12 = 2).
    result = strike((12, 12, 12, 1, 5, 5, 5), **striker_adjusts(1))
    assert result.final == (12, 12, 12, 2, 5, 5, 5)
    assert result.epic.unpaired_twelves == 2
    assert result.outcome.twelve_effects == 3
    assert result.defender_status_change is None


def test_m09_face_bounds_follow_the_locks() -> None:
    assert face_bounds((12, 12, 5, 5, 5, 5, 5), PLAIN)[:3] == ((12, 12), (12, 12), (1, 12))
    assert face_bounds((1, 1, 5, 5, 5, 5, 5), PLAIN)[:3] == ((1, 1), (1, 1), (1, 12))
    assert face_bounds((12, 1, 5, 5, 5, 5, 5), PLAIN)[:2] == ((1, 12), (1, 12))


# --- M-10 Advantage → Adjustments -------------------------------------------------------------


@pytest.mark.parametrize(
    ("advantage", "adjustments"),
    [
        (-5, 0), (0, 0), (1, 1), (2, 1), (3, 2), (5, 2), (6, 3), (9, 3), (10, 4), (14, 4),
        (15, 5), (19, 5), (20, 6), (24, 6), (25, 7), (50, 12),
    ],
)  # fmt: skip
def test_m10_advantage_translates_into_adjustments(advantage: int, adjustments: int) -> None:
    assert adjustments_from_advantage(advantage) == adjustments


def test_m10_the_higher_side_makes_the_adjustments() -> None:
    striker = strike((5,) * 7, striker=character(precision=7))
    assert_passes(striker.adjusting.passes, [(Side.STRIKER, 3)])
    defender = strike((5,) * 7, defender=character(guard=7))
    assert_passes(defender.adjusting.passes, [(Side.DEFENDER, 3)])
    even = strike((5,) * 7)
    assert_passes(even.adjusting.passes, [])


# --- M-11 Raw Adjustment sources --------------------------------------------------------------


def test_m11_raw_sources_are_added_after_translation() -> None:
    # Advantage 1 → 1 Adjustment, + 2 raw = 3 (adding 2 to the advantage first would give 2).
    result = strike((5,) * 7, striker=character(precision=2), striker_adjustments=2)
    assert result.adjusting.translated == 1
    assert_passes(result.adjusting.passes, [(Side.STRIKER, 3)])


def test_m11_opposing_totals_cancel_and_only_the_surplus_adjusts() -> None:
    result = strike(
        (9, 9, 5, 5, 5, 5, 5), striker=character(precision=4), defender_adjustments=3
    )  # Striker 2 translated vs Defender 3 raw → Defender 1
    assert_passes(result.adjusting.passes, [(Side.DEFENDER, 1)])
    assert moved(result.adjustments) == [(0, 9, 8, Side.DEFENDER)]


def test_m11_equal_totals_leave_nobody_adjusting() -> None:
    result = strike((8,) * 7, striker=character(precision=2), defender_adjustments=1)
    assert_passes(result.adjusting.passes, [])
    assert result.adjustments == ()


def test_m11_tokens_are_applied_after_and_not_cancelled() -> None:
    # Striker: 1 Adjustment (advantage 1) and 1 Inspiration; Defender: 2 Obstruction tokens.
    result = strike(
        (8, 8, 5, 5, 5, 5, 5),
        striker=character(precision=2),
        inspiration=1,
        obstruction=2,
    )
    assert_passes(
        result.adjusting.passes,
        [(Side.STRIKER, 1), (Side.STRIKER, 1), (Side.DEFENDER, 2)],
    )
    assert moved(result.adjustments) == [
        (0, 8, 9, Side.STRIKER),
        (1, 8, 9, Side.STRIKER),
        (0, 9, 8, Side.DEFENDER),
        (1, 9, 8, Side.DEFENDER),
    ]
    assert result.outcome.net == 0


def test_m11_tokens_in_a_check_are_not_cancelled() -> None:
    result = run_check((8, 5, 5, 5, 5, 5, 5), factor=1, opposing=2, inspiration=1)
    assert_passes(result.passes, [(Side.OPPONENT, 1), (Side.ROLLER, 1)])


# --- M-12 Adjusting ---------------------------------------------------------------------------


def test_m12_one_adjustment_moves_one_die_by_one() -> None:
    result = strike(
        (8, 5, 5, 5, 5, 5, 5),
        **striker_adjusts(1),
        mode=AdjustMode.EXPLICIT,
        steps=(Step(0, 1),),
    )
    assert result.final == (9, 5, 5, 5, 5, 5, 5)
    assert moved(result.adjustments) == [(0, 8, 9, Side.STRIKER)]


def test_m12_a_die_may_be_moved_several_times() -> None:
    result = strike(
        (5, 5, 5, 5, 5, 5, 5),
        **striker_adjusts(4),
        mode=AdjustMode.EXPLICIT,
        steps=(Step(3, 1),) * 4,
    )
    assert result.final == (5, 5, 5, 9, 5, 5, 5)
    assert len(result.adjustments) == 4


def test_m12_the_adjuster_may_use_fewer_than_it_has() -> None:
    explicit = strike(
        (8, 5, 5, 5, 5, 5, 5),
        **striker_adjusts(3),
        mode=AdjustMode.EXPLICIT,
        steps=(Step(0, 1),),
    )
    assert len(explicit.adjustments) == 1
    # best: only the 11 → 12 helps with 3 Adjustments (a 9 needs 3 to reach 12 for one
    # extra, no better than the single step).
    best = strike((9, 9, 9, 9, 9, 9, 11), **striker_adjusts(3))
    assert moved(best.adjustments) == [(6, 11, 12, Side.STRIKER)]


def test_m12_faces_stay_within_1_to_12_upwards() -> None:
    with refused("faces stay within 1–12"):
        strike(
            (12, 5, 5, 5, 5, 5, 5),
            **striker_adjusts(1),
            mode=AdjustMode.EXPLICIT,
            steps=(Step(0, 1),),
        )


def test_m12_faces_stay_within_1_to_12_downwards() -> None:
    with refused("faces stay within 1–12"):
        strike(
            (1, 5, 5, 5, 5, 5, 5),
            **defender_adjusts(1),
            mode=AdjustMode.EXPLICIT,
            steps=(Step(0, -1),),
        )


def test_m12_explicit_adjustments_over_the_allowance_are_refused() -> None:
    with refused("named 2 Adjustments but may make only 1"):
        strike(
            (8, 8, 5, 5, 5, 5, 5),
            **striker_adjusts(1),
            mode=AdjustMode.EXPLICIT,
            steps=(Step(0, 1), Step(1, 1)),
        )


def test_m12_explicit_adjustments_for_a_side_without_any_are_refused() -> None:
    with refused("may make only 0"):
        strike(
            (8, 5, 5, 5, 5, 5, 5),
            **striker_adjusts(1),
            mode=AdjustMode.EXPLICIT,
            steps=(Step(0, -1, Side.DEFENDER),),
        )
    with refused("nobody may adjust"):
        strike((8, 5, 5, 5, 5, 5, 5), mode=AdjustMode.EXPLICIT, steps=(Step(0, 1),))


def test_m12_an_adjustment_moves_by_exactly_one_on_an_existing_die() -> None:
    with refused("by 1 up or down"):
        strike((8,) * 7, **striker_adjusts(2), mode=AdjustMode.EXPLICIT, steps=(Step(0, 2),))
    with refused("no die 8"):
        strike((8,) * 7, **striker_adjusts(1), mode=AdjustMode.EXPLICIT, steps=(Step(7, 1),))


def test_m12_explicit_steps_respect_the_epic_lock_of_m09() -> None:
    with refused("M-9"):
        strike(
            (12, 12, 5, 5, 5, 5, 5),
            **defender_adjusts(1),
            mode=AdjustMode.EXPLICIT,
            steps=(Step(1, -1),),
        )


def test_m12_explicit_steps_fill_the_main_pass_then_the_tokens() -> None:
    result = strike(
        (8, 8, 5, 5, 5, 5, 5),
        **striker_adjusts(1),
        inspiration=1,
        mode=AdjustMode.EXPLICIT,
        steps=(Step(0, 1), Step(1, 1)),
    )
    assert result.final[:2] == (9, 9)
    assert [a.why for a in result.adjustments][1] == "Inspiration token (M-11)"


# --- M-13 Adjustment choice -------------------------------------------------------------------


def test_m13_best_is_the_default_mode() -> None:
    assert StrikeOptions().mode == AdjustMode.BEST


def test_m13_none_mode_makes_no_adjustments() -> None:
    result = strike((8, 8, 5, 5, 5, 5, 5), **striker_adjusts(3), mode=AdjustMode.NONE)
    assert result.final == result.roll.natural
    assert result.adjustments == ()


def test_m13_best_striker_maximises_net() -> None:
    result = strike((8, 8, 5, 5, 5, 5, 5), **striker_adjusts(2))
    assert result.final == (9, 9, 5, 5, 5, 5, 5)
    assert result.outcome.net == 2


def test_m13_best_ties_go_to_the_lowest_die_index() -> None:
    result = strike((5, 8, 8, 8, 5, 5, 5), **striker_adjusts(1))
    assert moved(result.adjustments) == [(1, 8, 9, Side.STRIKER)]


def test_m13_best_striker_then_maximises_twelve_effects() -> None:
    # 8 → 9 and 11 → 12 both add one to the net; the 12 also fires a 12 Effect.
    result = strike((8, 11, 5, 5, 5, 5, 5), **striker_adjusts(1))
    assert moved(result.adjustments) == [(1, 11, 12, Side.STRIKER)]


def test_m13_best_striker_then_minimises_its_own_falter() -> None:
    result = strike((1, 5, 5, 5, 5, 5, 5), **striker_adjusts(1))
    assert moved(result.adjustments) == [(0, 1, 2, Side.STRIKER)]
    assert_outcome(result, stops=1, striker_falter=0)


def test_m13_best_defender_minimises_net() -> None:
    result = strike((9, 9, 9, 5, 5, 5, 5), **defender_adjusts(2))
    assert result.final == (8, 8, 9, 5, 5, 5, 5)
    assert result.outcome.net == 1


def test_m13_best_defender_then_minimises_twelve_effects() -> None:
    result = strike((9, 12, 5, 5, 5, 5, 5), **defender_adjusts(1))
    assert moved(result.adjustments) == [(1, 12, 11, Side.DEFENDER)]


def test_m13_best_defender_then_maximises_striker_falter() -> None:
    result = strike((2, 5, 5, 5, 5, 5, 5), **defender_adjusts(1))
    assert moved(result.adjustments) == [(0, 2, 1, Side.DEFENDER)]
    assert result.striker_falter == 1


def test_m13_best_check_roller_maximises_net_passes() -> None:
    result = run_check((8, 8, 2, 5, 5, 5, 5), factor=3, opposing=0)
    assert result.adjuster == Side.ROLLER
    assert result.final == (9, 9, 2, 5, 5, 5, 5)
    assert result.net == 1


def test_m13_best_check_opponent_minimises_net_passes() -> None:
    result = run_check((9, 9, 9, 5, 5, 5, 5), factor=0, opposing=3)
    assert result.adjuster == Side.OPPONENT
    assert result.net == 1


def test_m13_the_result_shows_which_adjustments_were_made_and_why() -> None:
    result = strike((8, 5, 5, 5, 5, 5, 5), **striker_adjusts(1))
    (made,) = result.adjustments
    assert (made.die, made.from_, made.to, made.by) == (0, 8, 9, Side.STRIKER)
    assert made.why.startswith("best:")
    assert "M-18" in made.why


def test_m13_surprised_and_exposed_readings_are_respected_by_best() -> None:
    surprised = strike(
        (10, 5, 5, 5, 5, 5, 5), state=DefenderState(surprised=True), **striker_adjusts(1)
    )
    assert surprised.final[0] == 11  # an 11 is a 12 against a Surprised Defender
    assert surprised.reading == SURPRISED
    exposed = strike(
        (4, 5, 5, 5, 5, 5, 5), state=DefenderState(exposed=True), **defender_adjusts(1)
    )
    assert exposed.reading == EXPOSED
    assert exposed.adjustments == ()  # Guard 0: the Defender's advantage is gone
    assert exposed.adjusting.passes[0].side == Side.STRIKER


def test_m13_check_kind_defaults_to_attribute() -> None:
    assert run_check((5,) * 7).setup.kind == CheckKind.ATTRIBUTE

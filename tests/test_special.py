"""Rulings M-34 … M-39 (docs/rules.md): Falter, Knock Back, Bound, Grappled, Poison, Surprise."""

from __future__ import annotations

import math

import pytest
from builders import assert_passes, refused

from tableside.dice import Side
from tableside.majesty.checks import CheckKind, CheckOutcome, CheckSetup, check_with_dice
from tableside.majesty.geometry import Point, distance
from tableside.majesty.scroll import (
    Entrant,
    Moment,
    ScrollPoint,
    TimedEffect,
    point_of,
    stand_ready,
    war_scroll,
)
from tableside.majesty.special import (
    BREAK_FREE_AP,
    BREAK_FREE_EXERTION,
    DEFEATED_BODY_FORCE,
    FALTER_CAP,
    FALTER_CYCLE_REMOVED_BY,
    GRAPPLE_STRIKE_AP,
    GRAPPLE_STRIKE_EXERTION,
    SURPRISE_ENDS,
    UNRESTRICTED,
    Act,
    BodyWeaponWear,
    Collision,
    CollisionWear,
    FalterResult,
    GrapplerOptions,
    GuardRule,
    add_poison,
    avoid_collision_check,
    avoids_collision,
    body_weapon_wear,
    bound_restrictions,
    break_free_check,
    breaks_free,
    collision_control_check,
    collision_force,
    collision_wear,
    combine_restrictions,
    extend_falter_cycle,
    falter_converts_all,
    first_collision,
    grapple_strike_check,
    grappled_restrictions,
    grappler_may_strike,
    grappler_options,
    inflict_falter,
    is_poisoned,
    knock_back_check,
    knock_back_destination,
    knock_back_difficulty,
    knock_back_falter,
    knock_back_falter_of,
    path_collisions,
    poison_tick,
    split_might,
    surprise_end,
    waste_ap,
    waste_ready,
)

NEUTRAL = (5, 5, 5, 5, 5, 5, 5)
ORIGIN: Point = (0.0, 0.0, 0.0)


def close(a: Point, b: Point) -> bool:
    return distance(a, b) < 1e-9


# --- M-34 Falter ------------------------------------------------------------------------------


def test_m34_worked_example_f6_receives_f7() -> None:
    # A Club's Disarm Strike adds F:7 to a Jackal at F:6: F:7, 6 excess → 18 WearR, 18 WearP.
    assert inflict_falter(6, 7, converts_all=False) == FalterResult(7, 6, 18, 18)


@pytest.mark.parametrize(
    ("current", "amount", "falter", "converted"),
    [(0, 0, 0, 0), (0, 3, 3, 0), (2, 3, 5, 0), (4, 3, 7, 0), (7, 1, 7, 1), (0, 9, 7, 2)],
)
def test_m34_falter_caps_at_f7_and_excess_converts(
    current: int, amount: int, falter: int, converted: int
) -> None:
    result = inflict_falter(current, amount, converts_all=False)
    assert (result.falter, result.converted) == (falter, converted)
    assert result.wear_r == result.wear_p == 3 * converted
    assert result.falter <= FALTER_CAP


def test_m34_incapacitated_victims_convert_incoming_and_current_falter() -> None:
    assert inflict_falter(3, 2, converts_all=True) == FalterResult(0, 5, 15, 15)
    # Becoming Grappled with F:4 held: the current F:# converts at once.
    assert inflict_falter(4, 0, converts_all=True) == FalterResult(0, 4, 12, 12)
    assert inflict_falter(0, 0, converts_all=True) == FalterResult(0, 0, 0, 0)


@pytest.mark.parametrize(
    "flag",
    ["falter_cycle", "bound", "grappled", "entangled", "asleep", "defeated", "incapacitated"],
)
def test_m34_conditions_that_convert_all_falter(flag: str) -> None:
    assert falter_converts_all(**{flag: True})


def test_m34_a_normal_elohim_accumulates_falter() -> None:
    assert not falter_converts_all()


def test_m34_bad_falter_is_refused() -> None:
    with refused("cannot exceed F:7, got a current F:8"):
        inflict_falter(8, 0, converts_all=False)
    with refused("Falter inflicted cannot be negative, got -1"):
        inflict_falter(0, -1, converts_all=False)
    with refused("Current Falter cannot be negative, got -2"):
        inflict_falter(-2, 1, converts_all=True)


@pytest.mark.parametrize(
    ("falter", "ap", "kept", "left"),
    [(0, 7, 7, 0), (3, 7, 4, 0), (7, 7, 0, 0), (7, 3, 0, 4), (5, 0, 0, 5)],
)
def test_m34_falter_wastes_ap_as_they_arrive(falter: int, ap: int, kept: int, left: int) -> None:
    assert waste_ap(falter, ap) == (kept, left)


def test_m34_falter_eats_each_arriving_turn_in_turn() -> None:
    # F:7 across Turns of 3 AP then 7 AP: all 3 wasted, then 4 of the 7.
    kept_first, falter = waste_ap(7, 3)
    kept_second, falter = waste_ap(falter, 7)
    assert (kept_first, kept_second, falter) == (0, 3, 0)


def test_m34_falter_turns_readied_ap_into_falter_first() -> None:
    ready, left = waste_ready(stand_ready(4, ["Counter Strike"]), 3)
    assert (ready.ap, ready.uses, left) == (1, ("Counter Strike",), 0)
    ready, left = waste_ready(stand_ready(2, ["Interpose"]), 5)
    assert (ready.ap, left) == (0, 3)


def test_m34_bad_ap_is_refused() -> None:
    with refused("AP cannot be negative, got -1"):
        waste_ap(2, -1)


def test_m34_falter_one_cycle_is_extended_by_reinfliction_never_stacked() -> None:
    first = ScrollPoint(1, "1", 2, Moment.DURING)
    end = extend_falter_cycle(None, first)
    assert end == ScrollPoint(2, "1", 2, Moment.DURING)
    later = ScrollPoint(1, "A", 1, Moment.DURING)
    assert extend_falter_cycle(end, later) == ScrollPoint(2, "A", 1, Moment.DURING)
    # An older infliction reported late never shortens the duration.
    assert extend_falter_cycle(ScrollPoint(2, "A", 1), first) == ScrollPoint(2, "A", 1)
    assert FALTER_CYCLE_REMOVED_BY == ("Release Bondage", "Loose Evil")


# --- M-35 Knock Back --------------------------------------------------------------------------


def test_m35_worked_example_collision_e80_e45_with_4_5_inches_left() -> None:
    result = collision_wear(knocked_endurance=45, other_endurance=80, inches_left=4.5)
    assert result == CollisionWear(knocked=28, other=12, hits=4, force_lower=7)
    reverse = collision_wear(knocked_endurance=80, other_endurance=45, inches_left=4.5)
    assert reverse == CollisionWear(knocked=12, other=28, hits=4, force_lower=7)


@pytest.mark.parametrize(
    ("a", "b", "forces"),
    [
        (60, 60, (3, 3)),
        (61, 69, (3, 3)),  # same tens: the lower still takes only the minimum 3
        (45, 80, (7, 3)),
        (80, 45, (3, 7)),
        (-15, 20, (7, 3)),  # negative Endurance rounds down: -15 // 10 = -2
        (-40, 0, (7, 3)),
    ],
)
def test_m35_collision_force_per_hit(a: int, b: int, forces: tuple[int, int]) -> None:
    assert collision_force(a, b) == forces


def test_m35_equal_endurance_both_take_force_3() -> None:
    assert collision_wear(70, 70, 2.0) == CollisionWear(6, 6, 2, 3)


def test_m35_a_barrier_uses_its_resolve_strength_as_endurance() -> None:
    # Knocked into a Barrier of Resolve strength 120 with E 50: 3 + 12 − 5 = 10 per Hit.
    assert collision_wear(50, 120, 3.0) == CollisionWear(30, 9, 3, 10)


@pytest.mark.parametrize(("left", "hits"), [(0.0, 0), (0.99, 0), (1.0, 1), (3.9999999999, 4)])
def test_m35_only_whole_inches_left_are_hits(left: float, hits: int) -> None:
    assert collision_wear(45, 80, left).hits == hits


def test_m35_bad_collision_input_is_refused() -> None:
    with refused("Inches left must be a non-negative number of inches, got -1.0"):
        collision_wear(45, 80, -1.0)
    with refused("cannot be below -40 .M-1., got -41"):
        collision_wear(-41, 80, 1.0)
    with refused("got nan"):
        collision_wear(45, 80, math.nan)


@pytest.mark.parametrize(
    ("source", "target", "inches", "end"),
    [
        (ORIGIN, (3.0, 4.0, 0.0), 5.0, (6.0, 8.0, 0.0)),
        ((1.0, 1.0, 1.0), (1.0, 1.0, 3.0), 3.0, (1.0, 1.0, 6.0)),  # straight up: elohim fly
        ((2.0, 0.0, 0.0), ORIGIN, 2.5, (-2.5, 0.0, 0.0)),
        (ORIGIN, (1.0, 2.0, 2.0), 0.0, (1.0, 2.0, 2.0)),
    ],
)
def test_m35_knock_back_moves_straight_away_from_the_source(
    source: Point, target: Point, inches: float, end: Point
) -> None:
    moved = knock_back_destination(source, target, inches)
    assert close(moved, end)
    assert math.isclose(distance(target, moved), inches, abs_tol=1e-9)


def test_m35_knock_back_with_no_direction_or_negative_distance_is_refused() -> None:
    with refused("has no direction to push"):
        knock_back_destination((1.0, 2.0, 3.0), (1.0, 2.0, 3.0), 3.0)
    with refused("Knock Back must be a non-negative number of inches, got -2.0"):
        knock_back_destination(ORIGIN, (1.0, 0.0, 0.0), -2.0)


@pytest.mark.parametrize(
    ("inches", "extra", "difficulty"),
    [(0.0, 0, 0), (2.9, 0, 0), (3.0, 0, 1), (5.5, 0, 1), (6.0, 0, 2), (9.0, 1, 4), (4.0, -1, 0)],
)
def test_m35_difficulty_is_1_per_3_inches_plus_the_effects_own(
    inches: float, extra: int, difficulty: int
) -> None:
    assert knock_back_difficulty(inches, extra) == difficulty


@pytest.mark.parametrize(
    ("short", "inches", "falter"), [(0, 6.0, 0), (2, 6.0, 2), (5, 3.5, 3), (5, 0.5, 0), (3, 3.0, 3)]
)
def test_m35_falter_is_passes_short_but_at_most_the_knock_back(
    short: int, inches: float, falter: int
) -> None:
    assert knock_back_falter(short, inches) == falter


def test_m35_bad_knock_back_falter_input_is_refused() -> None:
    with refused("Passes short cannot be negative, got -1"):
        knock_back_falter(-1, 3.0)
    with refused("got -3.0"):
        knock_back_difficulty(-3.0)


def test_m35_knock_back_control_check_on_scripted_dice() -> None:
    # Control 30 (FV 3 → 2 Adjustments) Knocked Back 7.5": Difficulty 2 cancels them.
    setup = knock_back_check(control=30, inches=7.5)
    assert setup == CheckSetup(CheckKind.ATTRIBUTE, 3, difficulty=2)
    result = check_with_dice(setup, (9, 9, 5, 5, 5, 5, 5))
    assert_passes(result.passes, [])
    assert (result.outcome, result.passes_short) == (CheckOutcome.PARTIAL, 1)
    assert knock_back_falter_of(result, 7.5) == 1


def test_m35_knock_back_falter_is_capped_by_a_short_knock_back() -> None:
    result = check_with_dice(knock_back_check(control=0, inches=1.5), (2, 2, 5, 5, 5, 5, 5))
    assert result.passes_short == 5
    assert knock_back_falter_of(result, 1.5) == 1


def test_m35_knock_back_check_adds_the_effects_own_difficulty() -> None:
    setup = knock_back_check(control=30, inches=3.0, extra=2)
    assert setup.difficulty == 3
    result = check_with_dice(setup, (9, 9, 9, 5, 5, 5, 5))
    assert_passes(result.passes, [(Side.OPPONENT, 1)])
    assert result.outcome == CheckOutcome.PARTIAL  # the opponent lowers one 9


def test_m35_the_collided_elohim_may_avoid_with_a_swiftness_check() -> None:
    setup = avoid_collision_check(swiftness=9)  # FV 0, Difficulty 0: nobody adjusts
    assert setup == CheckSetup(CheckKind.ATTRIBUTE, 0)
    failed = check_with_dice(setup, NEUTRAL)
    assert failed.outcome == CheckOutcome.FAILURE
    assert not avoids_collision(failed)
    partial = check_with_dice(setup, (9, 5, 5, 5, 5, 5, 5))
    assert avoids_collision(partial)  # only a failure collides (seed: "If that Fails")
    assert avoids_collision(check_with_dice(setup, (9, 9, 9, 5, 5, 5, 5)))


def test_m35_after_failing_to_avoid_it_falters_by_its_control_passes_short() -> None:
    setup = collision_control_check(control=12)  # FV 1 → 1 Adjustment
    assert setup == CheckSetup(CheckKind.ATTRIBUTE, 1)
    result = check_with_dice(setup, (2, 8, 5, 5, 5, 5, 5))
    assert result.net == 0  # the roller lifts the 8 to a 9
    assert result.passes_short == 3


def test_m35_check_builders_refuse_negative_attributes() -> None:
    with refused("Control cannot be negative, got -1"):
        knock_back_check(-1, 3.0)
    with refused("Swiftness cannot be negative, got -5"):
        avoid_collision_check(-5)
    with refused("Control cannot be negative, got -2"):
        collision_control_check(-2)


def test_m35_collision_stops_the_elohim_where_it_first_comes_within_1_inch() -> None:
    hit = first_collision(ORIGIN, (10.0, 0.0, 0.0), {"Warrior": (5.0, 0.0, 0.0)})
    assert hit is not None
    assert hit.other == "Warrior"
    assert close(hit.point, (4.0, 0.0, 0.0))
    assert math.isclose(hit.inches_left, 6.0)


def test_m35_a_glancing_collision_stops_earlier_than_the_centre_line() -> None:
    hit = first_collision(ORIGIN, (10.0, 0.0, 0.0), {"Warrior": (5.0, 0.6, 0.0)})
    assert hit is not None
    assert close(hit.point, (4.2, 0.0, 0.0))
    assert collision_wear(45, 80, hit.inches_left).hits == 5  # 5.8" left


@pytest.mark.parametrize(
    "centre",
    [
        (5.0, 1.5, 0.0),  # passes beside it
        (5.0, 0.0, 1.01),  # passes beneath it (3D)
        (-2.0, 0.0, 0.0),  # behind the start
        (11.5, 0.0, 0.0),  # beyond the end
    ],
)
def test_m35_elohim_off_the_path_are_not_hit(centre: Point) -> None:
    assert first_collision(ORIGIN, (10.0, 0.0, 0.0), {"Warrior": centre}) is None


def test_m35_touching_bases_count_as_a_collision() -> None:
    hit = first_collision(ORIGIN, (10.0, 0.0, 0.0), {"Warrior": (5.0, 1.0, 0.0)})
    assert hit is not None
    assert close(hit.point, (5.0, 0.0, 0.0))


def test_m35_an_elohim_just_beyond_the_end_is_still_reached() -> None:
    hit = first_collision(ORIGIN, (10.0, 0.0, 0.0), {"Warrior": (10.5, 0.0, 0.0)})
    assert hit == Collision("Warrior", (9.5, 0.0, 0.0), 0.5)
    assert collision_wear(45, 80, hit.inches_left).hits == 0


def test_m35_a_touching_elohim_behind_is_left_but_one_ahead_is_hit_at_once() -> None:
    end = (6.0, 0.0, 0.0)
    assert first_collision(ORIGIN, end, {"Source": (-1.0, 0.0, 0.0)}) is None
    hit = first_collision(ORIGIN, end, {"Ahead": (0.5, 0.0, 0.0)})
    assert hit == Collision("Ahead", ORIGIN, 6.0)


def test_m35_the_first_elohim_along_the_path_is_hit_first() -> None:
    others = {"Far": (8.0, 0.0, 0.0), "Near": (3.0, 0.5, 0.0), "Off": (5.0, 4.0, 0.0)}
    hit = first_collision(ORIGIN, (10.0, 0.0, 0.0), others)
    assert hit is not None
    assert hit.other == "Near"
    assert [c.other for c in path_collisions(ORIGIN, (10.0, 0.0, 0.0), others)] == ["Near", "Far"]


def test_m35_equal_distance_collisions_go_by_id() -> None:
    others = {"b": (5.0, 0.5, 0.0), "a": (5.0, -0.5, 0.0)}
    assert [c.other for c in path_collisions(ORIGIN, (10.0, 0.0, 0.0), others)] == ["a", "b"]


def test_m35_reach_and_empty_paths() -> None:
    assert first_collision(ORIGIN, ORIGIN, {"Warrior": (0.5, 0.0, 0.0)}) is None
    assert first_collision(ORIGIN, (10.0, 0.0, 0.0), {}) is None
    wide = first_collision(ORIGIN, (10.0, 0.0, 0.0), {"Giant": (5.0, 0.0, 0.0)}, reach=2.0)
    assert wide is not None
    assert close(wide.point, (3.0, 0.0, 0.0))
    with refused("Collision reach must be a positive number of inches, got 0.0"):
        first_collision(ORIGIN, (1.0, 0.0, 0.0), {}, reach=0.0)


def test_m35_knock_back_into_a_collision_end_to_end() -> None:
    # A Song Knocks the Messenger (E 45) back 9" from a source 1" away; a Warrior (E 80) stands
    # 4" behind it. The Messenger stops 1" short of the Warrior with 6" left: 6 whole inches.
    source, target = (-1.0, 0.0, 0.0), ORIGIN
    end = knock_back_destination(source, target, 9.0)
    assert close(end, (9.0, 0.0, 0.0))
    hit = first_collision(target, end, {"Warrior": (4.0, 0.0, 0.0), "Source": source})
    assert hit is not None
    assert (hit.other, close(hit.point, (3.0, 0.0, 0.0))) == ("Warrior", True)
    assert collision_wear(45, 80, hit.inches_left) == CollisionWear(42, 18, 6, 7)
    assert knock_back_difficulty(9.0) == 3


# --- M-36 Bound -------------------------------------------------------------------------------


def test_m36_bound_allows_only_speech_spiritual_effects_singing_and_rest() -> None:
    bound = bound_restrictions()
    assert bound.allowed == {Act.SPEAK, Act.SPIRITUAL_EFFECT, Act.SING, Act.REST}
    for act in (Act.MOVE, Act.STRIKE, Act.DEFENSIVE_STANCE, Act.OTHER_ACTION, Act.BREAK_FREE):
        assert not bound.allows(act)


def test_m36_bound_is_exposed_with_guard_0() -> None:
    bound = bound_restrictions()
    assert (bound.guard, bound.exposed) == (GuardRule.ZERO, True)
    assert bound.guard_value(9) == 0


def test_m36_bound_falter_converts_to_wear() -> None:
    assert inflict_falter(0, 3, falter_converts_all(bound=True)) == FalterResult(0, 3, 9, 9)


def test_m36_unrestricted_and_combined_conditions() -> None:
    assert UNRESTRICTED.allows(Act.STRIKE)
    assert UNRESTRICTED.guard_value(9) == 9
    assert combine_restrictions() == UNRESTRICTED
    both = combine_restrictions(grappled_restrictions(), bound_restrictions())
    assert both == bound_restrictions()
    assert combine_restrictions(UNRESTRICTED, grappled_restrictions()) == grappled_restrictions()


# --- M-37 Grappled / Entangled ----------------------------------------------------------------


def test_m37_grappled_halves_guard_and_may_only_try_to_break_free() -> None:
    grappled = grappled_restrictions()
    assert grappled.guard_value(5) == 2
    assert not grappled.exposed
    assert grappled.allows(Act.BREAK_FREE)
    assert grappled.allows(Act.SING)
    for act in (Act.MOVE, Act.STRIKE, Act.DEFENSIVE_STANCE, Act.OTHER_ACTION):
        assert not grappled.allows(act)


def test_m37_break_free_costs_3_ap_and_3_exertion_per_attempt() -> None:
    assert (BREAK_FREE_AP, BREAK_FREE_EXERTION) == (3, 3)
    assert (GRAPPLE_STRIKE_AP, GRAPPLE_STRIKE_EXERTION) == (2, 2)


def test_m37_break_free_is_might_against_the_grapplers_might() -> None:
    setup = break_free_check(might=60, holder_might=100)
    assert setup == CheckSetup(CheckKind.ATTRIBUTE, 6, opposing=10)
    result = check_with_dice(setup, (9, 9, 9, 5, 5, 5, 5))
    assert_passes(result.passes, [(Side.OPPONENT, 2)])
    assert result.outcome == CheckOutcome.PARTIAL
    assert not breaks_free(result)  # a partial success does not break free


def test_m37_a_stronger_elohim_breaks_free() -> None:
    result = check_with_dice(break_free_check(100, 60), (8, 8, 9, 5, 5, 5, 5))
    assert result.final[:3] == (9, 9, 9)
    assert breaks_free(result)


def test_m37_entangled_by_bind_resists_its_resolve_allotment() -> None:
    setup = break_free_check(might=53, holder_might=40)  # Bind with a Resolve Allotment of 40
    assert (setup.factor, setup.opposing) == (5, 4)


def test_m37_the_grapplers_strike_is_might_versus_might() -> None:
    setup = grapple_strike_check(grappler_might=120, grappled_might=80)
    result = check_with_dice(setup, (8, 8, 5, 5, 5, 5, 5))
    assert_passes(result.passes, [(Side.ROLLER, 2)])
    assert result.net == 2


@pytest.mark.parametrize(
    ("grappler", "grappled", "options"),
    [
        (100, 100, GrapplerOptions(False, False, False)),
        (139, 100, GrapplerOptions(False, False, False)),
        (140, 100, GrapplerOptions(True, True, False)),
        (179, 100, GrapplerOptions(True, True, False)),
        (180, 100, GrapplerOptions(True, True, True)),
        (50, 100, GrapplerOptions(False, False, False)),
    ],
)
def test_m37_grappler_options_at_40_and_80_more_might(
    grappler: int, grappled: int, options: GrapplerOptions
) -> None:
    assert grappler_options(grappler, grappled) == options


def test_m37_the_grappler_strikes_others_only_with_40_more_might() -> None:
    weak = grappler_options(100, 80)
    strong = grappler_options(120, 80)
    assert grappler_may_strike(weak, target_is_grappled=True)
    assert not grappler_may_strike(weak, target_is_grappled=False)
    assert grappler_may_strike(strong, target_is_grappled=False)


def test_m37_holding_two_splits_the_grapplers_might() -> None:
    assert split_might(175) == 87
    # 175 against 40 allows a second hold; split, each hold faces 87 − 40 = 47 → still ≥ 40.
    assert grappler_options(175, 40).hold_second
    assert grappler_options(split_might(175), 40) == GrapplerOptions(True, True, False)


def test_m37_body_as_a_weapon_uses_collision_force() -> None:
    # Grappled E 45 swung into a Target E 80: Force 7 and 3; 4 Hits regardless, 2 uncanceled.
    wear = body_weapon_wear(45, 80, hits_regardless=4, uncanceled_hits=2)
    assert wear == BodyWeaponWear(grappled=28, struck=6)
    assert DEFEATED_BODY_FORCE == 3


def test_m37_bad_grapple_input_is_refused() -> None:
    with refused("Grappler's Might cannot be negative, got -1"):
        grappler_options(-1, 10)
    with refused("Might cannot be negative, got -4"):
        split_might(-4)
    with refused("Holder's Might cannot be negative, got -3"):
        break_free_check(10, -3)
    with refused("Uncanceled Hits cannot be negative, got -1"):
        body_weapon_wear(45, 80, 1, -1)
    with refused("Grappled Might cannot be negative, got -2"):
        grapple_strike_check(10, -2)


def test_m37_grappled_and_entangled_falter_converts_to_wear() -> None:
    assert falter_converts_all(grappled=True)
    assert falter_converts_all(entangled=True)


# --- M-38 Poison ------------------------------------------------------------------------------


def test_m38_worked_example_poison_7() -> None:
    poison, gained = 7, []
    while is_poisoned(poison):
        exertion, poison = poison_tick(poison)
        gained.append(exertion)
    assert gained == [7, 3, 1]
    assert poison == 0


@pytest.mark.parametrize(("poison", "tick"), [(0, (0, 0)), (1, (1, 0)), (10, (10, 5))])
def test_m38_exertion_equals_poison_then_poison_halves(poison: int, tick: tuple[int, int]) -> None:
    assert poison_tick(poison) == tick


def test_m38_poison_compounds() -> None:
    assert add_poison(3, 4) == 7
    assert add_poison(0, 0) == 0
    assert not is_poisoned(0)


def test_m38_negative_poison_is_refused() -> None:
    with refused("Poison cannot be negative, got -1"):
        poison_tick(-1)
    with refused("Poison added cannot be negative, got -2"):
        add_poison(3, -2)


# --- M-39 Surprise and other timed effects ----------------------------------------------------


def scroll_of_three() -> tuple[Entrant, ...]:
    return (
        Entrant("Herald", 14, swiftness=60, holy=True, tiebreak=0),
        Entrant("Jackal", 9, swiftness=40, holy=False, tiebreak=0),
        Entrant("Warrior", 7, swiftness=20, holy=True, tiebreak=0),
    )


def test_m39_surprise_ends_just_before_the_victims_next_activation() -> None:
    assert SURPRISE_ENDS == "just before the victim's next Activation"
    scroll = war_scroll(scroll_of_three())  # 1: Herald, Jackal, Warrior; A: Herald, Jackal
    now = point_of(scroll, 1, "Herald", "1", Moment.DURING)
    end = surprise_end(scroll, 1, "Jackal", now)
    assert end == ScrollPoint(1, "1", 2, Moment.BEFORE)
    surprise = TimedEffect("Surprised", "Jackal", end)
    assert surprise.active_at(now)
    assert not surprise.active_at(point_of(scroll, 1, "Jackal", "1", Moment.DURING))


def test_m39_surprise_during_the_victims_last_turn_runs_into_the_next_cycle() -> None:
    scroll = war_scroll(scroll_of_three())
    now = point_of(scroll, 1, "Herald", "A", Moment.DURING)
    assert surprise_end(scroll, 1, "Warrior", now) is None  # no Warrior Turn left in Cycle 1
    assert surprise_end(scroll, 2, "Warrior", ScrollPoint(2, "1", 1)) == ScrollPoint(
        2, "1", 3, Moment.BEFORE
    )


def test_m39_weakened_for_one_cycle_shows_its_end_point() -> None:
    scroll = war_scroll(scroll_of_three())
    struck_at = point_of(scroll, 1, "Jackal", "A", Moment.DURING)
    falter_cycle = TimedEffect("F:1 Cycle", "Herald", extend_falter_cycle(None, struck_at))
    assert falter_cycle.label == "F:1 Cycle on Herald, ends during Cycle 2, Segment A, Turn 2"
    assert falter_cycle.active_at(point_of(scroll, 1, "Herald", "A", Moment.AFTER))
    assert falter_cycle.active_at(ScrollPoint(2, "A", 1, Moment.DURING))
    assert not falter_cycle.active_at(ScrollPoint(2, "A", 2, Moment.DURING))

"""Rulings M-14 … M-29 (docs/rules.md): the whole Strike, end to end on scripted dice."""

from __future__ import annotations

import pytest
from builders import (
    AdjustMode,
    assert_current,
    assert_outcome,
    assert_passes,
    character,
    defender_adjusts,
    moved,
    path,
    refused,
    strike,
    striker_adjusts,
    wear_line,
    wear_to_defender,
)

from tableside.dice import Side
from tableside.errors import DataError
from tableside.majesty.catalog import (
    Effect,
    EffectType,
    Maneuver,
    Weapon,
    builtin_catalog,
    parse_catalog,
)
from tableside.majesty.character import Status, WearKind
from tableside.majesty.checks import CheckKind, CheckOutcome, check_with_dice
from tableside.majesty.geometry import Dominion, check_reach
from tableside.majesty.interpose import interpose_check, may_interpose, require_interpose
from tableside.majesty.ruleset import NEWER_FULL_STANCE
from tableside.majesty.strike import DefenderState, Placement, passion_triggers
from tableside.majesty.wear import Part, deal_wear

NEUTRAL = (5, 5, 5, 5, 5, 5, 5)

# --- M-14 Cost and movement -------------------------------------------------------------------


def test_m14_a_strike_costs_3_ap_and_allows_2_inches() -> None:
    cost = strike(NEUTRAL).cost
    assert (cost.ap, cost.movement, cost.exertion) == (3, 2.0, 3)


def test_m14_a_2_ap_strike_allows_1_inch() -> None:
    cost = strike(NEUTRAL, two_ap=True).cost
    assert (cost.ap, cost.movement, cost.exertion) == (2, 1.0, 2)


def test_m14_defensive_stance_adds_1_ap_but_no_exertion() -> None:
    cost = strike(NEUTRAL, striker_in_stance=True).cost
    assert (cost.ap, cost.movement, cost.exertion) == (4, 2.0, 3)


def test_m14_lunge_maneuver_costs_1_ap_more_and_allows_2_inches_more() -> None:
    cost = strike(NEUTRAL, maneuvers=("Lunge",)).cost
    assert (cost.ap, cost.movement, cost.exertion) == (4, 4.0, 4)
    short = strike(NEUTRAL, maneuvers=("Lunge",), two_ap=True).cost
    assert (short.ap, short.movement) == (3, 3.0)


def test_m14_movement_beyond_the_allowance_is_refused() -> None:
    long_path = path((0.0, 0.0, 0.0), (2.5, 0.0, 0.0), target=(5.0, 0.0, 0.0))
    with refused("allows only 2"):
        strike(NEUTRAL, placement=long_path)
    with refused("allows only 1"):
        strike(
            NEUTRAL,
            two_ap=True,
            placement=path((0.0, 0.0, 0.0), (1.5, 0.0, 0.0), target=(3.0, 0.0, 0.0)),
        )
    assert strike(NEUTRAL, maneuvers=("Lunge",), placement=long_path).reach is not None


# --- M-15 Range -------------------------------------------------------------------------------


def test_m15_melee_at_9_inches_is_refused() -> None:
    with refused("M-15"):
        strike(NEUTRAL, placement=Placement.at_distance(9))


@pytest.mark.parametrize(("inches", "allowed"), [(0.0, True), (3.0, True), (3.01, False)])
def test_m15_melee_range_is_3_inches_centre_to_centre(inches: float, allowed: bool) -> None:
    if allowed:
        reach = strike(NEUTRAL, placement=Placement.at_distance(inches)).reach
        assert reach is not None
        assert reach.in_range
    else:
        with refused('within 3"'):
            strike(NEUTRAL, placement=Placement.at_distance(inches))


def test_m15_range_need_only_hold_at_some_point_of_the_path() -> None:
    # Both ends are 3.07" away; the middle of the path passes 2.9" from the Defender.
    passing = path((-1.0, 2.9, 0.0), (1.0, 2.9, 0.0), target=(0.0, 0.0, 0.0))
    reach = strike(NEUTRAL, placement=passing).reach
    assert reach is not None
    assert reach.closest == pytest.approx(2.9)
    assert reach.farthest > 3.0


def test_m15_positions_are_3d() -> None:
    assert strike(NEUTRAL, placement=path((0.0, 0.0, 0.0), target=(1.0, 2.0, 2.0))).reach
    with refused("M-15"):
        strike(NEUTRAL, placement=path((0.0, 0.0, 0.0), target=(2.0, 2.0, 2.0)))


def test_m15_a_flying_striker_moves_into_range_in_3d() -> None:
    descent = path((0.0, 0.0, 4.0), (0.0, 0.0, 2.0), target=(0.0, 0.0, 0.0))
    reach = strike(NEUTRAL, placement=descent).reach
    assert reach is not None
    assert (reach.closest, reach.farthest) == (2.0, 4.0)


def test_m15_check_reach_on_a_segment() -> None:
    reach = check_reach(((0.0, 0.0, 0.0), (0.0, 4.0, 0.0)), (3.0, 2.0, 0.0), None, 3.0)
    assert reach.in_range
    assert reach.closest == pytest.approx(3.0)
    ranged = check_reach(((0.0, 0.0, 0.0),), (2.0, 0.0, 0.0), 3.0, 12.0)
    assert not ranged.in_range


@pytest.mark.parametrize(
    ("inches", "allowed"), [(2.0, False), (3.0, False), (3.5, True), (12.0, True), (12.5, False)]
)
def test_m15_bow_needs_beyond_3_and_within_12_inches(inches: float, allowed: bool) -> None:
    placement = Placement.at_distance(inches)
    if allowed:
        assert strike(NEUTRAL, weapon="Bow", ranged=True, placement=placement).reach
    else:
        with refused('beyond 3" and within 12"'):
            strike(NEUTRAL, weapon="Bow", ranged=True, placement=placement)


def test_m15_bow_within_3_inches_may_step_out_during_the_strike() -> None:
    backing = path((0.0, 0.0, 0.0), (-2.0, 0.0, 0.0), target=(2.0, 0.0, 0.0))
    reach = strike(NEUTRAL, weapon="Bow", ranged=True, placement=backing).reach
    assert reach is not None
    assert (reach.closest, reach.farthest) == (2.0, 4.0)


def test_m15_ranged_only_weapon_never_strikes_in_melee() -> None:
    with refused("Ranged-only"):
        strike(NEUTRAL, weapon="Bow")


def test_m15_weapon_without_range_cannot_strike_ranged() -> None:
    with refused("no range"):
        strike(NEUTRAL, weapon="Staff", ranged=True, placement=Placement.at_distance(5))


@pytest.mark.parametrize(("inches", "allowed"), [(5.0, True), (7.0, True), (7.5, False)])
def test_m15_spear_is_thrown_up_to_7_inches(inches: float, allowed: bool) -> None:
    placement = Placement.at_distance(inches)
    if allowed:
        assert strike(NEUTRAL, weapon="Spear", ranged=True, placement=placement).reach
    else:
        with refused("M-15"):
            strike(NEUTRAL, weapon="Spear", ranged=True, placement=placement)


def test_m15_a_spiritual_dominion_between_blocks_the_strike() -> None:
    blocked = Placement(((0.0, 0.0, 0.0),), (2.0, 0.0, 0.0), (Dominion((1.0, 0.0, 0.0), 0.5),))
    with refused("Spiritual Dominion"):
        strike(NEUTRAL, placement=blocked)
    ranged = Placement(((0.0, 0.0, 0.0),), (6.0, 0.0, 0.0), (Dominion((3.0, 0.0, 0.0), 1.0),))
    with refused("Spiritual Dominion"):
        strike(NEUTRAL, weapon="Bow", ranged=True, placement=ranged)


def test_m15_a_dominion_off_the_line_does_not_block() -> None:
    aside = Placement(((0.0, 0.0, 0.0),), (2.0, 0.0, 0.0), (Dominion((1.0, 2.0, 0.0), 0.5),))
    assert strike(NEUTRAL, placement=aside).reach


def test_m15_flying_over_a_dominion_clears_the_line() -> None:
    # From (0,0,2) the line to the Defender passes 1" from the Dominion's centre.
    over = Placement(
        ((0.0, 0.0, 0.0), (0.0, 0.0, 2.0)),
        (2.0, 0.0, 0.0),
        (Dominion((1.0, 0.0, 0.0), 0.5),),
    )
    reach = strike(NEUTRAL, placement=over).reach
    assert reach is not None
    assert reach.in_range


# --- M-16 Interposing -------------------------------------------------------------------------

STRIKER_AT = (0.0, 0.0, 0.0)
DEFENDER_AT = (2.0, 0.0, 0.0)


@pytest.mark.parametrize(
    ("interposer", "in_stance", "ranged", "allowed"),
    [
        ((1.0, 1.0, 0.0), True, False, True),  # near both, in Defensive Stance
        ((1.0, 1.0, 0.0), False, False, False),  # not in Defensive Stance
        ((4.5, 0.0, 0.0), True, False, False),  # 2.5" from the Defender, 4.5" from the Striker
        ((4.5, 0.0, 0.0), True, True, True),  # ranged: the Defender's Melee Range is enough
        ((6.0, 0.0, 0.0), True, True, False),  # 4" from the Defender
        ((1.0, 0.0, 2.5), True, False, True),  # 3D: 2.69" from each
    ],
)
def test_m16_interposer_in_stance_within_melee_range(
    interposer: tuple[float, float, float], in_stance: bool, ranged: bool, allowed: bool
) -> None:
    assert may_interpose(interposer, in_stance, STRIKER_AT, DEFENDER_AT, ranged) is allowed


def test_m16_refused_interpositions_say_why() -> None:
    with refused("Defensive Stance"):
        require_interpose((1.0, 1.0, 0.0), False, STRIKER_AT, DEFENDER_AT, False)
    with refused("both the Striker and the Defender"):
        require_interpose((4.5, 0.0, 0.0), True, STRIKER_AT, DEFENDER_AT, False)
    with refused("of the Defender"):
        require_interpose((6.0, 0.0, 0.0), True, STRIKER_AT, DEFENDER_AT, True)
    require_interpose((1.0, 1.0, 0.0), True, STRIKER_AT, DEFENDER_AT, False)


def test_m16_interposer_passes_a_control_check_against_the_strikers_control() -> None:
    setup = interpose_check(character("Guardian", control=53), character("Herald", control=40))
    assert (setup.kind, setup.factor, setup.opposing) == (CheckKind.ATTRIBUTE, 5, 4)
    passed = check_with_dice(setup, (8, 9, 9, 5, 5, 5, 5))
    assert passed.outcome == CheckOutcome.SUCCESS
    failed = check_with_dice(setup, (8, 9, 5, 5, 5, 5, 5))
    assert failed.outcome != CheckOutcome.SUCCESS


# --- M-17 Effective Guard ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "guard"),
    [
        (DefenderState(), 1),
        (DefenderState(defensive_stance=True), 4),
        (DefenderState(full_defensive_stance=True), 6),
        (DefenderState(defensive_stance=True, full_defensive_stance=True), 6),
    ],
)
def test_m17_defensive_stance_plus_3_full_plus_5(state: DefenderState, guard: int) -> None:
    assert strike(NEUTRAL, state=state).guard.value == guard


def test_m17_newer_full_stance_option_gives_1_defender_adjustment_instead() -> None:
    result = strike(
        (9, 9, 5, 5, 5, 5, 5),
        state=DefenderState(full_defensive_stance=True),
        ruleset=NEWER_FULL_STANCE,
    )
    assert result.guard.value == 1
    assert [(p.label, p.amount) for p in result.adjusting.defender_raw] == [
        ("Full Defensive Stance", 1)
    ]
    assert_passes(result.adjusting.passes, [(Side.DEFENDER, 1)])
    assert result.outcome.net == 1


@pytest.mark.parametrize(("guard", "modifier", "halved"), [(5, 0, 2), (5, 2, 3), (1, 0, 0)])
def test_m17_grappled_halves_guard_rounding_down(guard: int, modifier: int, halved: int) -> None:
    result = strike(
        NEUTRAL,
        defender=character(guard=guard),
        state=DefenderState(grappled=True),
        guard=modifier,
    )
    assert result.guard.value == halved


@pytest.mark.parametrize(
    "state",
    [
        DefenderState(bound=True, defensive_stance=True),
        DefenderState(exposed=True, full_defensive_stance=True),
        DefenderState(bound=True, grappled=True),
    ],
)
def test_m17_bound_or_exposed_guard_is_0(state: DefenderState) -> None:
    assert strike(NEUTRAL, defender=character(guard=6), state=state, guard=3).guard.value == 0


def test_m17_defeated_defender_guard_is_0() -> None:
    defeated = character(guard=6, wear_e=100)
    assert defeated.status == Status.DEFEATED
    assert strike(NEUTRAL, defender=defeated).guard.value == 0


@pytest.mark.parametrize(
    "state",
    [
        DefenderState(surprised=True, defensive_stance=True),
        DefenderState(surprised=True, full_defensive_stance=True),
    ],
)
def test_m17_surprised_defender_gets_no_stance_bonus(state: DefenderState) -> None:
    assert strike(NEUTRAL, state=state).guard.value == 1
    newer = strike(NEUTRAL, state=state, ruleset=NEWER_FULL_STANCE)
    assert newer.guard.value == 1
    assert newer.adjusting.defender_raw == ()


def test_m17_guard_modifiers_from_options_and_maneuvers() -> None:
    feint = Maneuver(name="Feint", guard=-2)
    result = strike(
        NEUTRAL,
        defender=character(guard=5),
        state=DefenderState(defensive_stance=True),
        maneuvers=(feint,),
        guard=1,
    )
    assert result.guard.value == 5 + 3 - 2 + 1


# --- M-18 Adjustments for a Strike ------------------------------------------------------------


def test_m18_advantage_is_effective_precision_minus_effective_guard() -> None:
    result = strike(
        (9, 9, 5, 5, 5, 5, 5),
        striker=character(precision=2),
        defender=character(guard=4),
    )
    assert result.adjusting.advantage == -2
    assert_passes(result.adjusting.passes, [(Side.DEFENDER, 1)])
    assert moved(result.adjustments) == [(0, 9, 8, Side.DEFENDER)]
    assert result.outcome.uncanceled_hits == 1


def test_m18_modifiers_and_stance_enter_the_advantage() -> None:
    result = strike(
        NEUTRAL,
        striker=character(precision=3),
        state=DefenderState(defensive_stance=True),
        precision=4,
    )  # Precision 3 + 4 = 7 vs Guard 1 + 3 = 4 → advantage 3 → 2 Adjustments
    assert (result.precision.value, result.guard.value) == (7, 4)
    assert_passes(result.adjusting.passes, [(Side.STRIKER, 2)])


# --- M-19 Surprised and Exposed ---------------------------------------------------------------

SURPRISED = DefenderState(surprised=True)
EXPOSED = DefenderState(exposed=True)


def test_m19_surprised_elevens_count_as_twelves() -> None:
    result = strike((11, 5, 5, 5, 5, 5, 5), weapon="Sword", state=SURPRISED)
    assert_outcome(result, hits=2, uncanceled_hits=2, twelve_effects=1)
    assert result.effects.ap_gained == 1
    plain = strike((11, 5, 5, 5, 5, 5, 5), weapon="Sword")
    assert_outcome(plain, hits=1, twelve_effects=0)


def test_m19_surprised_natural_elevens_make_an_epic_strike() -> None:
    lowered = strike((11, 11, 11, 5, 5, 5, 5), state=SURPRISED)
    assert lowered.epic_kind == "strike"
    assert lowered.defender_status_change == "lowered_1_cycle"
    defeated = strike((11, 12, 11, 11, 5, 5, 5), state=SURPRISED)
    assert defeated.defender_status_change == "defeated"
    assert_current(defeated.defender_after, endurance=-40)
    assert strike((11, 11, 11, 5, 5, 5, 5)).defender_status_change is None


def test_m19_surprised_elevens_are_locked_in_an_epic_strike() -> None:
    result = strike((11, 11, 9, 5, 5, 5, 5), state=SURPRISED, **defender_adjusts(1))
    assert result.final == (11, 11, 8, 5, 5, 5, 5)


def test_m19_surprised_ones_still_pair_with_elevens() -> None:
    result = strike((11, 1, 5, 5, 5, 5, 5), state=SURPRISED)
    assert_outcome(result, hits=1, stops=1, twelve_effects=0, striker_falter=0)


def test_m19_exposed_guard_0_lows_are_misses_ones_inert() -> None:
    result = strike(
        (12, 1, 1, 3, 2, 5, 5),
        defender=character(guard=6),
        state=DefenderState(exposed=True, defensive_stance=True),
        mode=AdjustMode.NONE,
    )
    assert result.guard.value == 0
    assert_outcome(result, hits=2, stops=0, uncanceled_hits=2, twelve_effects=1, striker_falter=0)
    assert result.defensive_hits == 0


def test_m19_exposed_elevens_count_as_twelves() -> None:
    result = strike((11, 11, 5, 5, 5, 5, 5), weapon="Spear", state=EXPOSED)
    assert_outcome(result, hits=4, twelve_effects=2)
    assert result.defender_falter == 2


def test_m19_exposed_ones_make_no_epic_defense() -> None:
    result = strike((1, 1, 1, 1, 3, 2, 5), state=EXPOSED)
    assert result.epic_kind is None
    assert result.striker_status_change is None
    assert result.striker_after == result.setup.striker
    assert_outcome(result, hits=0, stops=0, striker_falter=0)


# --- M-20 Resolution --------------------------------------------------------------------------


def test_m20_stops_cancel_hits() -> None:
    result = strike((9, 10, 11, 2, 3, 5, 5))
    assert_outcome(result, hits=3, stops=2, uncanceled_hits=1, uncanceled_stops=0)
    assert result.outcome.net == 1


def test_m20_surplus_stops_are_uncanceled_stops() -> None:
    result = strike((9, 2, 3, 3, 5, 5, 5))
    assert_outcome(result, hits=1, stops=3, uncanceled_hits=0, uncanceled_stops=2)
    assert result.wear[0].amount == 0


def test_m20_ignore_stops_removes_stops() -> None:
    thrust = strike((9, 9, 2, 5, 5, 5, 5), maneuvers=("Piercing Thrust",))
    assert thrust.outcome.ignored_stops == 1
    assert_outcome(thrust, hits=2, stops=0, uncanceled_hits=2)
    more = strike((9, 2, 2, 3, 5, 5, 5), maneuvers=("Piercing Thrust",), ignore_stops=1)
    assert more.outcome.ignored_stops == 2
    assert_outcome(more, hits=1, stops=1, uncanceled_hits=0)


def test_m20_an_ignored_one_still_cancels_a_twelves_extra() -> None:
    result = strike((12, 1, 5, 5, 5, 5, 5), weapon="Sword", ignore_stops=1)
    assert_outcome(result, hits=1, stops=0, uncanceled_hits=1, twelve_effects=0)
    assert result.effects.ap_gained == 0


def test_m20_an_ignored_one_still_falters_the_striker() -> None:
    result = strike((1, 9, 5, 5, 5, 5, 5), ignore_stops=1)
    assert_outcome(result, hits=1, stops=0, uncanceled_hits=1, striker_falter=1)


def test_m20_riders_need_hits_regardless_of_stops() -> None:
    disarm = strike((9, 9, 2, 2, 3, 5, 5), maneuvers=("Disarm",))
    assert_outcome(disarm, hits=2, stops=3, uncanceled_hits=0)
    assert disarm.defender_falter == 2  # Falter:1 per Hit, Hits regardless of Stops
    assert wear_to_defender(disarm) == {}
    crushing = strike((9, 2, 2, 5, 5, 5, 5), maneuvers=("Crushing Blow",))
    assert crushing.effects.knock_back == 2.0
    trip = strike((9, 2, 2, 5, 5, 5, 5), maneuvers=(Maneuver(name="Trip", falter=1),))
    assert trip.defender_falter == 1


def test_m20_no_hits_no_riders() -> None:
    result = strike((2, 5, 5, 5, 5, 5, 5), maneuvers=("Disarm", "Crushing Blow"))
    assert result.defender_falter == 0
    assert result.effects.knock_back == 0.0


# --- M-21 12 Effects --------------------------------------------------------------------------


def test_m21_each_unpaired_twelve_fires_once() -> None:
    result = strike((12, 12, 5, 5, 5, 5, 5), weapon="Spear")
    assert result.effects.twelve_fired == 2
    assert result.defender_falter == 2


def test_m21_a_paired_twelve_does_not_fire() -> None:
    result = strike((12, 12, 1, 5, 5, 5, 5), weapon="Spear")
    assert result.effects.twelve_fired == 1


def test_m21_sword_fires_at_most_once_per_strike() -> None:
    result = strike((12, 12, 12, 5, 5, 5, 5), weapon="Sword")
    assert result.effects.twelve_fired == 1
    assert result.effects.ap_gained == 1


@pytest.mark.parametrize(("this_turn", "fired"), [(0, 1), (1, 1), (2, 0), (5, 0)])
def test_m21_sword_fires_at_most_twice_per_turn(this_turn: int, fired: int) -> None:
    result = strike((12, 12, 5, 5, 5, 5, 5), weapon="Sword", twelve_effects_this_turn=this_turn)
    assert result.effects.twelve_fired == fired
    assert result.effects.ap_gained == fired


def test_m21_twelve_effects_this_turn_cannot_be_negative() -> None:
    with refused("cannot be negative"):
        strike(NEUTRAL, weapon="Sword", twelve_effects_this_turn=-1)


def test_m21_axe_adds_7_wear_once_per_strike() -> None:
    result = strike((12, 12, 5, 5, 5, 5, 5), weapon="Axe")
    assert result.effects.twelve_fired == 1
    assert wear_line(result, WearKind.E).amount == 4 * 4 + 7


def test_m21_hammer_falters_2_once_per_strike() -> None:
    result = strike((12, 12, 5, 5, 5, 5, 5), weapon="Hammer")
    assert result.defender_falter == 2


def test_m21_staff_has_no_twelve_effect() -> None:
    result = strike((12, 5, 5, 5, 5, 5, 5), weapon="Staff")
    assert result.effects.twelve_fired == 0
    assert result.outcome.twelve_effects == 1


def test_m21_twelves_are_counted_on_the_final_dice() -> None:
    result = strike((11, 5, 5, 5, 5, 5, 5), weapon="Spear", **striker_adjusts(1))
    assert result.final[0] == 12
    assert result.defender_falter == 1
    lowered = strike((12, 5, 5, 5, 5, 5, 5), weapon="Spear", **defender_adjusts(1))
    assert lowered.final[0] == 11
    assert lowered.defender_falter == 0


# --- M-22 Striker Falter ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "falter"),
    [
        ((1, 9, 5, 5, 5, 5, 5), 1),
        ((1, 1, 9, 5, 5, 5, 5), 2),
        ((1, 12, 9, 5, 5, 5, 5), 0),
        ((1, 1, 12, 5, 5, 5, 5), 1),
        ((2, 3, 9, 5, 5, 5, 5), 0),
    ],
)
def test_m22_each_unpaired_one_falters_a_melee_striker(faces: tuple[int, ...], falter: int) -> None:
    assert strike(faces).striker_falter == falter


def test_m22_ranged_striker_never_falters() -> None:
    assert strike((1, 1, 9, 5, 5, 5, 5), weapon="Bow", ranged=True).striker_falter == 0


def test_m22_a_die_adjusted_to_one_falters() -> None:
    result = strike((2, 5, 5, 5, 5, 5, 5), **defender_adjusts(1))
    assert result.final[0] == 1
    assert result.epic_kind is None
    assert result.striker_falter == 1


# --- M-23 Defensive Hits ----------------------------------------------------------------------

LASH = Weapon(name="Lash", wear_kind=WearKind.R)


@pytest.mark.parametrize(
    ("faces", "defensive_hits"),
    [
        ((2, 5, 5, 5, 5, 5, 5), 0),
        ((2, 2, 5, 5, 5, 5, 5), 1),
        ((2, 2, 2, 5, 5, 5, 5), 1),
        ((2, 2, 3, 3, 5, 5, 5), 2),
        ((2, 2, 2, 3, 3, 5, 5), 2),
        ((9, 2, 2, 2, 5, 5, 5), 1),
        ((9, 9, 2, 2, 2, 3, 5), 1),
    ],
)
def test_m23_defensive_hits_are_half_the_uncanceled_stops(
    faces: tuple[int, ...], defensive_hits: int
) -> None:
    result = strike(faces, defender=character(force=5))
    assert result.defensive_hits == defensive_hits
    if defensive_hits:
        assert result.wear_to_striker is not None
        assert result.wear_to_striker.amount == 5 * defensive_hits
        assert_current(result.striker_after, endurance=100 - 5 * defensive_hits)
    else:
        assert result.wear_to_striker is None


def test_m23_defensive_hits_use_the_defenders_weapon_wear_kind() -> None:
    result = strike((2, 2, 3, 3, 5, 5, 5), defender=character(force=5), defender_weapon=LASH)
    assert result.wear_to_striker is not None
    assert result.wear_to_striker.kind == WearKind.R
    assert_current(result.striker_after, endurance=100, resolve=90)


def test_m23_defensive_hits_get_no_passion_effects() -> None:
    result = strike(
        (2, 2, 3, 3, 5, 5, 5),
        defender=character(passion=300),
        defender_weapon="Sword",
    )
    assert result.wear_to_striker is not None
    assert result.wear_to_striker.percents == ()
    assert result.wear_to_striker.amount == 2 * 4


def test_m23_no_defensive_hits_when_ranged() -> None:
    result = strike((2, 2, 3, 3, 5, 5, 5), weapon="Bow", ranged=True)
    assert result.outcome.uncanceled_stops == 4
    assert result.defensive_hits == 0
    assert result.wear_to_striker is None
    assert result.striker_after == result.setup.striker


# --- M-24 Epic consequences -------------------------------------------------------------------


def test_m24_three_unpaired_twelves_lower_the_defender_for_1_cycle() -> None:
    result = strike((12, 12, 12, 5, 5, 5, 5))
    assert result.defender_status_change == "lowered_1_cycle"
    assert result.defender_lowered
    assert result.defender_after.status == Status.WEAKENED
    assert result.defender_after.status_lowered == 1


@pytest.mark.parametrize("faces", [(12, 12, 12, 12, 5, 5, 5), (12, 12, 12, 12, 12, 1, 2)])
def test_m24_four_unpaired_twelves_defeat_the_defender(faces: tuple[int, ...]) -> None:
    result = strike(faces, defender=character(endurance=400))
    assert result.defender_status_change == "defeated"
    assert result.defender_after.status == Status.DEFEATED
    assert_current(result.defender_after, endurance=-40)


def test_m24_two_unpaired_twelves_have_no_consequence() -> None:
    result = strike((12, 12, 12, 1, 5, 5, 5))
    assert result.epic_kind == "strike"
    assert result.defender_status_change is None


def test_m24_melee_three_unpaired_ones_lower_the_striker() -> None:
    result = strike((1, 1, 1, 5, 5, 5, 5))
    assert result.striker_status_change == "lowered_1_cycle"
    assert result.striker_after.status == Status.WEAKENED


def test_m24_melee_four_unpaired_ones_defeat_the_striker() -> None:
    result = strike((1, 1, 1, 1, 5, 5, 5), striker=character(endurance=400))
    assert result.striker_status_change == "defeated"
    assert_current(result.striker_after, endurance=-40)


def test_m24_ranged_ones_lower_and_defeat_nobody() -> None:
    result = strike((1, 1, 1, 1, 5, 5, 5), weapon="Bow", ranged=True)
    assert result.striker_status_change is None
    assert result.striker_after == result.setup.striker


def test_m24_ranged_twelves_still_lower_the_defender() -> None:
    result = strike((12, 12, 12, 5, 5, 5, 5), weapon="Bow", ranged=True)
    assert result.defender_status_change == "lowered_1_cycle"


def test_m24_a_weakened_defender_lowered_again_is_defeated() -> None:
    result = strike((12, 12, 12, 5, 5, 5, 5), defender=character(status_lowered=1))
    assert result.defender_after.status == Status.DEFEATED
    assert result.defender_status_change == "defeated"


# --- M-25 Passion Effects ---------------------------------------------------------------------

FLAIL = Weapon(name="Flail", passion_effect=Effect(type=EffectType.FALTER, amount=1))


@pytest.mark.parametrize(
    ("difference", "triggers"),
    [(-10, 0), (0, 0), (1, 1), (39, 1), (40, 2), (79, 2), (80, 3), (500, 3)],
)
def test_m25_passion_triggers(difference: int, triggers: int) -> None:
    assert passion_triggers(difference) == triggers
    result = strike(NEUTRAL, striker=character(passion=100 + difference))
    assert result.effects.passion_triggers == triggers


def test_m25_triggers_compare_current_passion_and_resolve() -> None:
    result = strike(
        NEUTRAL,
        striker=character(passion=140, wear_p=40),
        defender=character(resolve=100, wear_r=50),
    )  # current Passion 100 − current Resolve 50 = 50
    assert result.effects.passion_triggers == 2


def test_m25_wear_type_passion_effect_needs_an_uncanceled_hit() -> None:
    sword = {"weapon": "Sword", "striker": character(passion=150)}  # 2 triggers
    canceled = strike((9, 9, 2, 2, 5, 5, 5), **sword)
    assert (canceled.effects.passion_triggers, canceled.effects.passion_applied) == (2, 0)
    standing = strike((9, 9, 9, 9, 9, 5, 5), **sword)
    assert standing.effects.passion_applied == 2
    line = wear_line(standing, WearKind.E)
    assert line.percent == 20
    assert line.amount == 20 + 4


def test_m25_falter_type_passion_effect_needs_hits_regardless_of_stops() -> None:
    passionate = character(passion=101)
    canceled = strike((9, 2, 2, 5, 5, 5, 5), weapon=FLAIL, striker=passionate)
    assert canceled.effects.passion_applied == 1
    assert canceled.defender_falter == 1
    missed = strike((2, 5, 5, 5, 5, 5, 5), weapon=FLAIL, striker=passionate)
    assert missed.effects.passion_applied == 0
    assert missed.defender_falter == 0


def test_m25_hammer_exertion_needs_a_hit_regardless_of_stops() -> None:
    result = strike((9, 2, 2, 5, 5, 5, 5), weapon="Hammer", striker=character(passion=200))
    assert result.effects.passion_applied == 3
    assert result.effects.defender_exertion == 3


# --- M-26 Wear --------------------------------------------------------------------------------


def test_m26_no_uncanceled_hit_no_wear_at_all() -> None:
    result = strike((12, 2, 2, 3, 3, 5, 5), weapon="Axe", wear_flat=5)
    assert result.effects.twelve_fired == 1
    assert result.outcome.uncanceled_hits == 0
    assert wear_to_defender(result) == {}
    assert result.defender_after.wear == result.setup.defender.wear


def test_m26_hits_times_force_then_flat_then_percent() -> None:
    # 3 × 4 = 12, + 8 flat = 20, − 50 % → 10 (flat before percent).
    result = strike((9, 9, 9, 5, 5, 5, 5), wear_flat=8, wear_percent=-50)
    line = wear_line(result, WearKind.E)
    assert (line.base, line.before_percent, line.delta, line.amount) == (12, 20, -10, 10)
    assert_current(result.defender_after, endurance=90)


def test_m26_percentages_are_summed_into_one() -> None:
    # Bow −50 % and +20 % → −30 % of 20 = −6 → 14 (not 20 → 10 → 12).
    result = strike((9, 9, 9, 9, 9, 5, 5), weapon="Bow", ranged=True, wear_percent=20)
    line = wear_line(result, WearKind.E)
    assert line.percent == -30
    assert line.amount == 14


def test_m26_percent_change_is_at_least_1() -> None:
    result = strike((9, 5, 5, 5, 5, 5, 5), wear_percent=-10)
    assert wear_line(result, WearKind.E).amount == 3
    up = strike((9, 5, 5, 5, 5, 5, 5), wear_percent=10)
    assert wear_line(up, WearKind.E).amount == 5


@pytest.mark.parametrize(("flat", "percent"), [(0, -95), (-100, 0), (-25, -50)])
def test_m26_minimum_is_a_tenth_of_hits_times_force(flat: int, percent: int) -> None:
    result = strike(
        (9, 9, 9, 5, 5, 5, 5), striker=character(force=10), wear_flat=flat, wear_percent=percent
    )
    line = wear_line(result, WearKind.E)
    assert line.minimum == 3
    assert line.amount == 3


def test_m26_minimum_is_at_least_1() -> None:
    result = strike((9, 5, 5, 5, 5, 5, 5), striker=character(force=1), wear_percent=-50)
    assert wear_line(result, WearKind.E).amount == 1


def test_m26_bow_passion_deals_its_own_wear_r_at_minus_50_percent() -> None:
    result = strike(
        (9, 9, 5, 5, 5, 5, 5), weapon="Bow", ranged=True, striker=character(passion=101)
    )
    assert wear_to_defender(result) == {WearKind.E: 4, WearKind.R: 4}
    assert_current(result.defender_after, endurance=96, resolve=96)


def test_m26_minimum_holds_for_each_wear_kind() -> None:
    # WearR: 7 − 3 = 4, below the minimum 60 // 10 = 6.
    result = strike(
        (9, 9, 9, 5, 5, 5, 5),
        weapon="Bow",
        ranged=True,
        striker=character(passion=101, force=20),
    )
    assert wear_to_defender(result) == {WearKind.E: 30, WearKind.R: 6}


def test_m26_deal_wear_directly() -> None:
    line = deal_wear(WearKind.E, 3, 4, (Part("flat", 3),), (Part("a", 10), Part("b", 10)))
    assert (line.base, line.flat, line.percent, line.delta, line.amount) == (12, 3, 20, 3, 18)
    assert deal_wear(WearKind.E, 0, 4, (Part("flat", 30),)).amount == 0


# --- M-27 Ranged Strikes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weapon", "placement"),
    [("Bow", Placement.at_distance(6)), ("Spear", Placement.at_distance(5)), ("Sling", None)],
)
def test_m27_ranged_no_falter_no_status_loss_no_defensive_hits(
    weapon: str, placement: Placement | None
) -> None:
    result = strike((1, 1, 1, 1, 2, 2, 3), weapon=weapon, ranged=True, placement=placement)
    assert result.outcome.uncanceled_stops == 7
    assert result.striker_falter == 0
    assert result.defensive_hits == 0
    assert result.wear_to_striker is None
    assert result.striker_status_change is None
    assert result.striker_after == result.setup.striker


# --- M-28 Weapons are data --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "melee", "reach", "percent", "twelve", "per_strike", "per_turn", "passion"),
    [
        ("Sword", True, None, 0, (EffectType.AP, 1, False), 1, 2, (EffectType.WEAR_PERCENT, 10)),
        ("Axe", True, None, 0, (EffectType.WEAR_FLAT, 7, True), 1, None,
         (EffectType.WEAR_PERCENT, 10)),
        ("Hammer", True, None, 0, (EffectType.FALTER, 2, False), 1, None,
         (EffectType.EXERTION, 1)),
        ("Club", True, None, 0, (EffectType.FALTER, 2, False), 1, None, (EffectType.EXERTION, 1)),
        ("Spear", True, 7.0, 0, (EffectType.FALTER, 1, False), None, None,
         (EffectType.WEAR_PERCENT, 10)),
        ("Bow", False, 12.0, -50, (EffectType.WEAR_PERCENT, 10, False), None, None,
         (EffectType.WEAR_FLAT, 7)),
        ("Sling", False, 12.0, -50, (EffectType.FALTER, 1, False), None, None, None),
        ("Staff", True, None, 0, None, None, None, None),
    ],
)  # fmt: skip
def test_m28_shipped_weapons(
    name: str,
    melee: bool,
    reach: float | None,
    percent: int,
    twelve: tuple[EffectType, int, bool] | None,
    per_strike: int | None,
    per_turn: int | None,
    passion: tuple[EffectType, int] | None,
) -> None:
    weapon = builtin_catalog().weapon(name)
    assert (weapon.melee, weapon.ranged_range, weapon.wear_percent) == (melee, reach, percent)
    if twelve is None:
        assert weapon.twelve_effect is None
    else:
        assert weapon.twelve_effect is not None
        effect = weapon.twelve_effect.effect
        assert (effect.type, effect.amount, effect.per_target_tier) == twelve
        assert weapon.twelve_effect.max_per_strike == per_strike
        assert weapon.twelve_effect.max_per_turn == per_turn
    if passion is None:
        assert weapon.passion_effect is None
    else:
        assert weapon.passion_effect is not None
        assert (weapon.passion_effect.type, weapon.passion_effect.amount) == passion


def test_m28_bow_passion_is_wear_r_itself_minus_50_percent() -> None:
    passion = builtin_catalog().weapon("Bow").passion_effect
    assert passion is not None
    assert (passion.wear_kind, passion.percent) == (WearKind.R, -50)


def test_m28_a_host_can_edit_weapon_data() -> None:
    edited = parse_catalog(
        {
            "format": "tableside/majesty-catalog",
            "version": 1,
            "weapons": [
                {
                    "name": "Sword",
                    "twelve_effect": {
                        "effect": {"type": "ap", "amount": 1},
                        "max_per_strike": 2,
                    },
                }
            ],
        }
    )
    catalog = builtin_catalog().extended(edited)
    sword = catalog.weapon("sword")
    result = strike((12, 12, 5, 5, 5, 5, 5), weapon=sword)
    assert result.effects.ap_gained == 2
    assert builtin_catalog().weapon("Sword").twelve_effect is not None


def test_m28_bad_weapon_data_names_the_field() -> None:
    bad = {
        "format": "tableside/majesty-catalog",
        "version": 1,
        "weapons": [{"name": "Javelin", "ranged_range": 2}],
    }
    with pytest.raises(DataError, match=r"weapons\.0\.ranged_range"):
        parse_catalog(bad)


def test_m28_unknown_weapon_is_refused() -> None:
    with refused("Unknown weapon"):
        builtin_catalog().weapon("Trebuchet")


# --- M-29 Maneuvers and Melee Influence -------------------------------------------------------


@pytest.mark.parametrize(
    ("superiority", "influence"), [(0, 0), (1, 1), (6, 1), (7, 2), (13, 2), (14, 3), (21, 4)]
)
def test_m29_melee_influence(superiority: int, influence: int) -> None:
    result = strike(NEUTRAL, superiority=superiority)
    parts = [p.amount for p in result.adjusting.striker_raw if "Melee Influence" in p.label]
    assert sum(parts) == influence
    expected = [(Side.STRIKER, influence)] if influence else []
    assert_passes(result.adjusting.passes, expected)


def test_m29_melee_influence_does_not_help_a_ranged_strike() -> None:
    result = strike(NEUTRAL, weapon="Bow", ranged=True, superiority=14)
    assert result.adjusting.striker_raw == ()


def test_m29_melee_influence_cancels_against_the_defenders_advantage() -> None:
    result = strike((9, 9, 5, 5, 5, 5, 5), defender=character(guard=4), superiority=7)
    assert_passes(result.adjusting.passes, [])  # Defender 2 (advantage 3) vs Influence 2


def test_m29_maneuver_modifiers_enter_the_strike() -> None:
    crushing = strike((9, 9, 9, 5, 5, 5, 5), maneuvers=("Crushing Blow",))
    assert crushing.force.value == 5
    assert wear_line(crushing, WearKind.E).amount == 15
    disarm = strike((9, 9, 9, 9, 5, 5, 5), maneuvers=("Disarm",))
    assert wear_line(disarm, WearKind.E).amount == 8
    assert disarm.defender_falter == 4
    aimed = Maneuver(name="Aimed", precision=3, striker_adjustments=1, wear_flat=2)
    aimed_result = strike((8, 8, 8, 5, 5, 5, 5), maneuvers=(aimed,))
    assert aimed_result.precision.value == 4
    assert_passes(aimed_result.adjusting.passes, [(Side.STRIKER, 3)])
    assert wear_line(aimed_result, WearKind.E).amount == 3 * 4 + 2
    guarded = Maneuver(name="Overextend", defender_adjustments=2)
    assert_passes(strike(NEUTRAL, maneuvers=(guarded,)).adjusting.passes, [(Side.DEFENDER, 2)])


def test_m29_melee_only_and_ranged_only_maneuvers() -> None:
    with refused("only with a Melee Strike"):
        strike(NEUTRAL, weapon="Bow", ranged=True, maneuvers=("Disarm",))
    volley = Maneuver(name="Volley", ranged_only=True)
    with refused("only with a Ranged Strike"):
        strike(NEUTRAL, maneuvers=(volley,))


def test_m29_maneuver_ap_cost_never_below_1() -> None:
    with refused("at least 1 AP"):
        strike(NEUTRAL, two_ap=True, maneuvers=(Maneuver(name="Quick", ap_cost=-2),))

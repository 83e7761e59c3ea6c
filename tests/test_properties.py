"""Property tests (Hypothesis) of whole Strikes (M-6 … M-29) and Checks (M-30 … M-33).

Every property is checked against the rulings, recomputed here where cheap: dice bounds of the
outcome (M-8, M-20), Adjustments within what each side has (M-10 … M-12), epic locks (M-9),
the Wear minimum (M-26), Boon/Bane discards (M-7), reproducible seeded rolls, and robustness:
any input resolves or raises a :class:`TablesideError`, never another exception.
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol, TypeVar

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tableside.dice import Adjustment, ScriptedRng, SeededRng, Side
from tableside.errors import TablesideError
from tableside.majesty.adjust import AdjustMode, AdjustPass, Step
from tableside.majesty.catalog import Maneuver, Weapon, builtin_catalog, parse_catalog
from tableside.majesty.character import Attributes, Character, WarOverrides, Wear, WearKind
from tableside.majesty.checks import CheckKind, CheckResult, CheckSetup, check_with_dice, roll_check
from tableside.majesty.geometry import Dominion, Point
from tableside.majesty.rolls import EXPOSED, PLAIN, SURPRISED, Reading
from tableside.majesty.ruleset import NEWER_FULL_STANCE, STANDARD
from tableside.majesty.strike import (
    DefenderState,
    Placement,
    StrikeOptions,
    StrikeSetup,
    roll_strike,
    strike_with_dice,
)

T = TypeVar("T")


class Draw(Protocol):
    """What ``st.composite`` and ``st.data()`` both hand out: draw one value of a strategy."""

    def __call__(self, strategy: st.SearchStrategy[T], /) -> T: ...


PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CATALOG = builtin_catalog()
WEAPONS: tuple[Weapon, ...] = tuple(CATALOG.weapons.values())
MANEUVERS: tuple[Maneuver, ...] = tuple(CATALOG.maneuvers.values())

# --- reading faces, straight from the rulings -------------------------------------------------


def reads_as(face: int, reading: Reading) -> str:
    """M-6 / M-19: "12" (epic positive), "hit", "miss", "stop" or "1" (epic negative)."""
    if face == 12 or (face == 11 and reading.elevens_are_twelves):
        return "12"
    if face >= 9:
        return "hit"
    if face >= 4 or reading.lows_are_neutral:
        return "miss"
    return "1" if face == 1 else "stop"


def unpaired(faces: Sequence[int], reading: Reading) -> tuple[int, int]:
    """Unpaired 12s and unpaired 1s (M-8, M-9)."""
    kinds = Counter(reads_as(face, reading) for face in faces)
    pairs = min(kinds["12"], kinds["1"])
    return kinds["12"] - pairs, kinds["1"] - pairs


def expected_reading(state: DefenderState) -> Reading:
    """M-19: Exposed (or Bound, M-36) reads 1–3 as Misses and 11 as 12; Surprised 11 as 12."""
    if state.exposed or state.bound:
        return EXPOSED
    return SURPRISED if state.surprised else PLAIN


# --- strategies -------------------------------------------------------------------------------

# Faces 1, 11 and 12 come up often so that Epic rolls (M-9) and 12/1 pairs (M-8) are common.
FACE = st.one_of(st.integers(1, 12), st.sampled_from([1, 1, 11, 12, 12]))
SMALL = st.integers(0, 3)


@st.composite
def characters(draw: st.DrawFn, name: str = "Elohim") -> Character:
    """A valid character: natural attributes, some Wear, optional overrides (M-1 … M-5)."""
    natural = Attributes(*(draw(st.integers(0, 200)) for _ in range(6)))
    wear = Wear(E=draw(st.integers(0, 60)), R=draw(st.integers(0, 60)), P=draw(st.integers(0, 60)))
    overrides = WarOverrides(
        force=draw(st.none() | st.integers(0, 12)),
        guard=draw(st.none() | st.integers(0, 12)),
        precision=draw(st.none() | st.integers(0, 12)),
    )
    return Character(
        name,
        natural,
        wear=wear,
        overrides=overrides,
        tier=draw(st.integers(1, 3)),
        status_lowered=draw(st.integers(0, 1)),
    )


def usable(maneuver: Maneuver, ranged: bool) -> bool:
    return not (maneuver.melee_only and ranged) and not (maneuver.ranged_only and not ranged)


@st.composite
def strike_setups(draw: st.DrawFn, mode: AdjustMode | None = None) -> StrikeSetup:
    """A Strike the rules allow: the weapon can make it and every Maneuver fits it."""
    weapon = draw(st.sampled_from(WEAPONS))
    can_range = weapon.ranged_range is not None
    ranged = draw(st.booleans()) if weapon.melee and can_range else not weapon.melee
    fitting = [m for m in MANEUVERS if usable(m, ranged)]
    maneuvers = draw(st.lists(st.sampled_from(fitting), max_size=3, unique_by=lambda m: m.name))
    state = DefenderState(*(draw(st.booleans()) for _ in range(6)))
    options = StrikeOptions(
        ranged=ranged,
        two_ap=draw(st.booleans()),
        striker_in_stance=draw(st.booleans()),
        boon=draw(SMALL),
        bane=draw(SMALL),
        precision=draw(st.integers(-4, 8)),
        guard=draw(st.integers(-4, 8)),
        force=draw(st.integers(-3, 5)),
        wear_flat=draw(st.integers(-5, 10)),
        wear_percent=draw(st.integers(-60, 60)),
        ignore_stops=draw(SMALL),
        striker_adjustments=draw(st.integers(0, 4)),
        defender_adjustments=draw(st.integers(0, 4)),
        inspiration=draw(SMALL),
        obstruction=draw(SMALL),
        superiority=draw(st.integers(0, 10)),
        twelve_effects_this_turn=draw(SMALL),
        mode=mode or draw(st.sampled_from([AdjustMode.BEST, AdjustMode.NONE])),
    )
    return StrikeSetup(
        striker=draw(characters("Striker")),
        defender=draw(characters("Defender")),
        weapon=weapon,
        defender_weapon=draw(st.sampled_from([w for w in WEAPONS if w.melee])),
        maneuvers=tuple(maneuvers),
        defender_state=state,
        options=options,
        ruleset=draw(st.sampled_from([STANDARD, NEWER_FULL_STANCE])),
    )


def dice_count(boon: int, bane: int) -> int:
    """M-7: 7 dice plus one per net Boon or Bane."""
    return 7 + abs(boon - bane)


@st.composite
def strikes_with_dice(
    draw: st.DrawFn, mode: AdjustMode | None = None
) -> tuple[StrikeSetup, tuple[int, ...]]:
    setup = draw(strike_setups(mode))
    count = dice_count(setup.options.boon, setup.options.bane)
    dice = tuple(draw(st.lists(FACE, min_size=count, max_size=count)))
    if mode == AdjustMode.EXPLICIT:
        steps = draw(
            st.lists(
                st.builds(
                    Step,
                    die=st.integers(0, 6),
                    delta=st.sampled_from([1, -1]),
                    side=st.sampled_from([None, Side.STRIKER, Side.DEFENDER]),
                ),
                max_size=6,
            )
        )
        setup = replace_options(setup, steps=tuple(steps))
    return setup, dice


def replace_options(setup: StrikeSetup, **changes: Any) -> StrikeSetup:
    return replace(setup, options=replace(setup.options, **changes))


# --- shared assertions ------------------------------------------------------------------------


def assert_adjustments_fit(
    natural: tuple[int, ...],
    final: tuple[int, ...],
    adjustments: Sequence[Adjustment],
    passes: Sequence[AdjustPass],
) -> None:
    """M-11, M-12: each side makes at most what its passes give; the steps replay to ``final``."""
    faces = list(natural)
    for adjustment in adjustments:
        assert 0 <= adjustment.die < len(faces)
        assert faces[adjustment.die] == adjustment.from_
        assert abs(adjustment.to - adjustment.from_) == 1
        assert 1 <= adjustment.to <= 12
        faces[adjustment.die] = adjustment.to
    assert tuple(faces) == final
    made = Counter(adjustment.by for adjustment in adjustments)
    for side in Side:
        available = sum(p.count for p in passes if p.side == side)
        assert made[side] <= available, (side, made[side], available)


def assert_epic_locks(
    natural: tuple[int, ...],
    final: tuple[int, ...],
    adjustments: Sequence[Adjustment],
    reading: Reading,
) -> None:
    """M-9: in an Epic Strike no natural 12 goes down; in an Epic Defense no natural 1 goes up."""
    twelves, ones = unpaired(natural, reading)
    for die, (start, end) in enumerate(zip(natural, final, strict=True)):
        kind = reads_as(start, reading)
        lowered = any(a.die == die and a.to < start for a in adjustments)
        raised = any(a.die == die and a.to > start for a in adjustments)
        if twelves >= 2 and kind == "12":
            assert end >= start and not lowered, (natural, final, die)
        if ones >= 2 and kind == "1":
            assert end <= start and not raised, (natural, final, die)


def assert_discards(rolled: tuple[int, ...], discarded: tuple[int, ...], boon_net: int) -> None:
    """M-7: Boon drops the lowest non-1s, Bane the highest non-12s, as many as allowed."""
    kept = [face for i, face in enumerate(rolled) if i not in discarded]
    dropped = [rolled[i] for i in discarded]
    if boon_net > 0:
        eligible = sum(1 for face in rolled if face != 1)
        assert len(dropped) == min(boon_net, eligible)
        assert all(face != 1 for face in dropped)
        assert all(k >= d for k in kept if k != 1 for d in dropped)
    elif boon_net < 0:
        eligible = sum(1 for face in rolled if face != 12)
        assert len(dropped) == min(-boon_net, eligible)
        assert all(face != 12 for face in dropped)
        assert all(k <= d for k in kept if k != 12 for d in dropped)
    else:
        assert not dropped
    assert len(kept) >= 7


# --- Strikes ----------------------------------------------------------------------------------


@PROPERTY
@given(strikes_with_dice())
def test_m8_m20_outcome_within_dice_bounds(case: tuple[StrikeSetup, tuple[int, ...]]) -> None:
    setup, dice = case
    result = strike_with_dice(setup, dice)
    n = len(result.final)
    assert n == len(result.roll.natural) >= 7
    outcome = result.outcome
    assert 0 <= outcome.hits <= 2 * n
    assert 0 <= outcome.stops <= n
    assert -n <= outcome.net <= 2 * n
    assert 0 <= outcome.twelve_effects <= n
    # M-20 recomputed from the final dice with the M-19 reading.
    reading = expected_reading(setup.defender_state)
    assert result.reading == reading
    kinds = Counter(reads_as(face, reading) for face in result.final)
    twelves, ones = unpaired(result.final, reading)
    assert outcome.hits == kinds["hit"] + kinds["12"] + twelves
    ignore = setup.options.ignore_stops + sum(m.ignore_stops for m in setup.maneuvers)
    assert outcome.stops == max(0, kinds["stop"] + kinds["1"] - ignore)
    assert outcome.twelve_effects == twelves
    assert outcome.striker_falter == (0 if setup.options.ranged else ones)  # M-22, M-27


@PROPERTY
@given(strikes_with_dice())
def test_m11_m12_strike_adjustments_within_available(
    case: tuple[StrikeSetup, tuple[int, ...]],
) -> None:
    setup, dice = case
    result = strike_with_dice(setup, dice)
    passes = result.adjusting.passes
    assert all(p.count > 0 for p in passes)
    assert_adjustments_fit(result.roll.natural, result.final, result.adjustments, passes)
    if setup.options.mode == AdjustMode.NONE:
        assert result.adjustments == ()
        assert result.final == result.roll.natural


@PROPERTY
@given(strikes_with_dice(AdjustMode.EXPLICIT))
def test_m9_m12_explicit_strike_adjustments_legal_or_refused(
    case: tuple[StrikeSetup, tuple[int, ...]],
) -> None:
    setup, dice = case
    try:
        result = strike_with_dice(setup, dice)
    except TablesideError:
        return
    assert_adjustments_fit(
        result.roll.natural, result.final, result.adjustments, result.adjusting.passes
    )
    assert_epic_locks(result.roll.natural, result.final, result.adjustments, result.reading)
    assert len(result.adjustments) == len(setup.options.steps)


@PROPERTY
@given(strikes_with_dice(AdjustMode.BEST))
def test_m9_strike_epic_locks_respected(case: tuple[StrikeSetup, tuple[int, ...]]) -> None:
    setup, dice = case
    result = strike_with_dice(setup, dice)
    reading = expected_reading(setup.defender_state)
    twelves, ones = unpaired(result.roll.natural, reading)
    assert result.epic.positive == (twelves >= 2)
    assert result.epic.negative == (ones >= 2)
    assert_epic_locks(result.roll.natural, result.final, result.adjustments, reading)


@PROPERTY
@given(strikes_with_dice())
def test_m26_wear_minimum_and_no_wear_without_uncanceled_hits(
    case: tuple[StrikeSetup, tuple[int, ...]],
) -> None:
    setup, dice = case
    result = strike_with_dice(setup, dice)
    hits = result.outcome.uncanceled_hits
    force = result.force.value
    assert force >= 0
    assert result.wear, "a Strike always reports its weapon's Wear line"
    for line in result.wear:
        if hits >= 1:
            assert line.amount >= max(1, hits * force // 10), line
        else:
            assert line.amount == 0, line
    if not result.defender_after.defeated_by_epic:
        for kind in WearKind:
            dealt = sum(line.amount for line in result.wear if line.kind == kind)
            assert result.defender_after.wear.of(kind) == setup.defender.wear.of(kind) + dealt


@PROPERTY
@given(strikes_with_dice())
def test_m7_strike_boon_bane_discards(case: tuple[StrikeSetup, tuple[int, ...]]) -> None:
    setup, dice = case
    result = strike_with_dice(setup, dice)
    assert result.roll.rolled == dice
    assert_discards(dice, result.roll.discarded, setup.options.boon - setup.options.bane)


@PROPERTY
@given(strike_setups(), st.integers(0, 2**63))
def test_strike_same_seed_same_result(setup: StrikeSetup, seed: int) -> None:
    first = roll_strike(setup, SeededRng(seed))
    again = roll_strike(setup, SeededRng(seed))
    assert first == again
    assert len(first.roll.rolled) == dice_count(setup.options.boon, setup.options.bane)
    assert strike_with_dice(setup, first.roll.rolled) == first
    scripted = ScriptedRng(first.roll.rolled)
    assert roll_strike(setup, scripted) == first
    assert scripted.remaining == 0


# --- any input: a result or a TablesideError --------------------------------------------------

WILD = st.integers(-1_000, 1_000)
WILD_BOON = st.integers(-5, 12)  # a huge Boon rolls that many dice: keep it small
WILD_FACE = st.integers(-2, 14)
FINITE = st.floats(-30, 30, allow_nan=False)
COORD = st.one_of(FINITE, FINITE, st.floats())  # now and then NaN, ±inf or huge
POINT: st.SearchStrategy[Point] = st.tuples(COORD, COORD, COORD)


def wild_characters(draw: Draw, name: str, wild: bool) -> Character:
    """Extreme sheet numbers; when ``wild``, negative ones too (construction may refuse them)."""
    low, least = (-5, -1) if wild else (0, 1)
    return Character(
        name,
        Attributes(*(draw(st.integers(low, 400)) for _ in range(6))),
        wear=Wear(*(draw(st.integers(-50, 500)) for _ in range(3))),
        overrides=WarOverrides(*(draw(st.none() | st.integers(-20, 40)) for _ in range(6))),
        tier=draw(st.integers(least, 4)),
        magnitude=draw(st.integers(least, 4)),
        exertion=draw(WILD),
        status_lowered=draw(st.integers(-1, 3)),
        defeated_by_epic=draw(st.booleans()),
    )


EFFECT = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["ap", "wear_flat", "wear_percent", "falter", "exertion"]),
        "amount": st.integers(-20, 20),
    },
    optional={
        "per_target_tier": st.booleans(),
        "wear_kind": st.sampled_from([None, "E", "R", "P"]),
        "percent": st.integers(-100, 100),
    },
)
WEAPON_DATA = st.fixed_dictionaries(
    {"name": st.sampled_from(["Wild", "Odd", "Strange"])},
    optional={
        "melee": st.booleans(),
        "ranged_range": st.none() | st.floats(-5, 30, allow_nan=False),
        "wear_kind": st.sampled_from(["E", "R", "P"]),
        "wear_percent": st.integers(-200, 200),
        "twelve_effect": st.none()
        | st.fixed_dictionaries(
            {"effect": EFFECT},
            optional={
                "max_per_strike": st.none() | st.integers(-2, 3),
                "max_per_turn": st.none() | st.integers(-2, 3),
            },
        ),
        "passion_effect": st.none() | EFFECT,
    },
)
MANEUVER_INTS = [
    "precision",
    "guard",
    "force",
    "striker_adjustments",
    "defender_adjustments",
    "ignore_stops",
    "wear_flat",
    "wear_percent",
    "ap_cost",
    "falter",
    "falter_per_hit",
]
MANEUVER_DATA = st.fixed_dictionaries(
    {"name": st.sampled_from(["Feint", "Rush", "Hold"])},
    optional={name: st.integers(-5, 5) for name in MANEUVER_INTS}
    | {
        "movement": st.floats(-5, 5, allow_nan=False),
        "knock_back": st.floats(-2, 5, allow_nan=False),
        "ranged_only": st.booleans(),
        "melee_only": st.booleans(),
    },
)


def wild_weapon(draw: Draw) -> Weapon:
    if draw(st.booleans()):
        return draw(st.sampled_from(WEAPONS))
    document = {"format": "tableside/majesty-catalog", "version": 1, "weapons": [draw(WEAPON_DATA)]}
    return parse_catalog(document).weapons[0]


def wild_maneuver(draw: Draw) -> Maneuver:
    if draw(st.booleans()):
        return draw(st.sampled_from(MANEUVERS))
    document = {
        "format": "tableside/majesty-catalog",
        "version": 1,
        "maneuvers": [draw(MANEUVER_DATA)],
    }
    return parse_catalog(document).maneuvers[0]


WILD_STEPS = st.lists(
    st.builds(
        Step,
        die=st.integers(-3, 12),
        delta=st.integers(-3, 3),
        side=st.none() | st.sampled_from(list(Side)),
    ),
    max_size=8,
)


@st.composite
def wild_placements(draw: st.DrawFn) -> Placement | None:
    """Positions, mostly finite; paths of 0 to 3 points; Dominions of any radius."""
    if draw(st.booleans()):
        return None
    if draw(st.booleans()):
        return Placement.at_distance(draw(st.floats(-5, 30, allow_nan=False)))
    path = tuple(draw(st.lists(POINT, max_size=3)))
    radius = st.one_of(st.floats(-1, 6, allow_nan=False), st.floats())
    dominions = draw(st.lists(st.builds(Dominion, POINT, radius), max_size=2))
    return Placement(path, draw(POINT), tuple(dominions))


def build_wild_strike(draw: Draw, wild: bool) -> StrikeSetup:
    """Extreme values the rules allow; when ``wild``, anything: negative counts, custom weapons
    and Maneuvers, misfit ranged flags, named Adjustments, far-off placements."""
    count = st.integers(-5, 30) if wild else st.integers(0, 30)
    weapon = wild_weapon(draw)
    if wild:
        ranged = draw(st.booleans())
        maneuvers = tuple(wild_maneuver(draw) for _ in range(draw(st.integers(0, 3))))
    else:
        can_range = weapon.ranged_range is not None
        ranged = draw(st.booleans()) if weapon.melee and can_range else not weapon.melee
        fitting = st.sampled_from([m for m in MANEUVERS if usable(m, ranged)])
        maneuvers = tuple(draw(st.lists(fitting, max_size=3)))
    options = StrikeOptions(
        ranged=ranged,
        two_ap=draw(st.booleans()),
        striker_in_stance=draw(st.booleans()),
        boon=draw(WILD_BOON if wild else SMALL),
        bane=draw(WILD_BOON if wild else SMALL),
        precision=draw(WILD),
        guard=draw(WILD),
        force=draw(WILD),
        wear_flat=draw(WILD),
        wear_percent=draw(WILD),
        ignore_stops=draw(WILD if wild else count),
        striker_adjustments=draw(count),
        defender_adjustments=draw(count),
        inspiration=draw(count),
        obstruction=draw(count),
        superiority=draw(WILD),
        twelve_effects_this_turn=draw(WILD if wild else count),
        mode=draw(st.sampled_from(list(AdjustMode) if wild else [AdjustMode.BEST])),
        steps=tuple(draw(WILD_STEPS)) if wild else (),
    )
    return StrikeSetup(
        striker=wild_characters(draw, "Striker", wild),
        defender=wild_characters(draw, "Defender", wild),
        weapon=weapon,
        defender_weapon=wild_weapon(draw),
        maneuvers=maneuvers,
        defender_state=DefenderState(*(draw(st.booleans()) for _ in range(6))),
        options=options,
        placement=draw(wild_placements()) if wild else None,
        ruleset=draw(st.sampled_from([STANDARD, NEWER_FULL_STANCE])),
    )


def wild_dice(draw: Draw, boon: int, bane: int, wild: bool = True) -> tuple[int, ...]:
    """The right number of good dice; when ``wild``, sometimes too few or many, or bad faces."""
    count = max(0, dice_count(boon, bane))
    if wild:
        count += draw(st.sampled_from([0, 0, 0, -1, 1, -7]))
    face = WILD_FACE if wild and draw(st.booleans()) else FACE
    return tuple(draw(st.lists(face, min_size=max(0, count), max_size=max(0, count))))


@PROPERTY
@given(st.data())
def test_any_strike_input_resolves_or_raises_tableside_error(data: st.DataObject) -> None:
    draw = data.draw
    wild = draw(st.booleans())
    try:
        setup = build_wild_strike(draw, wild)
        how = draw(st.sampled_from(["dice", "seeded", "scripted"]))
        if how == "dice":
            strike_with_dice(setup, wild_dice(draw, setup.options.boon, setup.options.bane, wild))
        elif how == "seeded":
            roll_strike(setup, SeededRng(draw(st.integers(-3 if wild else 0, 2**64))))
        else:
            dice = wild_dice(draw, setup.options.boon, setup.options.bane, wild)
            roll_strike(setup, ScriptedRng(dice))
        event("resolved")
    except TablesideError as error:
        event(f"refused: {type(error).__name__}")


ORIGIN: Point = (0.0, 0.0, 0.0)


def _plain_setup(placement: Placement) -> StrikeSetup:
    elohim = Character("Elohim", Attributes(50, 50, 50, 50, 50, 50))
    sword = CATALOG.weapon("Sword")
    return StrikeSetup(elohim, elohim, sword, sword, placement=placement)


# M-15 regressions: an empty path used to raise IndexError (geometry._segments) and a NaN on
# the path beside a Dominion a bare ValueError (math.ceil in geometry._sample).
def test_m15_empty_movement_path_raises_tableside_error() -> None:
    with pytest.raises(TablesideError):
        strike_with_dice(_plain_setup(Placement((), (1.0, 0.0, 0.0))), (5,) * 7)


@pytest.mark.parametrize("bad", [math.nan, -math.nan])
def test_m15_nan_path_with_dominion_raises_tableside_error(bad: float) -> None:
    with pytest.raises(TablesideError):
        placement = Placement(
            (ORIGIN, (bad, 0.0, 0.0)), (1.0, 0.0, 0.0), (Dominion((0.0, 5.0, 0.0), 1.0),)
        )
        strike_with_dice(_plain_setup(placement), (5,) * 7)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 0.0, -1.0])
@pytest.mark.parametrize("where", ["distance", "target", "path", "centre", "radius"])
def test_m15_bad_positions_resolve_or_raise_tableside_error(where: str, bad: float) -> None:
    with contextlib.suppress(TablesideError):
        point = (bad, 0.0, 0.0)
        wall = (Dominion((0.0, 5.0, 0.0), 1.0),)
        placement = {
            "distance": lambda: Placement.at_distance(bad),
            "target": lambda: Placement((ORIGIN,), point, wall),
            "path": lambda: Placement((ORIGIN, point), (1.0, 0.0, 0.0), wall),
            "centre": lambda: Placement((ORIGIN,), (1.0, 0.0, 0.0), (Dominion(point, 1.0),)),
            "radius": lambda: Placement((ORIGIN,), (1.0, 0.0, 0.0), (Dominion(ORIGIN, bad),)),
        }[where]()
        strike_with_dice(_plain_setup(placement), (5,) * 7)


# Regression: a negative 12 Effect cap once validated and fired the effect −1 times (M-21, M-28).
def test_m21_negative_twelve_effect_cap_refused_or_never_negative() -> None:
    document = {
        "format": "tableside/majesty-catalog",
        "version": 1,
        "weapons": [
            {
                "name": "Odd",
                "twelve_effect": {"effect": {"type": "ap", "amount": 1}, "max_per_strike": -1},
            }
        ],
    }
    try:
        weapon = parse_catalog(document).weapons[0]
    except TablesideError:
        return
    elohim = Character("Elohim", Attributes(50, 50, 50, 50, 50, 50))
    result = strike_with_dice(StrikeSetup(elohim, elohim, weapon, weapon), (12, 9, 9, 5, 5, 5, 5))
    assert result.outcome.twelve_effects == 1
    assert result.effects.twelve_fired >= 0
    assert result.effects.ap_gained >= 0


# --- Checks -----------------------------------------------------------------------------------


@st.composite
def check_setups(draw: st.DrawFn, mode: AdjustMode | None = None) -> CheckSetup:
    """A Check the rules allow (M-30 … M-32)."""
    return CheckSetup(
        kind=draw(st.sampled_from(list(CheckKind))),
        factor=draw(st.integers(0, 20)),
        opposing=draw(st.none() | st.integers(0, 20)),
        difficulty=draw(st.integers(-5, 5)),
        raw_for=draw(st.integers(0, 4)),
        raw_against=draw(st.integers(0, 4)),
        inspiration=draw(SMALL),
        obstruction=draw(SMALL),
        boon=draw(SMALL),
        bane=draw(SMALL),
        mode=mode or draw(st.sampled_from([AdjustMode.BEST, AdjustMode.NONE])),
    )


@st.composite
def checks_with_dice(
    draw: st.DrawFn, mode: AdjustMode | None = None
) -> tuple[CheckSetup, tuple[int, ...]]:
    setup = draw(check_setups(mode))
    count = dice_count(setup.boon, setup.bane)
    dice = tuple(draw(st.lists(FACE, min_size=count, max_size=count)))
    if mode == AdjustMode.EXPLICIT:
        steps = st.builds(
            Step,
            die=st.integers(0, 6),
            delta=st.sampled_from([1, -1]),
            side=st.sampled_from([None, Side.ROLLER, Side.OPPONENT]),
        )
        setup = replace(setup, steps=tuple(draw(st.lists(steps, max_size=6))))
    return setup, dice


def assert_check_reads_its_dice(result: CheckResult) -> None:
    """M-8 net from the final dice; M-31 / M-33 outcome; M-32 degrees."""
    n = len(result.final)
    kinds = Counter(reads_as(face, PLAIN) for face in result.final)
    twelves, _ = unpaired(result.final, PLAIN)
    net = kinds["hit"] + kinds["12"] + twelves - kinds["stop"] - kinds["1"]
    assert result.net == net
    assert -n <= net <= 2 * n
    natural_twelves, natural_ones = unpaired(result.roll.natural, PLAIN)
    if natural_twelves >= 3:
        expected = "success"
    elif natural_ones >= 3:
        expected = "failure"
    else:
        expected = "success" if net >= 3 else "partial" if net >= 1 else "failure"
    assert result.outcome == expected
    assert result.passes_short == max(0, 3 - net)
    assert result.degree == sum(1 for step in (3, 7, 12) if net >= step)


@PROPERTY
@given(checks_with_dice())
def test_m8_m31_check_net_within_dice_bounds(case: tuple[CheckSetup, tuple[int, ...]]) -> None:
    setup, dice = case
    assert_check_reads_its_dice(check_with_dice(setup, dice))


@PROPERTY
@given(checks_with_dice())
def test_m11_m12_check_adjustments_within_available(
    case: tuple[CheckSetup, tuple[int, ...]],
) -> None:
    setup, dice = case
    result = check_with_dice(setup, dice)
    assert all(p.count > 0 for p in result.passes)
    assert_adjustments_fit(result.roll.natural, result.final, result.adjustments, result.passes)
    assert_epic_locks(result.roll.natural, result.final, result.adjustments, PLAIN)
    if setup.mode == AdjustMode.NONE:
        assert result.adjustments == ()


@PROPERTY
@given(checks_with_dice(AdjustMode.EXPLICIT))
def test_m9_m12_explicit_check_adjustments_legal_or_refused(
    case: tuple[CheckSetup, tuple[int, ...]],
) -> None:
    setup, dice = case
    try:
        result = check_with_dice(setup, dice)
    except TablesideError:
        return
    assert_adjustments_fit(result.roll.natural, result.final, result.adjustments, result.passes)
    assert_epic_locks(result.roll.natural, result.final, result.adjustments, PLAIN)
    assert len(result.adjustments) == len(setup.steps)
    assert_check_reads_its_dice(result)


@PROPERTY
@given(checks_with_dice())
def test_m7_check_boon_bane_discards(case: tuple[CheckSetup, tuple[int, ...]]) -> None:
    setup, dice = case
    result = check_with_dice(setup, dice)
    assert result.roll.rolled == dice
    assert_discards(dice, result.roll.discarded, setup.boon - setup.bane)


@PROPERTY
@given(check_setups(), st.integers(0, 2**63))
def test_check_same_seed_same_result(setup: CheckSetup, seed: int) -> None:
    first = roll_check(setup, SeededRng(seed))
    assert roll_check(setup, SeededRng(seed)) == first
    assert check_with_dice(setup, first.roll.rolled) == first
    assert roll_check(setup, ScriptedRng(first.roll.rolled)) == first


@PROPERTY
@given(st.data())
def test_any_check_input_resolves_or_raises_tableside_error(data: st.DataObject) -> None:
    draw = data.draw
    wild = draw(st.booleans())
    count = st.integers(-5, 30) if wild else st.integers(0, 30)
    interaction = st.sampled_from([CheckKind.PERCEPTION, CheckKind.SOCIAL])
    kind = draw(st.sampled_from(list(CheckKind)) if wild else interaction | st.just(None))
    setup = CheckSetup(
        kind=kind or draw(st.sampled_from([CheckKind.ATTRIBUTE, CheckKind.RESIST])),
        factor=draw(WILD if wild else count),
        opposing=draw(st.none() | (WILD if wild else count)),
        difficulty=draw(WILD),
        raw_for=draw(count),
        raw_against=draw(count),
        inspiration=draw(count),
        obstruction=draw(count),
        boon=draw(WILD_BOON if wild else SMALL),
        bane=draw(WILD_BOON if wild else SMALL),
        mode=draw(st.sampled_from(list(AdjustMode) if wild else [AdjustMode.BEST])),
        steps=tuple(draw(WILD_STEPS)) if wild else (),
    )
    try:
        how = draw(st.sampled_from(["dice", "seeded", "scripted"]))
        if how == "dice":
            check_with_dice(setup, wild_dice(draw, setup.boon, setup.bane, wild))
        elif how == "seeded":
            roll_check(setup, SeededRng(draw(st.integers(-3 if wild else 0, 2**64))))
        else:
            roll_check(setup, ScriptedRng(wild_dice(draw, setup.boon, setup.bane, wild)))
        event("resolved")
    except TablesideError as error:
        event(f"refused: {type(error).__name__}")

"""Movement costs (S-6), Sprint (S-5), and the half moves of Disengage and Roll with the Blow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from tableside.errors import RulesError, require_non_negative
from tableside.strife.conditions import KNOCKED_DOWN, Condition, has_condition


class MoveMode(StrEnum):
    """How a model moves an inch (S-6)."""

    WALK = "walk"
    CRAWL = "crawl"
    CLIMB = "climb"
    SWIM = "swim"


@dataclass(frozen=True, slots=True)
class Leg:
    """A stretch of movement: inches, mode and circumstances (S-6).

    Attributes:
        inches: Table-top inches travelled.
        mode: Walk, crawl, climb or swim.
        difficult: Over Difficult Terrain (a slippery climb counts as difficult).
        strength_test_passed: A climb at normal speed after a passed Strength test.
        with_current: Swimming with a significant current.
    """

    inches: Fraction | int
    mode: MoveMode = MoveMode.WALK
    difficult: bool = False
    strength_test_passed: bool = False
    with_current: bool = False

    def __post_init__(self) -> None:
        if self.inches < 0:
            raise RulesError(f"A leg of movement cannot be {float(self.inches):g} inches long.")


def inch_cost(leg: Leg) -> int:
    """Movement spent per inch (S-6; SA-13 for the combinations the seed leaves open)."""
    plain, hard = _COSTS[leg.mode]
    if leg.mode == MoveMode.CLIMB and leg.strength_test_passed:
        plain, hard = 1, 2
    if leg.mode == MoveMode.SWIM and leg.with_current:
        plain, hard = 1, 2
    return hard if leg.difficult else plain


_COSTS = {
    MoveMode.WALK: (1, 2),
    MoveMode.CRAWL: (2, 3),
    MoveMode.CLIMB: (2, 3),
    MoveMode.SWIM: (2, 3),
}


def under_conditions(leg: Leg, conditions: Sequence[Condition]) -> Leg:
    """A Knocked Down model crawls: walking legs become crawling (S-23, S-6)."""
    if leg.mode == MoveMode.WALK and has_condition(conditions, KNOCKED_DOWN):
        return Leg(leg.inches, MoveMode.CRAWL, leg.difficult)
    return leg


def leg_cost(leg: Leg, conditions: Sequence[Condition] = ()) -> Fraction:
    """Movement one leg costs, after conditions (S-6, S-23)."""
    moved = under_conditions(leg, conditions)
    return Fraction(moved.inches) * inch_cost(moved)


def path_cost(legs: Sequence[Leg], conditions: Sequence[Condition] = ()) -> Fraction:
    """Movement a path costs (S-6)."""
    return sum((leg_cost(leg, conditions) for leg in legs), Fraction(0))


def check_path(
    movement: int, legs: Sequence[Leg], conditions: Sequence[Condition] = ()
) -> Fraction:
    """The path's cost, refused when it exceeds ``movement`` (S-6)."""
    cost = path_cost(legs, conditions)
    if cost > movement:
        raise RulesError(
            f"This path costs {float(cost):.1f} inches of movement but Movement is {movement} "
            "(S-6)."
        )
    return cost


def disengage_action_limit(movement: int, already_moved: bool) -> Fraction:
    """A Disengage Action moves at most half Movement, only if not yet moved (S-6)."""
    require_non_negative({"Movement": movement})
    if already_moved:
        raise RulesError("A Disengage Action is only possible before moving this Turn (S-6).")
    return Fraction(movement, 2)


def roll_with_the_blow_limit(movement: int) -> Fraction:
    """Rolling with the Blow moves at most half Movement straight back (S-6, S-19)."""
    require_non_negative({"Movement": movement})
    return Fraction(movement, 2)


@dataclass(frozen=True, slots=True)
class SprintMove:
    """A Sprint: 2 × natural ground Movement, ends the Turn (S-5)."""

    distance: int
    stamina_test_needed: bool


def sprint_plan(natural_movement: int, consecutive: int = 1) -> SprintMove:
    """The ``consecutive``-th Sprint in a row; each after the first needs a Stamina test (S-5)."""
    require_non_negative({"Movement": natural_movement})
    if consecutive < 1:
        raise RulesError(f"A Sprint is at least the first in a row, not number {consecutive}.")
    return SprintMove(2 * natural_movement, consecutive > 1)

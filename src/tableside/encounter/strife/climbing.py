"""Climbing and swimming tests on a fight's Move, and the Sprint streak (S-5, S-6; SA-84 … SA-87).

A ``move`` with ``mode: climb`` or ``swim`` may carry the circumstances the Combat page gives a
test for: ``normal_speed`` (climb at walking rates after a Strength test), ``agility_test`` (a
slippery climb the Host asks an Agility test for) and ``current`` (swimming ``with`` a
significant current, or ``against`` it with a Strength test). A prolonged climb asks a Stamina
test for each climbing Move beyond 2 × Movement. :func:`move_leg` checks the circumstances
against the mode, :func:`movement_tests` rolls the tests and says where the model gets to, and
:func:`climb_streak` keeps the inches climbed in a row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from tableside.dice import Rng
from tableside.encounter.strife.acts import run_test
from tableside.encounter.strife.state import FightState, Model, condition_json
from tableside.encounter.strife.turns import Pending
from tableside.errors import RulesError
from tableside.majesty.geometry import Point
from tableside.strife.catalog import Stat
from tableside.strife.conditions import EXHAUSTION, condition
from tableside.strife.movement import Leg, MoveMode, leg_cost

Current = Literal["none", "with", "against"]


PROLONGED_CLIMB = 2  # a climb beyond 2 × Movement in a row asks a Stamina test per Move (S-6)


@dataclass(frozen=True, slots=True)
class Reached:
    """Where a Move with tests gets to: the point, inches covered, Movement spent, and why short."""

    to: Point
    inches: float
    cost: Fraction
    stopped: str | None = None


def move_leg(
    inches: float,
    mode: MoveMode,
    difficult: bool,
    *,
    normal_speed: bool = False,
    agility_test: bool = False,
    current: Current = "none",
) -> Leg:
    """The Move's leg as planned, the Strength test assumed passed (S-6, SA-84 … SA-86).

    Raises:
        RulesError: A circumstance that does not belong to the mode.
    """
    if (normal_speed or agility_test) and mode != MoveMode.CLIMB:
        what = "normal_speed" if normal_speed else "agility_test"
        raise RulesError(f"{what} is a climbing test; this move's mode is {mode.value} (S-6).")
    if current != "none" and mode != MoveMode.SWIM:
        raise RulesError(
            f"A current ({current}) is for swimming; this move's mode is {mode.value}."
        )
    return Leg(Fraction(inches).limit_denominator(100), mode, difficult,
               strength_test_passed=normal_speed, with_current=current == "with")  # fmt: skip


def movement_tests(
    p: Pending, m: Model, to: Point, leg: Leg, available: Fraction, rng: Rng, *,
    inches: float, agility_test: bool, current: Current,
) -> Reached:  # fmt: skip
    """Roll the Move's tests and say where the model gets to (S-6, SA-84 … SA-86).

    ``inches`` is the Move's length; ``available`` the Movement left for this Move (sneaking's
    half counted). A failed Agility test (slippery climb) or Strength test against a current
    makes no headway: the model stays and the Move's cost is spent. A failed Strength test to
    climb at normal speed leaves the climbing rate: the model climbs along its line as far as
    ``available`` goes.
    """
    planned = Reached(to, inches, leg_cost(leg, m.conditions))
    if agility_test and not passes(p, m, Stat.AGIL, "slippery climb Agility test", rng, "SA-85"):
        return Reached(m.position, 0.0, planned.cost, "Agility test failed")
    if current == "against" and not passes(
        p, m, Stat.STR, "swim against the current Strength test", rng, "SA-86"
    ):
        return Reached(m.position, 0.0, planned.cost, "Strength test failed")
    if not leg.strength_test_passed:
        return planned
    if passes(p, m, Stat.STR, "climb at normal speed Strength test", rng, "SA-84"):
        return planned
    slow = Leg(leg.inches, MoveMode.CLIMB, leg.difficult)
    cost = leg_cost(slow, m.conditions)
    if cost <= available:
        return Reached(to, inches, cost)
    share = available / cost
    point = tuple(a + (b - a) * float(share) for a, b in zip(m.position, to, strict=True))
    return Reached((point[0], point[1], point[2]), inches * float(share), available,
                   "Strength test failed: climbing rate")  # fmt: skip


def passes(p: Pending, m: Model, stat: Stat, purpose: str, rng: Rng, rule: str) -> bool:
    """Roll a stat test (S-1), record it, and say whether it passed."""
    return run_test(p, m, stat, 0, purpose, rng, rule).success


def climb_streak(p: Pending, m: Model, mode: MoveMode, inches: float, rng: Rng) -> None:
    """Inches climbed in a row; each climbing Move beyond 2 × Movement asks a Stamina test.

    A failed test adds one Exhaustion stack (S-6, SA-85). A Move that is not a climb ends the
    streak.
    """
    if mode != MoveMode.CLIMB:
        if m.climbed:
            p.emit("climbed", "SA-85", id=m.id, total=0.0)
        return
    total = round(m.climbed + inches, 3)
    p.emit("climbed", "SA-85", id=m.id, total=total)
    if inches <= 0 or total <= PROLONGED_CLIMB * m.sheet.movement:
        return
    if not passes(p, m, Stat.STAM, "prolonged climb Stamina test", rng, "SA-85"):
        p.emit("condition_added", "S-6", id=m.id, condition=condition_json(
            condition(EXHAUSTION, "prolonged climb")))  # fmt: skip


def consecutive_sprints(state: FightState, m: Model) -> int:
    """Which Sprint in a row this one is: 1 unless the model sprinted on its previous Turn.

    A model has one Turn a round, so its previous Turn was in the previous round (SA-87).
    """
    return m.sprints + 1 if m.sprint_round == state.round - 1 else 1


def distance_left(m: Model, sneaking_half: bool) -> Fraction:
    """The Movement left for this Turn's Move: half when sneaking (SA-42)."""
    whole = Fraction(m.sheet.movement, 2) if sneaking_half else Fraction(m.sheet.movement)
    spent = Fraction(m.movement_spent).limit_denominator(100)
    return max(Fraction(0), whole - spent)


def rounded(value: float) -> float:
    """Inches as the events store them (three decimals)."""
    return 0.0 if math.isclose(value, 0.0, abs_tol=1e-9) else round(value, 3)
